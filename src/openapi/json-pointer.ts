/** Local JSON references (`#/components/...`, RFC 6901) inside one OpenAPI document. */

export type JsonObject = Readonly<Record<string, unknown>>;

/** `Array.isArray` without the `any[]` it would hand back for an unknown value. */
export const isArray = (value: unknown): value is readonly unknown[] => Array.isArray(value);

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A pointer token's text: `~1` → `/`, `~0` → `~` (RFC 6901 §4). Most tokens have neither. */
const unescape = (token: string): string => (token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token);

/** A token URI-decoded, as a `$ref` fragment may be written (RFC 6901 §6), or undefined when it is not valid percent-encoding. */
function uriDecoded(token: string): string | undefined {
  try {
    return decodeURIComponent(token);
  } catch {
    return undefined;
  }
}

export const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Values found, by settled document and pointer: the same pointers are asked of a document again
 * and again (the Pet Store's start walked 216 pointers 1,361 times). Only a document declared
 * settled is remembered: one being read may still change (external `$ref`s bundled into it).
 * Bounded per document, since a pointer can be built from a request.
 */
const found = new WeakMap<object, Map<string, unknown>>();
const FOUND_PER_DOCUMENT = 10_000;

/** Declares `document` settled: it never changes again, so what valueAt finds in it can be remembered. */
export function settled<T>(document: T): T {
  if (typeof document === 'object' && document !== null && !found.has(document)) found.set(document, new Map<string, unknown>());
  return document;
}

/** The value at `pointer` (`#/a/b`), or undefined when the document has nothing there. */
export function valueAt(document: unknown, pointer: string): unknown {
  const memo = typeof document === 'object' && document !== null ? found.get(document) : undefined;
  if (memo === undefined) return walk(document, pointer);
  const known = memo.get(pointer);
  if (known !== undefined || memo.has(pointer)) return known;
  const value = walk(document, pointer);
  if (memo.size < FOUND_PER_DOCUMENT) memo.set(pointer, value);
  return value;
}

function walk(document: unknown, pointer: string): unknown {
  if (pointer === '#') return document;
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(2).split('/')) {
    if (Array.isArray(node)) node = node[Number(raw)];
    else if (!isObject(node)) return undefined;
    else {
      // Pointers the sandbox builds are plain; a `$ref` written in a document may be percent-encoded
      // (`#/paths/~1a%7Bb%7D`). The plain reading wins, so a key with a literal `%` (`/100%`) is found.
      const token = unescape(raw);
      const decoded = raw.includes('%') ? uriDecoded(raw) : undefined;
      const key = Object.hasOwn(node, token) || decoded === undefined ? token : unescape(decoded);
      if (!Object.hasOwn(node, key)) return undefined;
      node = node[key];
    }
  }
  return node;
}

export interface Located {
  readonly value: unknown;
  /** Where the value really lives, after following `$ref`s. */
  readonly pointer: string;
}

/** Follows `$ref` chains from `pointer` until a value that is not a reference. */
export function follow(document: unknown, pointer: string, seen: ReadonlySet<string> = new Set()): Located {
  const value = valueAt(document, pointer);
  if (isObject(value) && typeof value.$ref === 'string') {
    const target = value.$ref;
    if (!target.startsWith('#')) throw new Error(`external reference ${target} at ${pointer}: bundle the document into one file first`);
    if (seen.has(target)) throw new Error(`circular reference ${target} at ${pointer}`);
    if (valueAt(document, target) === undefined) throw new Error(`unresolvable reference ${target} at ${pointer}`);
    return follow(document, target, new Set([...seen, target]));
  }
  return { value, pointer };
}

/**
 * Whether a `schema` field holds a schema: an object, or `true`/`false` (OpenAPI 3.1). Published
 * documents sometimes write `schema: null`; that is read as no schema (any value), not refused.
 */
export const isSchema = (value: unknown): boolean => isObject(value) || typeof value === 'boolean';
