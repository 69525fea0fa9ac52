import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { loadFixtures, type FixtureDefinitions } from '../../src/seeding/fixtures.js';
import { Seeder } from '../../src/seeding/seeder.js';
import { MemoryRecordStore } from '../../src/store/memory-store.js';
import type { RecordStore } from '../../src/store/record-store.js';
import { collectionKeys, keyList, workspaceKeys } from '../../src/store/redis-keys.js';
import { RedisRecordStore } from '../../src/store/redis-store.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import type { Row } from '../../src/vocabulary/record.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { STEPS } from './record-store-steps.js';

const ALL = { after: undefined, limit: Infinity, filters: [] };
const SEEDED_PETS = 120;
const SEEDED_ORDERS = 40;

let model: ApiModel;
let fixtures: FixtureDefinitions;
let server: TestRedis;
const clients: Redis[] = [];
let prefixes = 0;

beforeAll(async () => {
  const loaded = await readDocument(DEFAULT_CONFIG.spec);
  model = buildApiModel(loaded.document, loaded.locate);
  fixtures = await loadFixtures(DEFAULT_CONFIG.fixtures as string);
  server = await startRedis();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.quit().catch(() => undefined)));
  await server.stop();
});

/** A client of its own: one per replica. */
async function connect(url = server.url, options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis(url, options);
  clients.push(client);
  await new Promise((resolve, reject) => client.once('ready', resolve).once('error', reject));
  return client;
}
/** A key prefix no other test uses. */
const freshPrefix = (): string => `test${++prefixes}:`;
/** `count` replicas of the Pet Store with seed 1, each on its own client, sharing one prefix. */
async function replicas(count: number, prefix = freshPrefix()): Promise<RedisRecordStore[]> {
  return Promise.all(
    Array.from({ length: count }, async () => RedisRecordStore.open(await connect(), prefix, new Seeder(model, fixtures, 1))),
  );
}
/** What a step came to, as JSON: its value or its error's message (a sync throw included). */
const outcome = (run: () => unknown): Promise<string> =>
  Promise.resolve()
    .then(run)
    .then(
      (value) => JSON.stringify({ value }),
      (error: unknown) => JSON.stringify({ error: (error as Error).message }),
    );

describe('the Redis store answers as the memory store does', () => {
  let memory: MemoryRecordStore;
  let redis: RedisRecordStore;
  beforeAll(async () => {
    memory = await MemoryRecordStore.open(new Seeder(model, fixtures, 1));
    [redis] = (await replicas(1)) as [RedisRecordStore];
  });

  it.each(STEPS)('%s', async (_name, run) => {
    const expected = await outcome(() => run(memory));
    expect(await outcome(() => run(redis))).toBe(expected);
  });

  it('stores the same collections (`stored`, asynchronous in Redis)', async () => {
    for (const store of [memory, redis] as RecordStore[]) await store.create('F', 'pets', { name: 'Stored' });
    const fromRedis = [];
    for await (const entry of redis.stored()) fromRedis.push(entry);
    const order = (a: { workspace?: string; collection: string }, b: typeof a) =>
      `${a.workspace ?? ''}/${a.collection}`.localeCompare(`${b.workspace ?? ''}/${b.collection}`);
    expect(JSON.stringify(fromRedis.sort(order))).toBe(JSON.stringify([...memory.stored()].sort(order)));
  });
});

