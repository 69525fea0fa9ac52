import type { Redis } from 'ioredis';
import type { Row } from '../vocabulary/record.js';
import { matches, paginate, type Page, type PageQuery } from './paging.js';
import { keyList, type CollectionKeys } from './redis-keys.js';
import { toRow } from './redis-rows.js';
import { parsePage, SCRIPTS } from './redis-scripts.js';

/** The most rows one script call reads: bounds a reply's size and how long Redis is busy with it. */
const MAX_BATCH = 1000;

/** Rows read from Redis in id order, with how many the collection held when the first batch was read. */
interface ReadRows {
  readonly rows: readonly Row[];
  readonly total: number;
}

/**
 * One page of a collection the workspace owns in Redis, exactly as `paginate` gives it over the same
 * rows: the rows are read in id order from the page's start (keyset, by the id index) until one past
 * the page's last match, and `paginate` itself picks the page from them. Undefined when the workspace
 * does not own the collection: its records are then the seed's.
 *
 * Without filters, a page of up to 999 rows is one script call, so the page and its total are read at
 * one instant. Longer reads take several calls, each atomic; a write landing between two is seen or
 * not, as if it had happened just before or after the read of its batch.
 */
export async function listPage(redis: Redis, keys: CollectionKeys, query: PageQuery): Promise<Page | undefined> {
  // A total under filters counts every matching row wherever the page starts (paginate's countAll):
  // the whole collection is read, as the memory store scans it.
  if (query.count === true && query.filters.length > 0) {
    const all = await readRows(redis, keys, undefined, MAX_BATCH, () => false);
    return all && paginate(all.rows, query);
  }
  // One match past the page proves there is a next one (paginate's rule); `limit` 0 reads no row.
  const wanted = query.limit <= 0 ? 0 : query.limit + 1;
  let found = 0;
  const read = await readRows(redis, keys, query.after, wanted, (batch) => {
    for (const row of batch) if (matches(row, query.filters)) found++;
    return found >= wanted;
  });
  if (!read) return undefined;
  const page = paginate(read.rows, { ...query, count: false });
  // Without filters the total is every row: the index's size, read with the first batch.
  return query.count === true ? { ...page, total: read.total } : page;
}

/** Every row of a collection the workspace owns, in id order; undefined when it does not own it. */
export async function allRows(redis: Redis, keys: CollectionKeys): Promise<readonly Row[] | undefined> {
  return (await readRows(redis, keys, undefined, MAX_BATCH, () => false))?.rows;
}

/**
 * Reads rows after `after` batch by batch until `enough` says so or the collection ends. Batches
 * start at `first` rows (a page's worth) and double, so a selective filter costs few round trips.
 * Undefined when the workspace does not own the collection, also when a forget lands between two
 * batches: the seed is then what the collection holds, so answering from it is still a true read.
 */
async function readRows(
  redis: Redis,
  keys: CollectionKeys,
  after: number | undefined,
  first: number,
  enough: (batch: readonly Row[]) => boolean,
): Promise<ReadRows | undefined> {
  const rows: Row[] = [];
  let total = 0;
  let size = Math.min(first, MAX_BATCH);
  let cursor = after;
  for (let batch = 0; ; batch++) {
    const reply = parsePage(await SCRIPTS.page.run(redis, keyList(keys), [cursor === undefined ? '-inf' : `(${cursor}`, String(size)]));
    if (reply.status === 'seed') return undefined;
    if (batch === 0) total = reply.total;
    const found = reply.rows.map(toRow);
    rows.push(...found);
    if (size === 0 || found.length < size || enough(found)) return { rows, total };
    cursor = (found.at(-1) as Row).id;
    size = Math.min(size * 2, MAX_BATCH);
  }
}
