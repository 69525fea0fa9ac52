import { follow, isObject } from '../openapi/json-pointer.js';
import type { ParameterSpec } from '../vocabulary/operation.js';

/**
 * How a list operation pages, read from the query parameters it declares (decision 0001 for the
 * Pet Store's own `limit` + `after`, decision 0017 for the rest):
 * - `after`: a record's id (`after`, `starting_after`, `since_id`): the page starts after it;
 * - `token`: an opaque cursor the sandbox issued (`cursor`, `page_token`, `next_token`…);
 * - `offset`: how many matching records to skip (`offset`, `skip`, `start`);
 * - `page`: a page number (`page`, `page_number`), counted from `first`;
 * - `none`: the first page only; with no size parameter either, every record (up to 1,000).
 * Each has a page-size parameter where the document declares one (`limit`, `per_page`, `page_size`…).
 */
export type PagingStyle =
  | { readonly kind: 'after' | 'token' | 'offset'; readonly size: string | undefined; readonly param: string; readonly pageSize: number }
  | { readonly kind: 'page'; readonly size: string | undefined; readonly param: string; readonly pageSize: number; readonly first: number }
  | { readonly kind: 'none'; readonly size: string | undefined; readonly pageSize: number };

const SIZE = ['limit', 'per_page', 'perPage', 'page_size', 'pageSize', 'size', 'max_results', 'maxResults', 'maxItems', '$top', 'top'];
const AFTER = ['after', 'starting_after', 'startingAfter', 'after_id', 'afterId', 'since_id', 'sinceId'];
const TOKEN = [
  'cursor',
  'page_token',
  'pageToken',
  'next_token',
  'nextToken',
  'continuation_token',
  'continuationToken',
  'next_cursor',
  'nextCursor',
];
const OFFSET = ['offset', 'skip', '$skip', 'start'];
const PAGE = ['page', 'page_number', 'pageNumber', 'page_num'];

const DEFAULT_PAGE_SIZE = 20;
/** A list that declares no way to page answers every record, up to this many (decision 0017). */
const UNPAGED_LIMIT = 1000;

/**
 * The paging style of a list operation. `explicit` names from `x-understudy.pagination` win (an
 * `after` named there is a keyset cursor, as before); else the first declared name of each list.
 */
export function pagingStyle(
  document: unknown,
  query: readonly ParameterSpec[],
  explicit: { readonly limit?: string; readonly after?: string } = {},
): PagingStyle {
  const byName = new Map(query.map((p) => [p.name, p]));
  const pick = (names: readonly string[]): string | undefined => names.find((n) => byName.has(n));
  const size = explicit.limit !== undefined ? (byName.has(explicit.limit) ? explicit.limit : undefined) : pick(SIZE);
  const pageSize = pageSizeOf(document, size === undefined ? undefined : byName.get(size)?.schemaPointer);
  if (explicit.after !== undefined)
    return byName.has(explicit.after) ? { kind: 'after', size, param: explicit.after, pageSize } : { kind: 'none', size, pageSize };
  const after = pick(AFTER);
  if (after !== undefined) return { kind: 'after', size, param: after, pageSize };
  const token = pick(TOKEN);
  if (token !== undefined) return { kind: 'token', size, param: token, pageSize };
  const offset = pick(OFFSET);
  if (offset !== undefined) return { kind: 'offset', size, param: offset, pageSize };
  const page = pick(PAGE);
  if (page !== undefined) return { kind: 'page', size, param: page, pageSize, first: firstPage(document, byName.get(page)?.schemaPointer) };
  return { kind: 'none', size, pageSize: size === undefined ? UNPAGED_LIMIT : pageSize };
}

/** The names a paging style reads: never taken for filters. */
export const pagingParams = (style: PagingStyle): readonly string[] =>
  [style.size, style.kind === 'none' ? undefined : style.param].filter((n): n is string => n !== undefined);

const schemaAt = (document: unknown, pointer: string | undefined): Record<string, unknown> | undefined => {
  const value = pointer === undefined ? undefined : follow(document, pointer).value;
  return isObject(value) ? value : undefined;
};

/** The page size when none is asked for: the size parameter's `default`, never above its `maximum`. */
function pageSizeOf(document: unknown, pointer: string | undefined): number {
  const schema = schemaAt(document, pointer);
  const size = typeof schema?.default === 'number' ? schema.default : DEFAULT_PAGE_SIZE;
  return typeof schema?.maximum === 'number' ? Math.min(size, schema.maximum) : size;
}

/** The first page's number: the page parameter's `default`, else its `minimum` when that is 0, else 1. */
function firstPage(document: unknown, pointer: string | undefined): number {
  const schema = schemaAt(document, pointer);
  if (typeof schema?.default === 'number') return schema.default;
  return schema?.minimum === 0 ? 0 : 1;
}
