import type { Redis } from 'ioredis';
import type { DeliveryFilter, StoredDelivery } from './records.js';
import type { DeliveryStore, StoreLimits } from './store.js';

/**
 * Deliveries in Redis, shared by every replica that uses the same client and prefix:
 *
 *   {prefix}webhooks{<workspace>}:deliveries  hash: id → the delivery's JSON
 *   {prefix}webhooks{<workspace>}:order       sorted set: ids in the order they were queued
 *   {prefix}webhooks{<workspace>}:seq         the order's counter (INCR)
 *   {prefix}webhooks{<workspace>}:pending     set: ids whose status is pending (the queue limit counts it)
 *   {prefix}webhooks{<workspace>}:active      set: ids with work to do (pending, or a replay asked for)
 *   {prefix}webhooks:workspaces               set: the workspaces that hold deliveries
 *   {prefix}webhooks:where                    hash: id → its workspace
 *   {prefix}webhooks:claim:<id>#<attempt>     a claim, SET NX PX: the replica that set it sends that attempt
 *
 * The braces are a Redis Cluster hash tag, so a workspace's keys share a slot and one script can
 * change them together; `%`, `{` and `}` in a workspace name are percent-encoded so that no name can
 * end the tag early. The two global keys are written apart from the scripts (another slot): `where`
 * is written before a delivery is added and cleaned after one goes, so a lookup can only ever find a
 * delivery that is gone, which reads as gone.
 */

/** Adds a delivery, within the pending limit, and trims the oldest finished ones past the history limit. */
const ADD_SCRIPT = `
local id, json, pending, active = ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[4] == '1'
if pending and redis.call('SCARD', KEYS[4]) >= tonumber(ARGV[5]) then return {0} end
redis.call('HSET', KEYS[1], id, json)
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), id)
if pending then redis.call('SADD', KEYS[4], id) end
if active then redis.call('SADD', KEYS[5], id) end
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[6])
local result = {1}
if excess > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if excess <= 0 then break end
    if redis.call('SISMEMBER', KEYS[5], old) == 0 then
      redis.call('HDEL', KEYS[1], old)
      redis.call('ZREM', KEYS[2], old)
      excess = excess - 1
      table.insert(result, old)
    end
  end
end
return result
`;

