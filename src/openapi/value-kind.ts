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

/**
 * The alternatives a schema offers a value, as schemas of one type each: its `oneOf`/`anyOf`
 * branches (nested ones flattened, `$ref`s followed) or, for a list of `type`s, the schema read as
 * each type. Empty when it offers one type. Pointers are `#/…`; a `type` alternative is
 * `{pointer, type}`.
 */
export function alternativesOf(document: unknown, pointer: string | undefined, depth = 0): readonly Alternative[] {
  const schema = schemaAt(document, pointer);
  if (!schema || pointer === undefined || depth > 4) return [];
  const at = follow(document, pointer).pointer;
  const types = isArray(schema.type) ? schema.type.filter((t): t is ValueKind => KINDS.includes(t as ValueKind)) : [];
  if (types.length > 1) return types.map((type) => ({ pointer: at, type }));
  const branches = isArray(schema.oneOf) ? 'oneOf' : isArray(schema.anyOf) ? 'anyOf' : undefined;
  if (branches === undefined || kindOf(document, at) !== 'any') return [];
  return (schema[branches] as unknown[]).flatMap((_, i) => {
    const branch = `${at}/${branches}/${i}`;
    const nested = alternativesOf(document, branch, depth + 1);
    return nested.length > 0 ? nested : [{ pointer: follow(document, branch).pointer, type: kindOf(document, branch) }];
  });
}

/** One way to read a value: the schema at `pointer`, as `type`. */
export interface Alternative {
  readonly pointer: string;
  readonly type: ValueKind;
}
