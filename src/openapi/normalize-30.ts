import { isObject } from './json-pointer.js';

/**
 * Rewrites OpenAPI 3.0's JSON Schema dialect into plain JSON Schema (draft-07) once at load, so
 * one validator understands it (OpenAPI 3.0.3 §4.7.24):
 * - `nullable: true` becomes `null` in `type` (and in `enum`); without a `type` it allows anything
 *   already, so it is dropped;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` (draft-04 style) become the numeric form.
 * Returns a new document; the input is not changed.
 */
export function normalize30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize30);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = normalize30(value);
  if (typeof out.nullable === 'boolean') {
    if (out.nullable && out.type !== undefined) {
      const types = Array.isArray(out.type) ? out.type : [out.type];
      out.type = types.includes('null') ? types : [...types, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }
    delete out.nullable;
  }
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  return out;
}
