import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Redis record store's server-side steps. Each runs as one Lua script, so a record, the id
 * index beside it and the id counter never disagree, and a collection's adoption (the seed copied
 * in the first time a workspace writes it) happens once however many replicas race for it. Every
 * script takes the collection's four keys (redis-keys.ts: one hash tag, one slot) as KEYS[1..4].
 *
 * Records travel as JSON made in JavaScript and are stored byte for byte: Lua never decodes one
 * (cjson would reorder keys, turn `[]` into `{}` and round large numbers).
 */

/**
 * Whether a write may go ahead on the workspace's own copy of the collection, adopting it first when
 * the caller sent the seed. From ARGV[at]: 'probe' (the caller believes the collection adopted), or
 * 'seed', then '1'/'0' (does the seed hold the record the write names), the largest seeded id, and
 * id/JSON pairs. A write that names a record the seed lacks copies nothing (as in memory): it is a
 * miss. Returns a reply to give instead, or nil; and the state: 0 not owned, 1 owned, 2 adopted now.
 */
const OWN = `
local rows, ids, seq, adopted = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local function own(at, miss_copies_nothing)
  if redis.call('EXISTS', adopted) == 1 then return nil, 1 end
  if ARGV[at] ~= 'seed' then return {'needs-adopt', 0}, 0 end
  if miss_copies_nothing and ARGV[at + 1] == '0' then return {'missing', 0}, 0 end
  redis.call('DEL', rows, ids)
  redis.call('SET', seq, ARGV[at + 2])
  local i = at + 3
  while i <= #ARGV do
    -- 500 pairs a call: unpack stays far below Lua's C stack limit.
    local last = math.min(i + 999, #ARGV)
    local h, z = {}, {}
    for j = i, last - 1, 2 do
      h[#h + 1] = ARGV[j]; h[#h + 1] = ARGV[j + 1]
      z[#z + 1] = ARGV[j]; z[#z + 1] = ARGV[j]
    end
    redis.call('HSET', rows, unpack(h))
    redis.call('ZADD', ids, unpack(z))
    i = last + 1
  end
  redis.call('SET', adopted, '1')
  return nil, 2
end
`;

/**
 * ARGV: the fields without the id, as a JSON object; the adoption arguments. The id is the counter's
 * next one that no record holds (one `put` under a higher id is skipped, never reused while it
 * stands: the memory store's rule). The row is `{"id":…}` followed by the fields, as `{ id, ...fields }`.
 */
const CREATE = `${OWN}
local halt, state = own(2, false)
if halt then return halt end
local sid = string.format('%d', redis.call('INCR', seq))
while redis.call('HEXISTS', rows, sid) == 1 do sid = string.format('%d', redis.call('INCR', seq)) end
local body = ARGV[1]
local json = '{"id":' .. sid .. (body == '{}' and '}' or (',' .. string.sub(body, 2)))
redis.call('HSET', rows, sid, json)
redis.call('ZADD', ids, sid, sid)
return {'ok', state, json}
`;

/** ARGV: id, the row's JSON; the adoption arguments. A miss writes nothing. */
const REPLACE = `${OWN}
local halt, state = own(3, true)
if halt then return halt end
if redis.call('HEXISTS', rows, ARGV[1]) == 0 then return {'missing', state} end
redis.call('HSET', rows, ARGV[1], ARGV[2])
return {'ok', state, ARGV[2]}
`;

/** ARGV: id, the row's JSON; the adoption arguments. Creates or replaces; the counter is left alone (see CREATE). */
const PUT = `${OWN}
local halt, state = own(3, false)
if halt then return halt end
redis.call('HSET', rows, ARGV[1], ARGV[2])
redis.call('ZADD', ids, ARGV[1], ARGV[1])
return {'ok', state, ARGV[2]}
`;

/**
 * ARGV: id, the JSON the change was computed from, the new row's JSON; the adoption arguments.
 * Compare-and-set: a record changed since it was read answers 'stale' with what it holds now, and
 * the caller computes the change again from that (optimistic concurrency, no lost update).
 */
