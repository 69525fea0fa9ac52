import { escapePointerToken, isObject } from './json-pointer.js';

/** Warnings named one by one; past them, one line counts the rest. */
const NAMED = 10;

/** Values that are data, not schemas: a `nullable` inside them is the data's own. */
const DATA = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, which has no `nullable` (OpenAPI 3.1 §4.8.24; 3.0's
 * `nullable: true` is `type: [T, 'null']` there). Ajv still reads it as 3.0 does, and refuses a
 * `nullable` without a `type`, which stopped the start of real 3.1 documents converted from 3.0.
 * Here it is what 2020-12 makes of any unknown keyword: nothing. Each one is dropped from the
 * schemas the sandbox compiles, and named in a start-up warning so the author can write `null` into
 * `type`. Returns a new document when there is any; the input is not changed.
 */
export function ignoreNullable(document: unknown, locate: (pointer: string) => string): { document: unknown; warnings: string[] } {
  const found: string[] = [];
  const visit = (node: unknown, pointer: string): unknown => {
    if (Array.isArray(node)) {
      const items = node.map((item, i) => visit(item, `${pointer}/${i}`));
      return items.some((item, i) => item !== node[i]) ? items : node;
    }
    if (!isObject(node)) return node;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(node)) {
      if (DATA.has(key) || key.startsWith('x-')) continue;
      const value = node[key];
      if (key === 'nullable' && typeof value === 'boolean') {
        found.push(pointer);
        out ??= { ...node };
        delete out.nullable;
        continue;
      }
      const visited = visit(value, `${pointer}/${escapePointerToken(key)}`);
      if (visited !== value) (out ??= { ...node })[key] = visited;
    }
    return out ?? node;
  };
  const result = visit(document, '#');
  const warnings = found
    .slice(0, NAMED)
    .map(
      (pointer) => `${locate(pointer)}: "nullable" is not an OpenAPI 3.1 keyword and is ignored; write "null" into "type" to allow null`,
    );
  if (found.length > NAMED) warnings.push(`"nullable" is ignored at ${found.length - NAMED} more places of this OpenAPI 3.1 document`);
  return { document: result, warnings };
}
