/**
 * A workspace holds its own records and clock. Every key works in exactly one; today there is one,
 * shared by every key, and every contract that holds state already takes a workspace name.
 */
export const DEFAULT_WORKSPACE = 'default';
