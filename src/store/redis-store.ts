import type { Redis } from 'ioredis';
import type { Seeder } from '../seeding/seeder.js';
import type { MintKey, Row } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { SeedingProgress } from './memory-store.js';
import type { Page, PageQuery } from './paging.js';
import type { CapturedRecords, Inserted, Lookup, SandboxStore, Update } from './record-store.js';
import { checkPrefix, collectionKeys, keyList, workspaceKeys, type CollectionKeys } from './redis-keys.js';
import {
  captureWorkspace,
  forgetWorkspace,
  resetAll,
  restoreWorkspace,
  storedCollections,
  workspaceDigest,
  type StoredCollection,
} from './redis-keyspace.js';
import { listPage } from './redis-paging.js';
import { bodyJson, toRow, written } from './redis-rows.js';
import { parseReply, SCRIPTS, type Reply, type WriteScript } from './redis-scripts.js';
import { seedJson, SharedSeed } from './redis-seed.js';
import { WriteCounts } from './redis-write-counts.js';

const NOT_FOUND: Lookup = { kind: 'not-found' };
const REFUSED: Update = { kind: 'refused' };
/** Lost compare-and-set races before an update gives up: each loss means another write won, so many in a row means a storm. */
const UPDATE_ATTEMPTS = 100;
/** Minted keys a create tries: each is tried only if the one before was taken. */
const MINT_ATTEMPTS = 64;

/**
 * The record store for several replicas sharing one Redis (keys laid out for Cluster: redis-keys.ts). What a
 * workspace wrote lives in Redis only, and every read goes there, so a client reads its own write on
 * any replica; there is no per-replica cache of records to go stale. The seed stays in each replica's
 * memory (redis-seed.ts: the same on every replica), and a collection a workspace never wrote reads
 * from it, as in the memory store. The first write to a collection adopts it: the script that writes
 * copies the seed in and starts the row-number counter after it, guarded by a marker so replicas racing for
 * it copy it once (redis-scripts.ts). Row numbers, keys, pages and digests are the memory store's, byte for byte.
 *
 * A Redis that cannot be reached makes every call reject (the caller answers 503): no read falls back
 * to the seed unless Redis itself said the workspace does not own the collection.
 */