/** Compare-and-set: writes the new version only if the stored one is still the one read (-1: gone, 0: changed). */
const SWAP_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return -1 end
if current ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if ARGV[4] == '1' then redis.call('SADD', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[2], ARGV[1]) end
if ARGV[5] == '1' then redis.call('SADD', KEYS[3], ARGV[1]) else redis.call('SREM', KEYS[3], ARGV[1]) end
return 1
`;

const ADD = 'understudyWebhooksAdd';
const SWAP = 'understudyWebhooksSwap';

/** The client as the defined commands make it: ioredis adds the methods at run time, untyped. */
interface WithScripts {
  [ADD](...keysThenArgs: string[]): Promise<unknown>;
  [SWAP](...keysThenArgs: string[]): Promise<unknown>;
}

/** Tries of a compare-and-set before giving up: each lost one means another replica wrote meanwhile. */
const SWAP_TRIES = 16;

const pendingOf = (d: StoredDelivery): string => (d.status === 'pending' ? '1' : '0');
const activeOf = (d: StoredDelivery): string => (d.status === 'pending' || d.replayRequested === true ? '1' : '0');
const parse = (json: string): StoredDelivery => JSON.parse(json) as StoredDelivery;

export class RedisDeliveryStore implements DeliveryStore {
  private readonly workspaces: string;
  private readonly where: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    if (/[{}]/.test(prefix)) throw new Error(`a delivery-store prefix may not contain braces (they would move the hash tag): ${prefix}`);
    this.workspaces = `${prefix}webhooks:workspaces`;
    this.where = `${prefix}webhooks:where`;
    redis.defineCommand(ADD, { numberOfKeys: 5, lua: ADD_SCRIPT });
    redis.defineCommand(SWAP, { numberOfKeys: 3, lua: SWAP_SCRIPT });
  }

  private keys(workspace: string): { deliveries: string; order: string; seq: string; pending: string; active: string } {
    const tag = workspace.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const base = `${this.prefix}webhooks{${tag}}:`;
    return {
      deliveries: `${base}deliveries`,
      order: `${base}order`,
      seq: `${base}seq`,
      pending: `${base}pending`,
      active: `${base}active`,
    };
  }

  private get scripts(): WithScripts {
    return this.redis as unknown as WithScripts;
  }

  async add(delivery: StoredDelivery, limits: StoreLimits): Promise<boolean> {
    const k = this.keys(delivery.workspace);
    await this.redis.sadd(this.workspaces, delivery.workspace);
    await this.redis.hset(this.where, delivery.id, delivery.workspace);
    const finite = (n: number): string => String(Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER);
    const reply = await this.scripts[ADD](
      ...[k.deliveries, k.order, k.seq, k.pending, k.active],
      ...[delivery.id, JSON.stringify(delivery), pendingOf(delivery), activeOf(delivery)],
      ...[finite(limits.pendingLimit), finite(limits.historyLimit)],
    );
    if (!Array.isArray(reply)) throw new Error('the add script answered in an unexpected shape');
    const [added, ...trimmed] = reply as [number, ...string[]];
    const gone = added === 1 ? trimmed : [delivery.id];
    if (gone.length > 0) await this.redis.hdel(this.where, ...gone);
    return added === 1;
  }

  async get(id: string): Promise<StoredDelivery | undefined> {
    const workspace = await this.redis.hget(this.where, id);
    if (workspace === null) return undefined;
    const json = await this.redis.hget(this.keys(workspace).deliveries, id);
    return json === null ? undefined : parse(json);
  }

  async list(filter: DeliveryFilter): Promise<StoredDelivery[]> {
    const workspaces = filter.workspace === undefined ? (await this.redis.smembers(this.workspaces)).sort() : [filter.workspace];
    const found: StoredDelivery[] = [];
    for (const workspace of workspaces) {
      const k = this.keys(workspace);
      found.push(...(await this.read(k.deliveries, await this.redis.zrange(k.order, 0, -1))));
    }
    const chosen = filter.status === undefined ? found : found.filter((d) => d.status === filter.status);
    return chosen.sort((a, b) => a.createdAt - b.createdAt);
  }

  async active(): Promise<StoredDelivery[]> {
    const found: StoredDelivery[] = [];
    for (const workspace of await this.redis.smembers(this.workspaces)) {
      const k = this.keys(workspace);
      found.push(...(await this.read(k.deliveries, await this.redis.smembers(k.active))));
    }
    return found;
  }

  /** `change` may run more than once (once per lost compare-and-set), so it must only compute. */
  async update(id: string, change: (latest: StoredDelivery) => StoredDelivery): Promise<StoredDelivery | undefined> {
    for (let attempt = 0; attempt < SWAP_TRIES; attempt++) {
      const workspace = await this.redis.hget(this.where, id);
      if (workspace === null) return undefined;
      const k = this.keys(workspace);
      const json = await this.redis.hget(k.deliveries, id);
      if (json === null) return undefined;
      const next = change(parse(json));
      const swapped = await this.scripts[SWAP](
        k.deliveries,
        k.pending,
        k.active,
        id,
        json,
        JSON.stringify(next),
        pendingOf(next),
        activeOf(next),
      );
      if (swapped === 1) return next;
      if (swapped === -1) return undefined;
    }
    throw new Error(`delivery ${id} changed ${SWAP_TRIES} times while being updated`);
  }

  async claim(id: string, attempt: number, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}webhooks:claim:${id}#${attempt}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async forget(workspace: string): Promise<void> {
    const k = this.keys(workspace);
    const ids = await this.redis.hkeys(k.deliveries);
    await this.redis.unlink(k.deliveries, k.order, k.seq, k.pending, k.active);
    if (ids.length > 0) await this.redis.hdel(this.where, ...ids);
    await this.redis.srem(this.workspaces, workspace);
  }

  /** Every workspace's deliveries, then the global keys; claims are left to expire (they name ids no longer held). */
  async reset(): Promise<void> {
    for (const workspace of await this.redis.smembers(this.workspaces)) await this.forget(workspace);
    await this.redis.unlink(this.workspaces, this.where);
  }

  private async read(hash: string, ids: readonly string[]): Promise<StoredDelivery[]> {
    if (ids.length === 0) return [];
    const jsons = await this.redis.hmget(hash, ...ids);
    return jsons.flatMap((json) => (json === null ? [] : [parse(json)]));
  }
}