describe('several replicas on one Redis', () => {
  it('reads its own write on another replica', async () => {
    const [one, two] = (await replicas(2)) as [RedisRecordStore, RedisRecordStore];
    expect(await two.get('W', 'pets', '1')).toMatchObject({ kind: 'found' });
    const rex = await one.create('W', 'pets', { name: 'Rex' });
    expect(await two.get('W', 'pets', String(rex.id))).toEqual({ kind: 'found', row: rex });
    expect((await two.list('W', 'pets', { after: SEEDED_PETS - 1, limit: 5, filters: [], count: true })).items).toEqual([
      expect.objectContaining({ id: SEEDED_PETS }),
      rex,
    ]);
    // `two` has seen the collection owned: its next write goes without the seed, to the same records.
    await two.replace('W', 'pets', String(rex.id), { name: 'Rex II' });
    expect(await one.get('W', 'pets', String(rex.id))).toEqual({ kind: 'found', row: { id: rex.id, name: 'Rex II' } });
    await one.forget('W');
    // `two` still believes W owns pets: its script asks for the seed, and the write lands on a fresh copy.
    expect(await two.create('W', 'pets', { name: 'After' })).toEqual({ id: SEEDED_PETS + 1, name: 'After' });
    expect(await one.get('W', 'pets', '1')).toMatchObject({ kind: 'found' });
    expect(await one.digest('W')).toBe(await two.digest('W'));
  });

  it('gives 300 concurrent creates from three replicas 300 distinct ids, the index and the rows agreeing', async () => {
    const prefix = freshPrefix();
    const stores = await replicas(3, prefix);
    const rows = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (stores[i % 3] as RedisRecordStore).create('W', 'pets', { n: i })),
    );
    const ids = rows.map((row) => row.id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => SEEDED_PETS + 1 + i));
    const client = await connect();
    const keys = collectionKeys(prefix, 'W', 'pets');
    expect(await client.zcard(keys.ids)).toBe(SEEDED_PETS + 300);
    expect(await client.hlen(keys.rows)).toBe(SEEDED_PETS + 300);
    expect((await client.zrange(keys.ids, 0, -1)).map(Number)).toEqual((await client.hkeys(keys.rows)).map(Number).sort((a, b) => a - b));
    const listed = (await (stores[1] as RedisRecordStore).list('W', 'pets', ALL)).items;
    expect(listed.slice(SEEDED_PETS)).toEqual([...rows].sort((a, b) => a.id - b.id));
  });

  it('adopts a never-written collection once when replicas write it first at the same time', async () => {
    const prefix = freshPrefix();
    const stores = await replicas(5, prefix);
    const seeded = (await (stores[0] as RedisRecordStore).list('W', 'orders', ALL)).items;
    const made = await Promise.all(
      stores.flatMap((store) => [store.create('W', 'orders', { q: 1 }), store.create('W', 'orders', { q: 2 })]),
    );
    expect(made.map((row) => row.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => SEEDED_ORDERS + 1 + i));
    const client = await connect();
    const keys = collectionKeys(prefix, 'W', 'orders');
    expect(await client.hlen(keys.rows)).toBe(SEEDED_ORDERS + 10);
    expect(await client.zcard(keys.ids)).toBe(SEEDED_ORDERS + 10);
    expect(await client.get(keys.seq)).toBe(String(SEEDED_ORDERS + 10));
    const listed = (await (stores[4] as RedisRecordStore).list('W', 'orders', ALL)).items;
    expect(listed.slice(0, SEEDED_ORDERS)).toEqual(seeded);
    expect(await client.smembers(workspaceKeys(prefix, 'W').collections)).toEqual(['orders']);
  });

  it('loses no increment to concurrent updates from several replicas', async () => {
    const stores = await replicas(4);
    const before = await (stores[0] as RedisRecordStore).get('W', 'orders', '1');
    const start = Number((before as { row: Row }).row.quantity);
    const bump = (row: Row) => ({ ...row, quantity: Number(row.quantity) + 1 });
    const updates = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (stores[i % 4] as RedisRecordStore).update('W', 'orders', '1', bump)),
    );
    expect(updates.every((update) => update.kind === 'found')).toBe(true);
    expect(await (stores[3] as RedisRecordStore).get('W', 'orders', '1')).toMatchObject({ row: { id: 1, quantity: start + 100 } });
  });

  it('forgets one workspace and nothing else; a reset takes every record key and only those', async () => {
    const prefix = freshPrefix();
    const [store] = (await replicas(1, prefix)) as [RedisRecordStore];
    const client = await connect();
    const odd = ['a/b', 'a', 'a%2fb', 'we{ir}d*?[x]\\', '\uD800lone'];
    for (const workspace of odd) {
      await store.create(workspace, 'pets', { owner: workspace });
      await store.delete(workspace, 'orders', '1');
    }
    await client.set(`${prefix}limits:other`, 'kept');
    const seed = await store.digest('fresh');
    await store.forget('a');
    expect(await store.digest('a')).toBe(seed);
    for (const key of [...keyList(collectionKeys(prefix, 'a', 'pets')), workspaceKeys(prefix, 'a').collections])
      expect(await client.exists(key)).toBe(0);
    for (const workspace of odd.filter((w) => w !== 'a')) {
      expect(await store.get(workspace, 'pets', String(SEEDED_PETS + 1))).toEqual({
        kind: 'found',
        row: { id: SEEDED_PETS + 1, owner: workspace },
      });
      expect(await store.get(workspace, 'orders', '1')).toEqual({ kind: 'not-found' });
    }
    // Every key of one collection carries one hash tag, and it holds no brace of the name.
    for (const key of keyList(collectionKeys(prefix, 'we{ir}d*?[x]\\', 'pets'))) expect(key.match(/[{}]/g)).toEqual(['{', '}']);
    await store.reset();
    expect((await client.keys(`${prefix}*`)).sort()).toEqual([`${prefix}limits:other`]);
    for (const workspace of odd) expect(await store.digest(workspace)).toBe(seed);
  });
});

describe('a Redis that cannot be reached', () => {
  it('makes every call reject, quickly, and none answer from the seed', async () => {
    const own = await startRedis();
    try {
      const client = await connect(own.url, {
        enableOfflineQueue: false,
        commandTimeout: 200,
        maxRetriesPerRequest: 0,
        retryStrategy: () => 50,
      });
      client.on('error', () => undefined);
      const store = await RedisRecordStore.open(client, freshPrefix(), new Seeder(model, fixtures, 1));
      await store.create('W', 'pets', { name: 'Rex' });
      await own.kill();
      const calls: (() => Promise<unknown>)[] = [
        () => store.get('W', 'pets', '1'),
        () => store.get('never-written', 'pets', '1'),
        () => store.list('never-written', 'orders', { ...ALL, limit: 5 }),
        () => store.create('W', 'pets', { name: 'Lost' }),
        () => store.replace('W', 'pets', '1', { name: 'Lost' }),
        () => store.put('W', 'pets', '500', { name: 'Lost' }, false),
        () => store.update('W', 'pets', '1', (row) => row),
        () => store.delete('W', 'pets', '1'),
        () => store.digest('W'),
        () => store.forget('W'),
        () => store.reset(),
      ];
      for (const call of calls) {
        const started = Date.now();
        await expect(call()).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(1000);
      }
      expect(store.writes('W')).toBe(1);
    } finally {
      await own.stop();
    }
  });
});