export class RedisRecordStore implements SandboxStore {
  /**
   * Per workspace, the collections it was last seen to own: a hint that lets a write go without the
   * seed. Never used to answer a read; a write it misleads (another replica forgot the workspace) is
   * answered 'needs-adopt' by its script and sent again with the seed.
   */
  private readonly owned = new Map<string, Set<string>>();
  private readonly counts: WriteCounts;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly seed: SharedSeed,
  ) {
    this.counts = new WriteCounts(redis, (workspace) => workspaceKeys(prefix, workspace).writes);
  }

  /**
   * Opens the store on a client its owner connects and quits. Nothing is read from Redis here: the
   * seed is made in memory (the fixtures' collections now, the rest on first use), as every replica makes it.
   */
  static open(redis: Redis, prefix: string, seeder: Seeder, onSeeding?: SeedingProgress): Promise<RedisRecordStore> {
    checkPrefix(prefix);
    const store = new RedisRecordStore(redis, prefix, new SharedSeed(seeder));
    store.seed.seedNamed(onSeeding);
    return Promise.resolve(store);
  }

  /** Lets go of nothing in Redis and leaves the client open: the client is its owner's to quit. */
  close(): Promise<void> {
    this.counts.close();
    return Promise.resolve();
  }

  /** This replica's hints and counts go only once Redis has let go of the keys: a reset that fails changed nothing here. */
  async reset(): Promise<void> {
    await resetAll(this.redis, this.prefix);
    this.owned.clear();
    this.counts.clear();
  }

  async forget(workspace: string): Promise<void> {
    await forgetWorkspace(this.redis, this.prefix, workspace);
    this.owned.delete(workspace);
    this.counts.forget(workspace);
  }

  capture(workspace: string): Promise<CapturedRecords> {
    return captureWorkspace(this.redis, this.prefix, workspace);
  }

  /** Every replica reads the restored records at once (they live in Redis); this one's hints and count start again. */
  async restore(workspace: string, records: CapturedRecords): Promise<void> {
    await restoreWorkspace(this.redis, this.prefix, workspace, records);
    this.owned.set(workspace, new Set(Object.keys(records)));
    this.counts.forget(workspace);
  }

  /**
   * A reload: collections first used from now on are seeded from the new document (the memory store's
   * rule). Every replica must reload the same document: until then, a collection no workspace owns
   * yet may read differently on two replicas, and its first write adopts the writer's seed for all.
   */
  useSeeder(seeder: Seeder): void {
    this.seed.use(seeder);
  }

  /**
   * Every stored collection with its records: this replica's seed, then each workspace's own from
   * Redis. Asynchronous, unlike the memory store's: it reads Redis, so a reload must await it.
   */
  stored(): AsyncIterable<StoredCollection> {
    return storedCollections(this.redis, this.prefix, this.seed);
  }

  /**
   * Nothing is kept beside the records in Redis: issued keys, workspaces and clocks are each
   * replica's own until they get shared stores of their own, and one snapshot written by every
   * replica would hold whichever wrote last. The sandbox calls these only with a data file.
   */
  kept(): unknown {
    return undefined;
  }

  keep(_value: unknown): Promise<void> {
    return Promise.resolve();
  }

  /** Approximate across replicas (redis-write-counts.ts): the admin list asks synchronously. */
  writes(workspace: string): number {
    return this.counts.get(workspace);
  }

  async list(workspace: string, collection: string, query: PageQuery): Promise<Page> {
    const page = await listPage(this.redis, this.keys(workspace, collection), query);
    if (page === undefined) return this.seed.collection(collection).list(query);
    this.sawOwned(workspace, collection);
    return page;
  }

  async get(workspace: string, collection: string, key: string): Promise<Lookup> {
    const found = await this.lookup(workspace, collection, key);
    return found ? { kind: 'found', row: found.row } : NOT_FOUND;
  }

  /**
   * A numbered record takes the next row number in its script. A keyed one first reserves its row
   * number, then is created under the key minted from it, as the memory store mints (so both stores
   * give the same keys); while the key is taken, the next number is reserved and minted from.
   */
  async create(workspace: string, collection: string, fields: Readonly<Record<string, unknown>>, mint?: MintKey): Promise<Row> {
    const body = bodyJson(fields);
    if (mint === undefined) return toRow(written(await this.write(workspace, collection, SCRIPTS.create, [body, '', '', ''], undefined)));
    for (let attempt = 0; attempt <= MINT_ATTEMPTS; attempt++) {
      const number = written(await this.write(workspace, collection, SCRIPTS.reserve, [], undefined));
      const key = mint(number);
      const reply = await this.write(workspace, collection, SCRIPTS.create, [body, key, JSON.stringify(key), number], undefined);
      if (reply.status === 'ok') return toRow(written(reply));
    }
    throw new Error(`no free key for a new ${collection} record after ${MINT_ATTEMPTS} tries`);
  }

  async insert(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Inserted> {
    const reply = await this.write(workspace, collection, SCRIPTS.create, [bodyJson(fields), key, JSON.stringify(key), ''], undefined);
    return { kind: reply.status === 'ok' ? 'created' : 'taken', row: toRow(written(reply)) };
  }

  async replace(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Lookup> {
    const reply = await this.write(workspace, collection, SCRIPTS.replace, [key, JSON.stringify(key), bodyJson(fields)], key);
    return reply.status === 'ok' ? { kind: 'found', row: toRow(written(reply)) } : NOT_FOUND;
  }

  async put(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>, keyed: boolean): Promise<Row> {
    const args = [key, keyed ? JSON.stringify(key) : '', bodyJson(fields)];
    return toRow(written(await this.write(workspace, collection, SCRIPTS.put, args, undefined)));
  }

  /**
   * Optimistic concurrency: the change is computed from the record as read, and stored only if the
   * record still holds exactly that JSON; otherwise the script answers what it holds now and the
   * change runs again on that. `change` may so run more than once, always on the latest record.
   */
  async update(
    workspace: string,
    collection: string,
    key: string,
    change: (current: Row) => Readonly<Record<string, unknown>> | undefined,
  ): Promise<Update> {
    let current = await this.lookup(workspace, collection, key);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      if (current === undefined) return NOT_FOUND;
      const fields = change(current.row);
      if (fields === undefined) return REFUSED;
      const args = [key, JSON.stringify(key), current.json, bodyJson(fields)];
      const reply = await this.write(workspace, collection, SCRIPTS.update, args, key);
      if (reply.status === 'ok') return { kind: 'found', row: toRow(written(reply)) };
      current = reply.status === 'stale' ? { json: written(reply), row: toRow(written(reply)) } : undefined;
    }
    throw new Error(`an update of ${collection}/${key} in workspace ${workspace} lost ${UPDATE_ATTEMPTS} races in a row`);
  }

  async delete(workspace: string, collection: string, key: string): Promise<Lookup> {
    const reply = await this.write(workspace, collection, SCRIPTS.delete, [key], key);
    return reply.status === 'ok' ? { kind: 'found', row: toRow(written(reply)) } : NOT_FOUND;
  }

  /** The memory store's digest over the same records: every collection the workspace sees, in name order. */
  digest(workspace: string = DEFAULT_WORKSPACE): Promise<string> {
    return workspaceDigest(this.redis, this.prefix, this.seed, workspace);
  }

  /** A record and its stored JSON (what `update` compares against), from Redis or, where the workspace owns no copy, the seed. */
  private async lookup(
    workspace: string,
    collection: string,
    key: string,
  ): Promise<{ readonly row: Row; readonly json: string } | undefined> {
    const reply = parseReply(await SCRIPTS.get.run(this.redis, keyList(this.keys(workspace, collection)), [key]));
    if (reply.status === 'seed') {
      const seeded = this.seed.collection(collection).get(key);
      return seeded.kind === 'found' ? { row: seeded.row, json: seedJson(seeded.row) } : undefined;
    }
    this.sawOwned(workspace, collection);
    return reply.status === 'ok' ? { row: toRow(written(reply)), json: written(reply) } : undefined;
  }

  /**
   * Runs a write script, with the seed when the workspace may not own the collection yet. `key` is
   * the record a replace, update or delete names: if the seed lacks it, the write is a miss and
   * copies nothing. The collection joins the workspace's set (what `forget` deletes) before a script
   * that may adopt it, so a crash between the two leaves nothing `forget` cannot find, and again after
   * an adoption, in case a `forget` on another replica emptied the set in between.
   */
  private async write(
    workspace: string,
    collection: string,
    script: WriteScript,
    args: readonly string[],
    key: string | undefined,
  ): Promise<Reply> {
    const keys = keyList(this.keys(workspace, collection));
    const set = workspaceKeys(this.prefix, workspace).collections;
    let probe = this.owned.get(workspace)?.has(collection) === true || !this.seed.has(collection);
    for (;;) {
      const adoption = probe ? ['probe'] : this.seed.adoption(collection, key);
      if (adoption[1] === '1') await this.redis.sadd(set, collection);
      const reply = parseReply(await script.run(this.redis, keys, [...args, ...adoption]));
      if (reply.status === 'needs-adopt') {
        // Only a probe is answered so: the workspace does not own the collection after all.
        if (!probe) throw new Error(`a Redis record-store script asked for the seed it was sent (${collection})`);
        if (!this.seed.has(collection)) throw new Error(`unknown collection ${collection}`);
        probe = false;
        continue;
      }
      if (reply.state !== 0) this.sawOwned(workspace, collection);
      if (reply.state === 2) await this.redis.sadd(set, collection);
      if (reply.status === 'ok') this.counts.add(workspace);
      return reply;
    }
  }

  private sawOwned(workspace: string, collection: string): void {
    let collections = this.owned.get(workspace);
    if (!collections) this.owned.set(workspace, (collections = new Set()));
    collections.add(collection);
  }

  private keys(workspace: string, collection: string): CollectionKeys {
    return collectionKeys(this.prefix, workspace, collection);
  }
}
