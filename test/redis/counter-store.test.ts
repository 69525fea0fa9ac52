import fc from 'fast-check';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCounterStore, type ClientState, type LimitPolicy, type TakeOutcome } from '../../src/limits/counter-store.js';
import { RedisCounterStore } from '../../src/limits/redis-counter-store.js';
import { startRedis, type TestRedis } from '../support/redis.js';

/**
 * RedisCounterStore against a real redis-server: it decides exactly as MemoryCounterStore does, and
 * several replicas sharing one Redis never admit more than the limit together.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const DAY0 = Date.parse('2030-03-04T00:00:00Z');
/** 10:00 UTC, a minute's start. */
const T = DAY0 + 10 * 3_600_000;

const A: LimitPolicy = { limits: [3, 5], banThreshold: 2, banMs: 90_000 };
const B: LimitPolicy = { limits: [5, 100], banThreshold: 10, banMs: 30_000 };
const C: LimitPolicy = { limits: [2, 100], banThreshold: 2, banMs: 20_000 };
const UNLIMITED_MINUTE: LimitPolicy = { limits: [Infinity, 2], banThreshold: 3, banMs: 1_000 };

let server: TestRedis;
const clients: Redis[] = [];

/** A client as a replica would make one: fails fast while Redis is down, reconnects quickly. */
async function connect(commandTimeout = 200): Promise<Redis> {
  const redis = new Redis(server.url, {
    enableOfflineQueue: false,
    commandTimeout,
    maxRetriesPerRequest: 0,
    lazyConnect: false,
    retryStrategy: () => 50,
  });
  redis.on('error', () => {}); // connection errors surface as rejected commands
  clients.push(redis);
  if (redis.status !== 'ready') await once(redis, 'ready');
  return redis;
}

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
  await server.stop();
});

/** An outcome as plain data (the memory store's state is its live entry, changed by the next take). */
const plain = ({ kind, state }: TakeOutcome) => ({ kind, state: copy(state) });
const copy = (state: ClientState): ClientState => structuredClone(state);

type Step = readonly [at: number, policy: LimitPolicy, expected: TakeOutcome['kind']];
const times = (n: number, step: Step): Step[] => Array.from({ length: n }, () => step);

const SCENARIOS: readonly { readonly name: string; readonly steps: readonly Step[] }[] = [
  { name: 'admits up to the minute limit, then refuses', steps: [...times(3, [T, A, 'admitted']), [T + 1, A, 'refused']] },
  {
    name: 'refusals reaching the threshold start a ban, which counts nothing and outlives the minute',
    steps: [
      ...times(3, [T, A, 'admitted']),
      [T + 1, A, 'refused'],
      [T + 2, A, 'refused'],
      [T + 3, A, 'banned'],
      [T + MINUTE, A, 'banned'],
      [T + 90_001, A, 'banned'],
      [T + 90_002, A, 'admitted'],
    ],
  },
  {
    name: 'the minute window rolls over',
    steps: [...times(3, [T + MINUTE - 1, A, 'admitted']), [T + MINUTE - 1, A, 'refused'], [T + MINUTE, A, 'admitted']],
  },
  {
    name: 'the day limit holds across minutes',
    steps: [
      ...times(3, [T, A, 'admitted']),
      ...times(2, [T + MINUTE, A, 'admitted']),
      [T + MINUTE, A, 'refused'],
      [T + 2 * MINUTE, A, 'refused'],
      [DAY0 + DAY, A, 'admitted'],
    ],
  },
  {
    name: 'the day window rolls over at 00:00 UTC',
    steps: [...times(3, [DAY0 + DAY - 1, A, 'admitted']), [DAY0 + DAY - 1, A, 'refused'], [DAY0 + DAY, A, 'admitted']],
  },
  {
    name: 'a ban ending inside the minute: the minute is still full, and refusals count from 0 again',
    steps: [
      ...times(2, [T, C, 'admitted']),
      [T + 1, C, 'refused'],
      [T + 2, C, 'refused'],
      [T + 20_001, C, 'banned'],
      [T + 20_002, C, 'refused'],
      [T + 20_003, C, 'refused'],
      [T + 20_004, C, 'banned'],
    ],
  },
  {
    name: 'a policy changed mid-minute applies from the next minute window',
    steps: [...times(3, [T, A, 'admitted']), [T + 1, B, 'refused'], ...times(2, [T + MINUTE, B, 'admitted']), [T + MINUTE, B, 'admitted']],
  },
  {
    name: "the held policy's ban threshold and length are used until the minute ends",
    steps: [
      ...times(3, [T, A, 'admitted']),
      [T + 1, B, 'refused'],
      [T + 2, B, 'refused'],
      [T + 30_003, B, 'banned'],
      [T + 90_002, B, 'admitted'],
    ],
  },
  {
    name: 'a banned request holds the policy for its minute',
    steps: [
      ...times(3, [T, A, 'admitted']),
      [T, A, 'refused'],
      [T, A, 'refused'],
      [T + MINUTE, B, 'banned'],
      ...times(5, [T + 90_000, A, 'admitted']),
      [T + 90_000, A, 'refused'],
    ],
  },
  { name: 'an unlimited window never fills', steps: [...times(2, [T, UNLIMITED_MINUTE, 'admitted']), [T, UNLIMITED_MINUTE, 'refused']] },
  {
    name: 'a clock moved back starts the windows afresh',
    steps: [...times(3, [T + MINUTE, A, 'admitted']), [T + MINUTE, A, 'refused'], [T, A, 'admitted']],
  },
];

