import { follow, isArray, isObject, type JsonObject } from './json-pointer.js';
import type { ValueKind } from '../vocabulary/operation.js';

const KINDS: readonly ValueKind[] = ['integer', 'number', 'boolean', 'string', 'array', 'object'];

/** The schema at `pointer` with `$ref`s followed (and `allOf` members merged for `type`). */
export function schemaAt(document: unknown, pointer: string | undefined): JsonObject | undefined {
  if (pointer === undefined) return undefined;
  const { value } = follow(document, pointer);
  return isObject(value) ? value : undefined;
}

/**
 * Which JSON type a parameter's text must be parsed into, read from its schema: `type` (the first
 * non-null one when it is a list), else the type of its `enum` values, else `allOf` members.
 */
export function kindOf(document: unknown, pointer: string | undefined): ValueKind {
  const schema = schemaAt(document, pointer);
  if (!schema) return 'any';
  const types = isArray(schema.type) ? schema.type : [schema.type];
  const declared = types.find((t): t is ValueKind => KINDS.includes(t as ValueKind));
  if (declared) return declared;
  if (isArray(schema.enum) && schema.enum.length > 0) {
    const sample = schema.enum[0];
    if (typeof sample === 'string') return 'string';
    if (typeof sample === 'boolean') return 'boolean';
    if (typeof sample === 'number') return Number.isInteger(sample) ? 'integer' : 'number';
  }
  if (Array.isArray(schema.allOf)) {
    for (let i = 0; i < schema.allOf.length; i++) {
      const kind = kindOf(document, `${pointer}/allOf/${i}`);
      if (kind !== 'any') return kind;
    }
  }
  return 'any';
}
