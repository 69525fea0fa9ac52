import type { ApiKeyRecord, KeyRegistry } from '../auth/key-registry.js';

/**
 * The key an admin request names, by its value (`demo-pro`, `sk_pro_…`) or by its safe id
 * (`key_…`), or undefined when no key has either. Inspection, the journal's filters and patterns,
 * and rules all take a key either way; only the id is ever kept or shown.
 */
export const namedKey = (keys: Pick<KeyRegistry, 'find' | 'byId'>, given: string): ApiKeyRecord | undefined =>
  keys.find(given) ?? keys.byId(given);
