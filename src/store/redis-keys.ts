/**
 * Where the Redis record store keeps what, under one prefix:
 *
 *   {prefix}rec{<workspace>/<collection>}:rows     hash: key → the record's JSON
 *   {prefix}rec{<workspace>/<collection>}:ids      sorted set: key scored by row number (keyset paging)
 *   {prefix}rec{<workspace>/<collection>}:seq      the row-number counter (INCR)
 *   {prefix}rec{<workspace>/<collection>}:adopted  present once the workspace owns the collection
 *   {prefix}ws{<workspace>}:collections            set: the collections the workspace owns
 *   {prefix}ws{<workspace>}:writes                 records written since it was last forgotten
 *
 * A record's key is its row number as text in a collection of whole-number ids (vocabulary/record.ts).
 * The braces are Redis Cluster hash tags: the four keys of one (workspace, collection) hash to one
 * slot, so one script can change them all atomically. Names are escaped (below), so no workspace or
 * collection name can end a tag early, run two names together, or act as a SCAN wildcard.
 */

/** The keys of one workspace's collection, in the order every script takes them (KEYS[1..4]). */
export interface CollectionKeys {
  readonly rows: string;
  readonly ids: string;
  readonly seq: string;
  readonly adopted: string;
}

export interface WorkspaceKeys {
  readonly collections: string;
  readonly writes: string;
}

/** Brace-free: a prefix holding a hash tag would pin every key to one slot, and break the layout's own tags. */
export function checkPrefix(prefix: string): void {
  if (/[{}]/.test(prefix)) throw new Error(`the Redis key prefix ${JSON.stringify(prefix)} may not hold { or }`);
}

export const collectionKeys = (prefix: string, workspace: string, collection: string): CollectionKeys => {
  const base = `${prefix}rec{${escapeName(workspace)}/${escapeName(collection)}}:`;
  return keysUnder(base);
};

/** The four keys as a list, for a script call or one UNLINK (one slot: atomic). */
export const keyList = (keys: CollectionKeys): readonly string[] => [keys.rows, keys.ids, keys.seq, keys.adopted];

const keysUnder = (base: string): CollectionKeys => ({
  rows: `${base}rows`,
  ids: `${base}ids`,
  seq: `${base}seq`,
  adopted: `${base}adopted`,
});

export const workspaceKeys = (prefix: string, workspace: string): WorkspaceKeys => {
  const base = `${prefix}ws{${escapeName(workspace)}}:`;
  return { collections: `${base}collections`, writes: `${base}writes` };
};

/** SCAN patterns for every collection key and every workspace key under the prefix (a reset). */
export const allKeyPatterns = (prefix: string): readonly string[] => [`${escapeGlob(prefix)}rec{*`, `${escapeGlob(prefix)}ws{*`];

/** SCAN pattern for every workspace's set of collections (what `stored` walks). */
export const collectionSetPattern = (prefix: string): string => `${escapeGlob(prefix)}ws{*}:collections`;

/** The workspace a `{prefix}ws{…}:collections` key belongs to, or undefined for any other key. */
export function workspaceOfKey(prefix: string, key: string): string | undefined {
  const head = `${prefix}ws{`;
  const tail = '}:collections';
  if (!key.startsWith(head) || !key.endsWith(tail)) return undefined;
  return unescapeName(key.slice(head.length, -tail.length));
}

/** The collection keys that share a tag with `key` (a key found by SCAN), or undefined for a workspace key. */
export function collectionOfKey(prefix: string, key: string): CollectionKeys | undefined {
  const head = `${prefix}rec{`;
  const end = key.indexOf('}', head.length);
  if (!key.startsWith(head) || end < 0) return undefined;
  const base = key.slice(0, end + 2);
  return keysUnder(base);
}

/**
 * A name as it goes into a key: `%`, the tag's braces, the `/` between workspace and collection and
 * the SCAN glob characters become `%XX`, and a lone surrogate (which UTF-8 cannot carry, so two
 * would collide) `%uXXXX`. Reversible, and it never throws.
 */
export const escapeName = (name: string): string =>
  name.replace(/[%{}/*?[\]\\]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => {
    const code = c.charCodeAt(0);
    return code > 0xff ? `%u${code.toString(16).padStart(4, '0')}` : `%${code.toString(16).padStart(2, '0')}`;
  });

export const unescapeName = (escaped: string): string =>
  escaped.replace(/%u([0-9a-f]{4})|%([0-9a-f]{2})/g, (_match, wide: string | undefined, narrow: string | undefined) =>
    String.fromCharCode(parseInt(wide ?? narrow ?? '', 16)),
  );

/** A literal for a SCAN MATCH pattern (Redis glob: `*`, `?`, `[`, `]` and `\` are special). */
const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
