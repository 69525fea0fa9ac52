import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Redis record store's server-side steps. Each runs as one Lua script, so a record, the
 * row-number index beside it and the counter never disagree, and a collection's adoption (the seed
 * copied in the first time a workspace writes it) happens once however many replicas race for it.
 * Every script takes the collection's keys (redis-keys.ts: one hash tag, one slot) as KEYS[1..4].
 *
 * Records are stored under their key (the row number as text in a numbered collection) and travel
 * as JSON made in JavaScript, stored byte for byte: Lua never decodes one (cjson would reorder keys,
 * turn `[]` into `{}` and round large numbers). A write sends the fields without `id` and key; the
 * script puts `{"id":<row number>,"__key":<key>` in front (the key only in a keyed collection), as
 * the memory store's Collection builds a row, so the same write stores the same text in either store.
 */

/**
 * Lua that writes the key/number/JSON triples in ARGV from index `from` on into the collection's
 * rows hash and ids sorted set, 500 triples a call (so that unpack stays far below Lua's C stack
 * limit). A fragment of the scripts below, which declare `rows` and `ids`.
 */
const writeTriples = (from: string): string => `
local i = ${from}
while i <= #ARGV do
  local last = math.min(i + 1499, #ARGV)
  local h, z = {}, {}
  for j = i, last - 2, 3 do
    h[#h + 1] = ARGV[j]; h[#h + 1] = ARGV[j + 2]
    z[#z + 1] = ARGV[j + 1]; z[#z + 1] = ARGV[j]
  end
  redis.call('HSET', rows, unpack(h))
  redis.call('ZADD', ids, unpack(z))
  i = last + 1
end`;

/**
 * Whether a write may go ahead on the workspace's own copy of the collection, adopting it first when
 * the caller sent the seed. From ARGV[at]: 'probe' (the caller believes the collection adopted), or
 * 'seed', then '1'/'0' (does the seed hold the record the write names), the largest seeded row
 * number, and key/number/JSON triples. A write that names a record the seed lacks copies nothing
 * (as in memory): it is a miss. Returns a reply to give instead, or nil; and the state: 0 not owned,
 * 1 owned, 2 adopted now.
 */
const OWN = `
local rows, ids, seq, adopted = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local function own(at, miss_copies_nothing)
  if redis.call('EXISTS', adopted) == 1 then return nil, 1 end
  if ARGV[at] ~= 'seed' then return {'needs-adopt', 0}, 0 end
  if miss_copies_nothing and ARGV[at + 1] == '0' then return {'missing', 0}, 0 end
  redis.call('DEL', rows, ids)
  redis.call('SET', seq, ARGV[at + 2])
  ${writeTriples('at + 3')}
  redis.call('SET', adopted, '1')
  return nil, 2
end
-- A row's JSON: its number, its key (a JSON string, or '' in a numbered collection), then the fields.
local function row_json(number, key_json, body)
  local head = '{"id":' .. number
  if key_json ~= '' then head = head .. ',"__key":' .. key_json end
  if body == '{}' then return head .. '}' end
  return head .. ',' .. string.sub(body, 2)
end
-- The key's JSON if the stored row is keyed (its key follows its number), else ''.
local function keyed(current, key_json)
  if string.find(current, '^{"id":[%d.e+-]+,"__key":') then return key_json end
  return ''
end
`;

/**
 * ARGV: the fields as a JSON object; the key ('' to number the record), the key as JSON and the row
 * number RESERVE gave it ('' to take the counter's next); the adoption arguments. A numbered record
 * takes the counter's next number that no record holds (one `put` under a higher number is skipped,
 * never reused while it stands: the memory store's rule). A keyed record whose key is taken writes
 * nothing ('taken', with the record that holds it).
 */
const CREATE = `${OWN}
local halt, state = own(5, false)
if halt then return halt end
local key = ARGV[2]
local number
if key == '' then
  number = string.format('%d', redis.call('INCR', seq))
  while redis.call('HEXISTS', rows, number) == 1 do number = string.format('%d', redis.call('INCR', seq)) end
  key = number
else
  local held = redis.call('HGET', rows, key)
  if held then return {'taken', state, held} end
  number = ARGV[4]
  if number == '' then number = string.format('%d', redis.call('INCR', seq)) end
end
local json = row_json(number, ARGV[3], ARGV[1])
redis.call('HSET', rows, key, json)
redis.call('ZADD', ids, number, key)
return {'ok', state, json}
`;

/**
 * The adoption arguments only. Takes the counter's next row number for a keyed record whose key is
 * minted from it (the memory store mints from the row number too, so both mint the same keys); a
 * number a taken key used is not given again.
 */
const RESERVE = `${OWN}
local halt, state = own(1, false)
if halt then return halt end
return {'ok', state, string.format('%d', redis.call('INCR', seq))}
`;

/**
 * ARGV: key, the key as JSON, the fields' JSON; the adoption arguments. A miss writes nothing. The
 * record stays keyed or numbered as it was stored.
 */
