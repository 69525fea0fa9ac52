import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { minter } from '../../src/resources/mint-id.js';
import { Seeder } from '../../src/seeding/seeder.js';
import type { FixtureDefinitions } from '../../src/seeding/fixtures.js';
import { MemoryRecordStore } from '../../src/store/memory-store.js';
import type { RecordStore } from '../../src/store/record-store.js';
import { RedisRecordStore } from '../../src/store/redis-store.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const SPEC = new URL('../documents/any-ids.yaml', import.meta.url).pathname;
const FIXTURES: FixtureDefinitions = { collections: new Map(), defaultCount: 5, referenceDate: new Date('2026-01-01T00:00:00Z') };
const ALL = { after: undefined, limit: Infinity, filters: [] };
const uuid = minter({ kind: 'uuid', clientNamed: false }, 'bookings');
const prefixed = minter({ kind: 'string', clientNamed: false, prefix: 'cus_' }, 'customers');

let model: ApiModel;
let server: TestRedis;
let client: Redis;

beforeAll(async () => {
  const loaded = await readDocument(SPEC);
  model = buildApiModel(loaded.document, loaded.locate);
  server = await startRedis();
  client = new Redis(server.url);
});
afterAll(async () => {
  await client.quit().catch(() => undefined);
  await server.stop();
});

/** Keyed collections in both stores: one scenario, each step's outcome compared as JSON (key order counts). */
type Step = readonly [name: string, run: (store: RecordStore) => Promise<unknown>];

const STEPS: readonly Step[] = [
  [
    'a seeded booking, read by its key',
    async (s) => s.get('A', 'bookings', (await s.list('A', 'bookings', ALL)).items[2]?.__key as string),
  ],
  ['a minted create', (s) => s.create('A', 'bookings', { passenger_name: 'Ada', __key: 'ignored', id: 9 }, uuid)],
  ['a second minted create', (s) => s.create('A', 'bookings', { passenger_name: 'Bob' }, uuid)],
  ['a client-named insert', (s) => s.insert('A', 'user', 'ada', { email: 'ada@example.com' })],
  ['the same key again is taken', (s) => s.insert('A', 'user', 'ada', { email: 'other@example.com' })],
  ['a keyed put of a new key', (s) => s.put('A', 'user', 'bob', { email: 'bob@example.com' }, true)],
  ['a keyed put over it', (s) => s.put('A', 'user', 'bob', { email: 'bob2@example.com' }, true)],
  ['a replace keeps the key and number', (s) => s.replace('A', 'user', 'ada', { email: 'ada2@example.com' })],
  ['an update', (s) => s.update('A', 'user', 'ada', (row) => ({ ...row, name: 'Ada' }))],
  ['a delete', (s) => s.delete('A', 'user', 'bob')],
  ['the deleted key', (s) => s.get('A', 'user', 'bob')],
  ['a prefixed create after the seed', (s) => s.create('B', 'customers', { email: 'c@example.com' }, prefixed)],
  ['every user, in row order', (s) => s.list('A', 'user', ALL)],
  ['a page after a row number', (s) => s.list('A', 'bookings', { after: 3, limit: 2, filters: [], count: true })],
  ['digest of A', (s) => s.digest('A')],
];

describe('the Redis store keeps keyed records as the memory store does', () => {
  let memory: MemoryRecordStore;
  let redis: RedisRecordStore;
  beforeAll(async () => {
    memory = await MemoryRecordStore.open(new Seeder(model, FIXTURES, 1));
    redis = await RedisRecordStore.open(client, 'keyed:', new Seeder(model, FIXTURES, 1));
  });

  it.each(STEPS)('%s', async (_name, run) => {
    const expected = JSON.stringify(await run(memory));
    expect(JSON.stringify(await run(redis))).toBe(expected);
  });

  it('minted keys are the collection kind, and a taken key is never minted twice', async () => {
    const made = await Promise.all(Array.from({ length: 20 }, () => redis.create('C', 'bookings', { passenger_name: 'x' }, uuid)));
    const keys = made.map((row) => row.__key);
    expect(new Set(keys).size).toBe(20);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });
});
