import type { PageQuery } from '../../src/store/paging.js';
import type { RecordStore } from '../../src/store/record-store.js';
import type { Row } from '../../src/vocabulary/record.js';

/**
 * One scenario, run step by step against the memory store and the Redis store, each step's outcome
 * compared as JSON (so key order counts too). The Pet Store seeds 120 pets and 40 orders with seed 1.
 */
export type Step = readonly [name: string, run: (store: RecordStore) => Promise<unknown> | unknown];

const page = (after: number | undefined, limit: number, filters: PageQuery['filters'] = [], count = false): PageQuery => ({
  after,
  limit,
  filters,
  count,
});
const ALL = page(undefined, Infinity);
const bump = (row: Row): Record<string, unknown> => ({ ...row, quantity: Number(row.quantity) + 1 });

export const STEPS: readonly Step[] = [
  ['a first page of a never-written collection, with its total', (s) => s.list('A', 'pets', page(undefined, 5, [], true))],
  ['a seeded pet', (s) => s.get('A', 'pets', '3')],
  ['a pet that is not there', (s) => s.get('A', 'pets', '999')],
  ['replacing a pet that is not there', (s) => s.replace('A', 'pets', '999', { name: 'Nobody' })],
  ['deleting a pet that is not there', (s) => s.delete('A', 'pets', '999')],
  ['updating a pet that is not there', (s) => s.update('A', 'pets', '999', (row) => row)],
  ['an update refused on a never-written collection', (s) => s.update('A', 'pets', '4', () => undefined)],
  ['the count of writes so far', (s) => s.writes('A')],
  ['a create: the id after the seed, a sent id ignored', (s) => s.create('A', 'pets', { id: 7, name: 'Rex', status: 'available' })],
  ['a second create', (s) => s.create('A', 'pets', { name: 'Tom', categoryId: 2, status: 'sold' })],
  ['a create with integer-like keys and nested values', (s) => s.create('A', 'pets', { b: [1, { c: null }], 10: 'ten', a: {} })],
  ['a put above the counter', (s) => s.put('A', 'pets', '125', { name: 'Put', status: 'pending' }, false)],
  ['a create after it', (s) => s.create('A', 'pets', { name: 'C1' })],
  ['a create that skips the put id', (s) => s.create('A', 'pets', { name: 'C2' })],
  ['a put over a seeded pet', (s) => s.put('A', 'pets', '2', { name: 'Two', id: 55 }, false)],
  ['a replace', (s) => s.replace('A', 'pets', '5', { name: 'Five', status: 'sold' })],
  ['an update', (s) => s.update('A', 'pets', '6', (row) => ({ ...row, name: `${String(row.name)}!`, extra: [1, 2] }))],
  ['a refused update', (s) => s.update('A', 'pets', '6', () => undefined)],
  ['a delete', (s) => s.delete('A', 'pets', '7')],
  ['the same delete again', (s) => s.delete('A', 'pets', '7')],
  ['the deleted pet', (s) => s.get('A', 'pets', '7')],
  ['replacing the deleted pet', (s) => s.replace('A', 'pets', '7', { name: 'Back' })],
  ['a delete of the last pet created', (s) => s.delete('A', 'pets', '126')],
  ['a create after deleting the top id: never reused', (s) => s.create('A', 'pets', { name: 'C3' })],
  ['a filtered first page with its total', (s) => s.list('A', 'pets', page(undefined, 10, [['status', 'sold']], true))],
  ['a page after a cursor, filter by any of, total', (s) => s.list('A', 'pets', page(40, 7, [['status', ['sold', 'pending']]], true))],
  ['a filtered page with no total', (s) => s.list('A', 'pets', page(3, 4, [['categoryId', 2]]))],
  ['a filter matching nothing', (s) => s.list('A', 'pets', page(undefined, 10, [['status', 'gone']], true))],
  [
    'two filters at once',
    (s) =>
      s.list(
        'A',
        'pets',
        page(
          undefined,
          3,
          [
            ['status', 'available'],
            ['categoryId', [1, 3]],
          ],
          true,
        ),
      ),
  ],
  ['limit 0 with a total', (s) => s.list('A', 'pets', page(10, 0, [], true))],
  ['limit 0 with a filtered total', (s) => s.list('A', 'pets', page(10, 0, [['status', 'sold']], true))],
  ['limit 0 without a total', (s) => s.list('A', 'pets', page(undefined, 0))],
  ['a page without filters and its total', (s) => s.list('A', 'pets', page(100, 25, [], true))],
  ['a page that ends exactly at the last row', (s) => s.list('A', 'pets', page(118, 10))],
  ['a page after the last row', (s) => s.list('A', 'pets', page(10_000, 10, [], true))],
  ['every pet, one page', (s) => s.list('A', 'pets', ALL)],
  ['a long filtered page (several batches)', (s) => s.list('A', 'pets', page(undefined, 60, [['status', 'available']]))],
  ['another workspace is untouched', (s) => s.list('B', 'pets', page(115, 10, [], true))],
  ['another workspace lacks the created id', (s) => s.get('B', 'pets', '121')],
  ['a first write that is an update, in a fresh workspace', (s) => s.update('C', 'orders', '3', bump)],
  ['a first write that is a delete, in a fresh workspace', (s) => s.delete('D', 'orders', '40')],
  ['a create after deleting the last seeded order', (s) => s.create('D', 'orders', { petId: 1, quantity: 1 })],
  ['a first write that is a put, in a fresh workspace', (s) => s.put('E', 'orders', '90', { quantity: 3 }, false)],
  ['a create in it skips nothing below the put', (s) => s.create('E', 'orders', { quantity: 4 })],
  [
    '1,100 creates: more rows than one script call reads',
    async (s) => {
      const ids: number[] = [];
      for (let i = 0; i < 1100; i++) ids.push((await s.create('G', 'orders', { quantity: i % 5, i })).id);
      return ids;
    },
  ],
  ['every row of a collection read in two batches', (s) => s.list('G', 'orders', ALL)],
  ['a filtered total counted over every batch', (s) => s.list('G', 'orders', page(900, 3, [['quantity', [0, 4]]], true))],
  ['a page across the batch boundary', (s) => s.list('G', 'orders', page(995, 20, [], true))],
  ['a selective filter read in growing batches', (s) => s.list('G', 'orders', page(undefined, 5, [['i', [3, 700, 1099]]]))],
  ['digest of G', (s) => s.digest('G')],
  ['an unknown collection is an error', (s) => s.list('A', 'owners', page(undefined, 1))],
  ['a write to an unknown collection is an error', (s) => s.create('A', 'owners', { name: 'x' })],
  ['the counts of writes', (s) => ['A', 'B', 'C', 'D', 'E'].map((w) => s.writes(w))],
  ['digest of A', (s) => s.digest('A')],
  ['digest of B (seed only)', (s) => s.digest('B')],
  ['digest of C', (s) => s.digest('C')],
  ['digest of the default workspace', (s) => s.digest()],
  ['forgetting A, then its digest', async (s) => [await s.forget('A'), await s.digest('A'), s.writes('A')]],
  ['a forgotten workspace reads the seed', (s) => s.get('A', 'pets', '5')],
  ['a create in the forgotten workspace starts after the seed again', (s) => s.create('A', 'pets', { name: 'Again' })],
  ['C is untouched by forgetting A', (s) => s.get('C', 'orders', '3')],
  ['a reset, then every digest', async (s) => [await s.reset(), await s.digest('A'), await s.digest('C'), await s.digest()]],
  ['writes after a reset', (s) => ['A', 'C'].map((w) => s.writes(w))],
  ['a create after a reset', (s) => s.create('C', 'orders', { quantity: 9 })],
];
