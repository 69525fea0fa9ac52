/**
 * What reading a setting gives: the value, or why not with the field named (`faults.faults.1.probability
 * must be a number from 0 to 1`). Settings come from config, document extensions, admin rules and
 * request headers; each caller turns an error into its own failure (a stopped start, a 400).
 */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export const parsed = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const invalid = (field: string, problem: string): { readonly ok: false; readonly error: string } => ({
  ok: false,
  error: `${field} ${problem}`,
});

export type Fields = Readonly<Record<string, unknown>>;
export const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number of milliseconds, 0 or more. */
export const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The first field of `value` not among `known`, or undefined. */
export const unknownField = (value: Fields, known: readonly string[]): string | undefined =>
  Object.keys(value).find((name) => !known.includes(name));
