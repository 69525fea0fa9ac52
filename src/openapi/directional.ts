import { follow, isArray, isObject, settled } from './json-pointer.js';

/** Which way a value travels: in a request, or in an answer. */
export type Direction = 'request' | 'response';

const views = { request: new WeakMap<object, unknown>(), response: new WeakMap<object, unknown>() };

/**
 * The document as one direction sees it. A required property marked `readOnly` is required in
 * answers only, one marked `writeOnly` in requests only (OpenAPI 3.0.3 §4.7.25 "readOnly",
 * "writeOnly"; 3.1 keeps the JSON Schema annotations with the same meaning): a client does not send
 * the `id` the server assigns, and the server does not send back a `password`. The view has the same
 * structure (only `required` lists lose names), so every pointer means the same in it. Made once
 * per document and direction; a document without such a property is its own view.
 */
export function directionalView(document: unknown, direction: Direction): unknown {
  if (!isObject(document)) return document;
  const made = views[direction];
  if (made.has(document)) return made.get(document);
  const keyword = direction === 'request' ? 'readOnly' : 'writeOnly';
  // Copy on write: a node is rebuilt only when something beneath it changed, so a document without
  // such a property costs one walk and no copy.
  const walk = (node: unknown): unknown => {
    if (isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, i) => {
        const next = walk(item);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      return copy ?? node;
    }
    if (!isObject(node)) return node;
    let copy: Record<string, unknown> | undefined;
    for (const key in node) {
      const value = node[key];
      if (typeof value !== 'object' || value === null || LITERAL.has(key)) continue;
      const next = walk(value);
      if (next !== value) (copy ??= { ...node })[key] = next;
    }
    const { required, properties } = node;
    if (isArray(required) && isObject(properties)) {
      const kept = required.filter((name) => typeof name !== 'string' || !marked(document, properties[name], keyword));
      if (kept.length !== required.length) (copy ??= { ...node }).required = kept;
    }
    return copy ?? node;
  };
  // Never changed once made, as the document it views.
  const view = settled(walk(document));
  made.set(document, view);
  return view;
}

/** Values that are data, not schemas: never rewritten. */
const LITERAL = new Set(['example', 'examples', 'default', 'enum', 'const']);

/** Whether the property's schema (its `$ref`s followed) carries the keyword. */
function marked(document: unknown, schema: unknown, keyword: string): boolean {
  if (!isObject(schema)) return false;
  if (schema[keyword] === true) return true;
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#')) return false;
  try {
    const target = follow(document, schema.$ref).value;
    return isObject(target) && target[keyword] === true;
  } catch {
    return false;
  }
}