describe('RedisCounterStore decides as MemoryCounterStore does', () => {
  let redis: RedisCounterStore;
  beforeAll(async () => {
    redis = new RedisCounterStore(await connect(), 'same:');
  });

  it.each(SCENARIOS.map((s, i) => [s.name, s.steps, `client-${i}`] as const))('%s', async (_name, steps, client) => {
    const memory = new MemoryCounterStore();
    for (const [at, policy, expected] of steps) {
      const remembered = plain(memory.take(client, policy, at));
      const shared = plain(await redis.take(client, policy, at));
      expect(shared).toEqual(remembered);
      expect(shared.kind).toBe(expected);
      expect(await redis.inspect(client, at)).toEqual(copy(await memory.inspect(client, at)));
    }
  });

  it('answers with the policy object it was handed while that policy is held (Limiter finds plans by identity)', async () => {
    const policy: LimitPolicy = { limits: [3, 5], banThreshold: 2, banMs: 90_000 };
    await redis.take('identity', policy, T);
    const later = await redis.take('identity', { ...B }, T + 1);
    expect(later.state.policy).toBe(policy);
    expect((await redis.inspect('identity', T + 2)).policy).toBe(policy);
  });

  it('matches it over random histories of takes, clock moves and policy changes', async () => {
    const policies = [A, B, C, UNLIMITED_MINUTE];
    const moves = [0, 0, 1, 999, 20_000, 59_999, MINUTE, 3_600_000, DAY, -MINUTE];
    const step = fc.record({ client: fc.nat(1), policy: fc.nat(policies.length - 1), move: fc.constantFrom(...moves) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const memory = new MemoryCounterStore();
        let now = T - 1;
        run++;
        for (const { client, policy, move } of steps) {
          now += move;
          const id = `random-${run}-${client}`;
          const p = policies[policy] as LimitPolicy;
          expect(plain(await redis.take(id, p, now))).toEqual(plain(memory.take(id, p, now)));
        }
      }),
      { numRuns: 40, seed: 20_300_304 },
    );
  });

  it('keeps client ids apart whatever they hold, braces and colons included', async () => {
    const ids = ['key_ab12', 'ip:127.0.0.1', 'ip:::1', 'a{b}c', 'a%7Bb%7Dc', '}{', ''];
    const wide: LimitPolicy = { limits: [100, 100], banThreshold: 10, banMs: 1_000 };
    for (const [i, id] of ids.entries()) for (let n = 0; n <= i; n++) await redis.take(id, wide, T);
    for (const [i, id] of ids.entries()) expect((await redis.inspect(id, T)).windows[0]?.count).toBe(i + 1);
    expect(redis.keyOf('key_ab12')).toBe('same:{key_ab12}:limits');
    expect(redis.keyOf('a{b}c')).toBe('same:{a%7Bb%7Dc}:limits');
    expect(redis.keyOf('a%7Bb%7Dc')).toBe('same:{a%257Bb%257Dc}:limits');
  });
});

describe('RedisCounterStore shared by replicas', () => {
  const hot = async (prefix: string, policy: LimitPolicy) => {
    // A longer commandTimeout: 200 takes queued at once on a loaded machine may take longer than 200 ms
    // to answer, and a take rejected on the client after Redis ran it would spoil the tally.
    const replicas = await Promise.all([connect(5_000), connect(5_000), connect(5_000)]);
    const stores = replicas.map((r) => new RedisCounterStore(r, prefix));
    const outcomes = await Promise.all(
      Array.from({ length: 600 }, (_, i) => (stores[i % 3] as RedisCounterStore).take('key_hot', policy, T)),
    );
    const tally = { admitted: 0, refused: 0, banned: 0 };
    for (const o of outcomes) tally[o.kind]++;
    return { tally, state: await (stores[0] as RedisCounterStore).inspect('key_hot', T) };
  };

  it('admits exactly the limit in all from 600 concurrent takes on three clients', async () => {
    const { tally, state } = await hot('race:', { limits: [100, 10_000], banThreshold: Infinity, banMs: 0 });
    expect(tally).toEqual({ admitted: 100, refused: 500, banned: 0 });
    expect(state.windows.map((w) => w.count)).toEqual([100, 100]);
  });

  it('starts the ban at exactly the threshold under the same race', async () => {
    const { tally, state } = await hot('race-ban:', { limits: [100, 10_000], banThreshold: 50, banMs: MINUTE });
    expect(tally).toEqual({ admitted: 100, refused: 50, banned: 450 });
    expect(state.bannedUntil).toBe(T + MINUTE);
  });
});

