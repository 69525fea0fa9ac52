import { isArray, isObject } from './json-pointer.js';

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
  for (const key in node) out[key] = normalize30(node[key]);
  // Most nodes have none of the three keywords: they are copied and left alone.
  if (out.nullable === undefined && out.exclusiveMinimum === undefined && out.exclusiveMaximum === undefined) return out;
  const dropped = new Set<string>();
  if (typeof out.nullable === 'boolean') {
    if (out.nullable && out.type !== undefined) {
      const types = isArray(out.type) ? out.type : [out.type];
      out.type = types.includes('null') ? types : [...types, 'null'];
      if (isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    }
    dropped.add('nullable');
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      dropped.add(bound);
    } else {
      dropped.add(exclusive);
    }
  }
  return dropped.size === 0 ? out : Object.fromEntries(Object.entries(out).filter(([key]) => !dropped.has(key)));
}