const UPDATE = `${OWN}
local halt, state = own(4, true)
if halt then return halt end
local current = redis.call('HGET', rows, ARGV[1])
if not current then return {'missing', state} end
if current ~= ARGV[2] then return {'stale', state, current} end
redis.call('HSET', rows, ARGV[1], ARGV[3])
return {'ok', state, ARGV[3]}
`;

/** ARGV: id; the adoption arguments. Answers the removed row. */
const DELETE = `${OWN}
local halt, state = own(2, true)
if halt then return halt end
local current = redis.call('HGET', rows, ARGV[1])
if not current then return {'missing', state} end
redis.call('HDEL', rows, ARGV[1])
redis.call('ZREM', ids, ARGV[1])
return {'ok', state, current}
`;

/** ARGV: id. 'seed' when the workspace does not own the collection: the caller answers from the seed. */
const GET = `
if redis.call('EXISTS', KEYS[4]) == 0 then return {'seed', 0} end
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return {'missing', 1} end
return {'ok', 1, json}
`;

/**
 * ARGV: the lowest score ('(5' is "after 5", '-inf' the start), how many rows. Answers the rows in
 * id order and how many the collection holds, read at one instant (one script), or 'seed'.
 */
const PAGE = `
if redis.call('EXISTS', KEYS[4]) == 0 then return {'seed', 0} end
local total = redis.call('ZCARD', KEYS[2])
local wanted = tonumber(ARGV[2])
if wanted == 0 then return {'rows', total, {}} end
local found = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], '+inf', 'LIMIT', 0, wanted)
if #found == 0 then return {'rows', total, {}} end
return {'rows', total, redis.call('HMGET', KEYS[1], unpack(found))}
`;

/** A Lua script run by its SHA1, sent whole only when the server does not know it yet (a restart flushes the cache). */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** `call` with an argument list, not a spread: a seed's pairs can outnumber a call's arguments. */
  async run(redis: Redis, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await redis.call('EVALSHA', [this.sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.call('EVAL', [this.source, ...tail]);
    }
  }
}

export const SCRIPTS = {
  create: new RedisScript(CREATE),
  replace: new RedisScript(REPLACE),
  put: new RedisScript(PUT),
  update: new RedisScript(UPDATE),
  delete: new RedisScript(DELETE),
  get: new RedisScript(GET),
  page: new RedisScript(PAGE),
} as const;

export type WriteScript = (typeof SCRIPTS)['create' | 'replace' | 'put' | 'update' | 'delete'];

/** What a write or a `get` answered. `state`: 0 the workspace does not own the collection, 1 it does, 2 it adopted it in this call. */
export interface Reply {
  readonly status: 'ok' | 'missing' | 'stale' | 'needs-adopt' | 'seed';
  readonly state: 0 | 1 | 2;
  /** The row's JSON: the one written, removed, found, or (stale) stored now. */
  readonly json: string | undefined;
}

/** One batch of rows in id order (their JSON), with how many the collection holds; or 'seed'. */
export type PageReply = { readonly status: 'rows'; readonly total: number; readonly rows: readonly string[] } | { readonly status: 'seed' };

const STATUSES: readonly string[] = ['ok', 'missing', 'stale', 'needs-adopt', 'seed'];

export function parseReply(value: unknown): Reply {
  if (!Array.isArray(value)) throw unexpected(value);
  const [status, state, json] = value as unknown[];
  if (typeof status !== 'string' || !STATUSES.includes(status) || (state !== 0 && state !== 1 && state !== 2)) throw unexpected(value);
  if (json !== undefined && typeof json !== 'string') throw unexpected(value);
  return { status: status as Reply['status'], state, json };
}

export function parsePage(value: unknown): PageReply {
  if (!Array.isArray(value)) throw unexpected(value);
  const [status, total, rows] = value as unknown[];
  if (status === 'seed') return { status };
  if (status !== 'rows' || typeof total !== 'number' || !isStrings(rows)) throw unexpected(value);
  return { status, total, rows };
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A reply no script gives: a bug, or another program writing under the prefix. */
export const unexpected = (value: unknown): Error =>
  new Error(`unexpected reply from a Redis record-store script: ${JSON.stringify(value)}`);