describe('RedisCounterStore keys', () => {
  let client: Redis;
  beforeAll(async () => {
    client = await connect();
  });

  it('forget drops those clients only; reset drops every limits key under the prefix, in batches', async () => {
    const store = new RedisCounterStore(client, 'fr:');
    await client.set('fr:other', 'kept');
    for (const id of ['key_a', 'key_b', 'ip:::1']) await store.take(id, A, T);
    await store.forget(['key_a', 'ip:::1']);
    expect(await client.exists(store.keyOf('key_a'), store.keyOf('ip:::1'))).toBe(0);
    expect((await store.inspect('key_a', T)).windows[0]?.count).toBe(0);
    expect((await store.inspect('key_b', T)).windows[0]?.count).toBe(1);
    // More keys than one SCAN and UNLINK batch (500), written 50 at a time (a burst must not outlast commandTimeout).
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.take(`bulk-${batch}-${i}`, A, T)));
    }
    await store.forget(Array.from({ length: 1_200 }, (_, i) => `bulk-${Math.floor(i / 50)}-${i % 50}`));
    expect(await client.keys('fr:{bulk-*')).toHaveLength(300);
    await store.reset();
    expect(await client.keys('fr:*')).toEqual(['fr:other']);
    expect((await store.inspect('key_b', T)).windows[0]?.count).toBe(0);
  });

  it('keeps two prefixes apart, even one with glob characters', async () => {
    const star = new RedisCounterStore(client, 'g*:');
    const other = new RedisCounterStore(client, 'gx:');
    const longer = new RedisCounterStore(client, 'g*:x');
    for (const store of [star, other, longer, star]) await store.take('key_a', A, T);
    expect((await star.inspect('key_a', T)).windows[0]?.count).toBe(2);
    expect((await other.inspect('key_a', T)).windows[0]?.count).toBe(1);
    await star.reset();
    await other.forget(['nobody']);
    expect((await client.keys('g*')).sort()).toEqual(['g*:x{key_a}:limits', 'gx:{key_a}:limits']);
    expect((await other.inspect('key_a', T)).windows[0]?.count).toBe(1);
  });

  it('refuses a prefix with braces, which would move the hash tag', () => {
    expect(() => new RedisCounterStore(client, 'a{b}:')).toThrow(/braces/);
  });

  /**
   * The expiry runs in real time and the windows end in sandbox time, so it carries one day of slack
   * (a frozen clock at 23:59:59.999 must not lose its counts 1 ms later): the key lives until the
   * day window's end or the ban's end, whichever is later, plus a day.
   */
  it('expires a hash a day after the day window ends, or after the ban if it ends later; inspect changes nothing', async () => {
    const store = new RedisCounterStore(client, 'ttl:');
    const expectTtl = async (client_: string, ms: number) => {
      const ttl = await client.pttl(store.keyOf(client_));
      expect(ttl).toBeLessThanOrEqual(ms);
      expect(ttl).toBeGreaterThan(ms - 5_000);
    };
    await store.take('key_day', A, T);
    await expectTtl('key_day', DAY0 + DAY - T + DAY);
    await store.take('key_last_ms', A, DAY0 + DAY - 1);
    await expectTtl('key_last_ms', 1 + DAY);

    const long: LimitPolicy = { limits: [1, 100], banThreshold: 1, banMs: 3 * DAY };
    await store.take('key_ban', long, T);
    await store.take('key_ban', long, T + 1);
    await expectTtl('key_ban', 3 * DAY + DAY);

    const before = await client.hgetall(store.keyOf('key_ban'));
    const seenLater = await store.inspect('key_ban', T + 2 * DAY);
    expect(seenLater).toMatchObject({ windows: [{ count: 0 }, { count: 0 }], bannedUntil: T + 1 + 3 * DAY });
    expect(await client.hgetall(store.keyOf('key_ban'))).toEqual(before);
    await expectTtl('key_ban', 3 * DAY + DAY);
  });
});
