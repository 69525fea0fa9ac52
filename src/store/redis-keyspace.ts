import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Row } from '../vocabulary/record.js';
import {
  allKeyPatterns,
  collectionKeys,
  collectionOfKey,
  collectionSetPattern,
  keyList,
  workspaceKeys,
  workspaceOfKey,
} from './redis-keys.js';
import { allRows } from './redis-paging.js';
import { toRow } from './redis-rows.js';
import { parsePage, SCRIPTS } from './redis-scripts.js';
import type { SharedSeed } from './redis-seed.js';
import { keyOf } from '../vocabulary/record.js';
import type { CapturedCollection, CapturedRecords } from './record-store.js';

/** A stored collection: the seed's (`workspace` undefined) or a workspace's own, as the memory store's `stored` yields them. */
export interface StoredCollection {
  readonly workspace: string | undefined;
  readonly collection: string;
  readonly rows: readonly Row[];
}

/**
 * Deletes one workspace's keys: each collection its set lists, all four keys in one UNLINK (one slot,
 * so a collection goes at once and is never seen half gone), then the set and the write count.
 * Separate commands, not a pipeline: in a Cluster they go to different nodes.
 */
export async function forgetWorkspace(redis: Redis, prefix: string, workspace: string): Promise<void> {
  const own = workspaceKeys(prefix, workspace);
  const names = await redis.smembers(own.collections);
  await Promise.all(names.map((name) => redis.unlink(...keyList(collectionKeys(prefix, workspace, name)))));
  await redis.unlink(own.collections, own.writes);
}

/**
 * The workspace's own collections, each read at one instant with its counter (one script per
 * collection: in a Cluster, each collection is a slot of its own). The next row number is the
 * counter's next, as CREATE takes it.
 */
export async function captureWorkspace(redis: Redis, prefix: string, workspace: string): Promise<CapturedRecords> {
  const names = (await redis.smembers(workspaceKeys(prefix, workspace).collections)).sort();
  const records: Record<string, CapturedCollection> = Object.create(null) as Record<string, CapturedCollection>;
  for (const name of names) {
    const reply = parsePage(await SCRIPTS.capture.run(redis, keyList(collectionKeys(prefix, workspace, name)), []));
    // Listed but not owned: a write that missed, which copied nothing.
    if (reply.status === 'seed') continue;
    records[name] = { next: reply.total + 1, rows: reply.rows.map(toRow) };
  }
  return records;
}

/**
 * The workspace's own collections become exactly the captured ones: each written whole in one script
 * (its records, its counter, adopted), then the collections it owns beyond them deleted, so that they
 * read the seed again. Each collection changes at once; the workspace as a whole, one collection
 * after another (a request landing in between sees some restored and some not yet).
 */
export async function restoreWorkspace(redis: Redis, prefix: string, workspace: string, records: CapturedRecords): Promise<void> {
  const own = workspaceKeys(prefix, workspace);
  const names = Object.keys(records);
  if (names.length > 0) await redis.sadd(own.collections, ...names);
  for (const [name, { next, rows }] of Object.entries(records)) {
    const triples = rows.flatMap((row) => [keyOf(row), String(row.id), JSON.stringify(row)]);
    await SCRIPTS.restore.run(redis, keyList(collectionKeys(prefix, workspace, name)), [String(next - 1), ...triples]);
  }
  const stale = (await redis.smembers(own.collections)).filter((name) => !Object.hasOwn(records, name));
  await Promise.all(stale.map((name) => redis.unlink(...keyList(collectionKeys(prefix, workspace, name)))));
  if (stale.length > 0) await redis.srem(own.collections, ...stale);
  await redis.unlink(own.writes);
}

/**
 * Deletes every record key under the prefix (SCAN, then UNLINK), and nothing else there: other
 * stores may share the prefix. Each collection found goes with all four of its keys at once.
 * One server's keys: a Cluster would need this run on each master.
 */
export async function resetAll(redis: Redis, prefix: string): Promise<void> {
  for (const pattern of allKeyPatterns(prefix)) {
    for await (const found of scan(redis, pattern)) {
      const groups = new Map<string, readonly string[]>();
      for (const key of found) {
        const collection = collectionOfKey(prefix, key);
        groups.set(collection?.rows ?? key, collection ? keyList(collection) : [key]);
      }
      await Promise.all([...groups.values()].map((keys) => redis.unlink(...keys)));
    }
  }
}

/** The seed's collections seeded so far, then every workspace's own collections with their records, read from Redis. */
export async function* storedCollections(redis: Redis, prefix: string, seed: SharedSeed): AsyncGenerator<StoredCollection> {
  for (const [collection, seeded] of seed.seeded()) yield { workspace: undefined, collection, rows: seeded.rowsCopy() };
  const workspaces = new Set<string>();
  for await (const found of scan(redis, collectionSetPattern(prefix))) {
    for (const key of found) {
      const workspace = workspaceOfKey(prefix, key);
      if (workspace !== undefined) workspaces.add(workspace);
    }
  }
  for (const workspace of workspaces) {
    for (const collection of (await redis.smembers(workspaceKeys(prefix, workspace).collections)).sort()) {
      const rows = await allRows(redis, collectionKeys(prefix, workspace, collection));
      // Listed but not owned: a write that missed, which copied nothing.
      if (rows !== undefined) yield { workspace, collection, rows };
    }
  }
}

/**
 * The memory store's digest of a workspace: every collection it sees (the document's, and any it
 * owns from an earlier one), in name order, with its rows. Same records, same digest.
 */
export async function workspaceDigest(redis: Redis, prefix: string, seed: SharedSeed, workspace: string): Promise<string> {
  const own = await redis.smembers(workspaceKeys(prefix, workspace).collections);
  const described = new Set(seed.names);
  const names = [...new Set([...described, ...own])].sort();
  const state = await Promise.all(
    names.map(async (name) => {
      const rows = await allRows(redis, collectionKeys(prefix, workspace, name));
      // Listed but not owned (a write that missed copied nothing): no collection of its own.
      if (rows === undefined) return described.has(name) ? [name, seed.collection(name).rowsCopy()] : undefined;
      return [name, rows];
    }),
  );
  const seen = state.filter((entry) => entry !== undefined);
  return createHash('sha256').update(JSON.stringify(seen)).digest('hex');
}

/** The keys matching a pattern, a SCAN batch at a time (SCAN may repeat a key; callers tolerate it). */
async function* scan(redis: Redis, pattern: string): AsyncGenerator<readonly string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}
