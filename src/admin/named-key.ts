import type { ApiKeyRecord, KeyRegistry } from '../auth/key-registry.js';

/**
 * The key an admin request names, by its value (`demo-pro`, `sk_pro_…`), its safe id (`key_…`) or
 * its name (`checkout-tests`), or undefined when no key has any of them. Inspection, the journal's
 * filters and patterns, and rules all take a key any of these ways; only the id and the name are
 * ever kept or shown. The value is tried first: a key's own value is what a client sends.
 */
export const namedKey = (keys: Pick<KeyRegistry, 'find' | 'byId' | 'byName'>, given: string): ApiKeyRecord | undefined =>
  keys.find(given) ?? keys.byId(given) ?? keys.byName(given);