const REPLACE = `${OWN}
local halt, state = own(4, true)
if halt then return halt end
local current = redis.call('HGET', rows, ARGV[1])
if not current then return {'missing', state} end
local json = row_json(redis.call('ZSCORE', ids, ARGV[1]), keyed(current, ARGV[2]), ARGV[3])
redis.call('HSET', rows, ARGV[1], json)
return {'ok', state, json}
`;

/**
 * ARGV: key, the key as JSON ('' when numbered: the key is the number), the fields' JSON; the
 * adoption arguments. Creates or replaces; a new keyed record takes the counter's next number, a
 * numbered one the number it names (the counter is left alone: see CREATE).
 */
const PUT = `${OWN}
local halt, state = own(4, false)
if halt then return halt end
local number = redis.call('ZSCORE', ids, ARGV[1])
if not number then
  if ARGV[2] == '' then number = ARGV[1] else number = string.format('%d', redis.call('INCR', seq)) end
end
local json = row_json(number, ARGV[2], ARGV[3])
redis.call('HSET', rows, ARGV[1], json)
redis.call('ZADD', ids, number, ARGV[1])
return {'ok', state, json}
`;

/**
 * ARGV: key, the key as JSON, the JSON the change was computed from, the new fields' JSON; the
 * adoption arguments. Compare-and-set: a record changed since it was read answers 'stale' with what
 * it holds now, and the caller computes the change again from that (optimistic concurrency, no lost update).
 */
const UPDATE = `${OWN}
local halt, state = own(5, true)
if halt then return halt end
local current = redis.call('HGET', rows, ARGV[1])
if not current then return {'missing', state} end
if current ~= ARGV[3] then return {'stale', state, current} end
local json = row_json(redis.call('ZSCORE', ids, ARGV[1]), keyed(current, ARGV[2]), ARGV[4])
redis.call('HSET', rows, ARGV[1], json)
return {'ok', state, json}
`;

/** ARGV: key; the adoption arguments. Answers the removed row. */
const DELETE = `${OWN}
local halt, state = own(2, true)
if halt then return halt end
local current = redis.call('HGET', rows, ARGV[1])
if not current then return {'missing', state} end
redis.call('HDEL', rows, ARGV[1])
redis.call('ZREM', ids, ARGV[1])
return {'ok', state, current}
`;

/** ARGV: key. 'seed' when the workspace does not own the collection: the caller answers from the seed. */
const GET = `
if redis.call('EXISTS', KEYS[4]) == 0 then return {'seed', 0} end
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return {'missing', 1} end
return {'ok', 1, json}
`;

/**
 * ARGV: the lowest score ('(5' is "after row 5", '-inf' the start), how many rows. Answers the rows
 * in row order and how many the collection holds, read at one instant (one script), or 'seed'.
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

/** Every row's JSON in row order and the counter, read at one instant (a snapshot's capture), or 'seed'. */
const CAPTURE = `
if redis.call('EXISTS', KEYS[4]) == 0 then return {'seed', 0} end
local found = redis.call('ZRANGE', KEYS[2], 0, -1)
local rows = {}
if #found > 0 then rows = redis.call('HMGET', KEYS[1], unpack(found)) end
return {'rows', tonumber(redis.call('GET', KEYS[3]) or '0'), rows}
`;

/**
 * ARGV: the counter's value (the next row number less one), then key/number/JSON triples. The
 * collection becomes exactly these records, adopted, in one step (a snapshot restored): no reader
 * sees it half written.
 */
const RESTORE = `
local rows, ids, seq, adopted = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
redis.call('DEL', rows, ids)
redis.call('SET', seq, ARGV[1])
${writeTriples('2')}
redis.call('SET', adopted, '1')
return {'ok', 1}
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
  reserve: new RedisScript(RESERVE),
  replace: new RedisScript(REPLACE),
  put: new RedisScript(PUT),
  update: new RedisScript(UPDATE),
  delete: new RedisScript(DELETE),
  get: new RedisScript(GET),
  page: new RedisScript(PAGE),
  capture: new RedisScript(CAPTURE),
  restore: new RedisScript(RESTORE),
} as const;

export type WriteScript = (typeof SCRIPTS)['create' | 'reserve' | 'replace' | 'put' | 'update' | 'delete'];

/** What a write or a `get` answered. `state`: 0 the workspace does not own the collection, 1 it does, 2 it adopted it in this call. */
export interface Reply {
  readonly status: 'ok' | 'missing' | 'stale' | 'taken' | 'needs-adopt' | 'seed';
  readonly state: 0 | 1 | 2;
  /** The row's JSON: the one written, removed, found, or (stale, taken) stored now; a reserved row number. */
  readonly json: string | undefined;
}

/** One batch of rows in id order (their JSON), with how many the collection holds; or 'seed'. */
export type PageReply = { readonly status: 'rows'; readonly total: number; readonly rows: readonly string[] } | { readonly status: 'seed' };

const STATUSES: readonly string[] = ['ok', 'missing', 'stale', 'taken', 'needs-adopt', 'seed'];

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
