/** Pure filtering and keyset paging over rows kept in ascending `id` order. */

import type { Row } from '../vocabulary/record.js';

export interface PageQuery {
  /** Only rows whose id is greater than this. */
  readonly after: number | undefined;
  readonly limit: number;
  /** Field equality filters; a list value matches any of its members, a list field any member it holds. */
  readonly filters: readonly (readonly [field: string, value: unknown])[];
  /** Also count every row that passes the filters (an envelope's `total`): costs a scan of the rest. */
  readonly count?: boolean;
}

export interface Page {
  readonly items: readonly Row[];
  /** The `after` value of the next page, or undefined on the last page. */
  readonly nextAfter: number | undefined;
  /** How many rows pass the filters, when asked for. */
  readonly total?: number;
}

/** Index of the first row whose id is greater than `after` (binary search: rows are sorted by id). */
export function firstAfter(rows: readonly Row[], after: number | undefined): number {
  if (after === undefined) return 0;
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as Row).id <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether a row passes every filter: its field equals the wanted value, or one of a list of them; a
 * field that is itself a list (`tags`) passes when it holds any of them. A plain loop: it runs for
 * each row scanned, and a callback taking a destructured pair allocated on every call.
 */
export function matches(row: Row, filters: PageQuery['filters']): boolean {
  for (const [field, wanted] of filters) {
    const value = row[field];
    if (Array.isArray(value)) {
      if (!(Array.isArray(wanted) ? wanted.some((w) => value.includes(w)) : value.includes(wanted))) return false;
    } else if (Array.isArray(wanted) ? !wanted.includes(value) : value !== wanted) return false;
  }
  return true;
}

/**
 * One page of the rows that pass the filters. The cost is the rows skipped by the filters plus the
 * page, never the whole store: the start is found by binary search, and the scan stops at the first
 * match past the page (which proves there is a next page).
 */
export function paginate(rows: readonly Row[], query: PageQuery): Page {
  const items: Row[] = [];
  // `limit=0` (where the document allows it) is an empty page with no next one: there is no last
  // id to continue after.
  if (query.limit <= 0)
    return query.count ? { items, nextAfter: undefined, total: countAll(rows, query) } : { items, nextAfter: undefined };
  for (let i = firstAfter(rows, query.after); i < rows.length; i++) {
    const row = rows[i] as Row;
    if (!matches(row, query.filters)) continue;
    if (items.length === query.limit) {
      const nextAfter = (items.at(-1) as Row).id;
      return query.count ? { items, nextAfter, total: countAll(rows, query) } : { items, nextAfter };
    }
    items.push(row);
  }
  return query.count ? { items, nextAfter: undefined, total: countAll(rows, query) } : { items, nextAfter: undefined };
}

/** Every row that passes the filters, wherever the page starts. */
const countAll = (rows: readonly Row[], query: PageQuery): number =>
  query.filters.length === 0 ? rows.length : rows.reduce((n, row) => (matches(row, query.filters) ? n + 1 : n), 0);
