import { escapePointerToken, isArray, isObject, valueAt } from './json-pointer.js';

/** How many broken references one message lists before it says "and N more". */
const LISTED = 5;

/**
 * Whether a document has external `$ref`s (to bundle), and every local `$ref` that resolves
 * nowhere, located: where the reference stands and what it points at
 * (`#/paths/~1items/get/responses/200/schema: $ref #/definitions/Nope resolves nowhere`). One walk
 * at load, so a broken reference stops the start with its place in the user's
 * document, whichever part of the sandbox would have followed it, and however lazily.
 *
 * Literal values (`example`, `default`, `enum`, `const`, an Example's `value`, a schema's `examples`
 * array) and extensions are
 * not walked: a `$ref` there is data, not a reference (OpenAPI 3.1 §4.8.23, §4.8.19).
 */
export function scanReferences(document: unknown): { readonly broken: readonly string[]; readonly external: boolean } {
  const broken: string[] = [];
  let external = false;
  const resolves = new Map<string, boolean>();
  const walk = (node: unknown, pointer: string): void => {
    if (isArray(node)) {
      node.forEach((item, i) => walk(item, `${pointer}/${i}`));
      return;
    }
    if (!isObject(node)) return;
    const ref = node.$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) external = true;
    else if (typeof ref === 'string') {
      let ok = resolves.get(ref);
      if (ok === undefined) resolves.set(ref, (ok = valueAt(document, ref) !== undefined));
      if (!ok) broken.push(`${pointer}: $ref ${ref} resolves nowhere`);
    }
    for (const [key, value] of Object.entries(node)) {
      if (typeof value !== 'object' || value === null || LITERAL.has(key) || key.startsWith('x-')) continue;
      // A map of Example objects (3.x) may hold references; a JSON Schema `examples` array is data.
      if (key === 'examples' && isArray(value)) continue;
      walk(value, `${pointer}/${escapePointerToken(key)}`);
    }
  };
  walk(document, '#');
  return { broken, external };
}

const LITERAL = new Set(['example', 'default', 'enum', 'const', 'value']);

/** One message for a list of broken references. */
export function describeBroken(file: string, broken: readonly string[]): string {
  const listed = broken.slice(0, LISTED).map((b) => `\n  ${b}`);
  const more = broken.length > LISTED ? `\n  and ${broken.length - LISTED} more` : '';
  return `${file}: ${broken.length} unresolvable reference${broken.length === 1 ? '' : 's'}:${listed.join('')}${more}`;
}
