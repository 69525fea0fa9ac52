import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Followed, Schedule } from './schedule.js';

/**
 * The fields the transitions follow, in Redis, shared by every replica that uses the same client
 * and prefix:
 *
 *   {prefix}transitions:followed         hash: a record's field → its entry (JSON), with `stay`
 *   {prefix}transitions:claim:<stay>     a claim, SET NX PX: the replica that set it moves the record out of that stay
 *
 * Each entry names its stay in the state with a random `stay`, written when a request puts the field
 * in the state and when a transition moves it on. A move is claimed under that name, so it is made
 * once however many replicas pass over the schedule, and a stale reader's claim (one that read the
 * entry before it moved on) finds the entry renamed and does nothing. The claim outlives any move
 * (a store update and a schedule write); a replica that dies holding it leaves the move to whoever
 * passes after the claim lapses.
 */

/** Follows a field in a state, unless it is followed in that state already (an empty entry: follows it no more). */
const FOLLOW_SCRIPT = `
if ARGV[2] == '' then return redis.call('HDEL', KEYS[1], ARGV[1]) end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and cjson.decode(current).state == ARGV[3] then return 0 end
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
`;

/** Replaces (or removes, given an empty entry) the entry of one stay, if it is still that stay's. */
const SETTLE_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current or cjson.decode(current).stay ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
`;

const FOLLOW = 'understudyTransitionsFollow';
const SETTLE = 'understudyTransitionsSettle';

/** The client as the defined commands make it: ioredis adds the methods at run time, untyped. */
interface WithScripts {
  [FOLLOW](key: string, id: string, json: string, state: string): Promise<unknown>;
  [SETTLE](key: string, id: string, stay: string, json: string): Promise<unknown>;
}

/** How long a claim holds: far longer than a move takes (a store update and a schedule write). */
const CLAIM_MS = 60_000;

const named = (entry: Followed): Followed => ({ ...entry, stay: randomBytes(9).toString('base64url') });

export class RedisSchedule implements Schedule {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.key = `${prefix}transitions:followed`;
    redis.defineCommand(FOLLOW, { numberOfKeys: 1, lua: FOLLOW_SCRIPT });
    redis.defineCommand(SETTLE, { numberOfKeys: 1, lua: SETTLE_SCRIPT });
  }

  private get scripts(): WithScripts {
    return this.redis as unknown as WithScripts;
  }

  /** Sent at once: a pass this replica makes later reads it after (one connection keeps the order). */
  async follow(id: string, entry: Followed | undefined): Promise<void> {
    const json = entry === undefined ? '' : JSON.stringify(named(entry));
    await this.scripts[FOLLOW](this.key, id, json, entry?.state ?? '');
  }

  async entries(): Promise<readonly (readonly [string, Followed])[]> {
    return Object.entries(await this.redis.hgetall(this.key)).map(([id, json]) => [id, JSON.parse(json) as Followed] as const);
  }

  async claim(id: string, entry: Followed): Promise<boolean> {
    if (entry.stay === undefined) return false;
    if ((await this.redis.set(`${this.prefix}transitions:claim:${entry.stay}`, '1', 'PX', CLAIM_MS, 'NX')) !== 'OK') return false;
    // Read again under the claim: the entry read before it may have moved on since (a claim that lapsed).
    const current = await this.redis.hget(this.key, id);
    return current !== null && (JSON.parse(current) as Followed).stay === entry.stay;
  }

  async settle(id: string, entry: Followed, next: Followed | undefined): Promise<Followed | undefined> {
    const stored = next === undefined ? undefined : named(next);
    const settled = await this.scripts[SETTLE](this.key, id, entry.stay ?? '', stored === undefined ? '' : JSON.stringify(stored));
    return settled === 1 ? stored : undefined;
  }

  async forget(workspace: string): Promise<void> {
    const gone = (await this.entries()).filter(([, entry]) => entry.workspace === workspace).map(([id]) => id);
    if (gone.length > 0) await this.redis.hdel(this.key, ...gone);
  }

  /** Claims are left to expire: they name stays no entry holds any more. */
  async reset(): Promise<void> {
    await this.redis.unlink(this.key);
  }
}
