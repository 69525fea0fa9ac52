import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterStore, LimitPolicy, TakeOutcome } from '../../src/limits/counter-store.js';
import { FailoverCounterStore, type OutagePolicy } from '../../src/limits/failover-counter-store.js';
import { RedisCounterStore } from '../../src/limits/redis-counter-store.js';
import { startRedis, type TestRedis } from '../support/redis.js';

/**
 * FailoverCounterStore over a real redis-server that the tests kill and restart: while it is down
 * each outage policy answers as specified, at once; once it is back, takes go to Redis again.
 */

const MINUTE = 60_000;
/** 10:00 UTC, a minute's start. */
const T = Date.parse('2030-03-04T10:00:00Z');
/** 10 a minute across 3 replicas: 4 each while alone. */
const POLICY: LimitPolicy = { limits: [10, 1_000], banThreshold: 100, banMs: MINUTE };
const REPLICAS = 3;

let server: TestRedis;
let redis: Redis;
const outages: Error[] = [];

const ready = async (client: Redis): Promise<void> => {
  if (client.status !== 'ready') await once(client, 'ready', { signal: AbortSignal.timeout(10_000) });
};

const failover = (policy: OutagePolicy, shared: CounterStore = new RedisCounterStore(redis, 'fo:')) =>
  new FailoverCounterStore(shared, { policy, replicas: REPLICAS, onOutage: (error) => outages.push(error) });

const tally = (outcomes: readonly TakeOutcome[]) => outcomes.map((o) => `${o.kind}${o.degraded ? `/${o.degraded}` : ''}`);

async function takeMany(store: CounterStore, client: string, n: number, at = T): Promise<TakeOutcome[]> {
  const outcomes: TakeOutcome[] = [];
  for (let i = 0; i < n; i++) outcomes.push(await store.take(client, POLICY, at));
  return outcomes;
}

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, {
    enableOfflineQueue: false,
    commandTimeout: 200,
    maxRetriesPerRequest: 0,
    lazyConnect: false,
    retryStrategy: () => 50,
  });
  redis.on('error', () => {}); // while the server is down, every reconnect attempt fails: expected here
  await ready(redis);
});

afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

describe('FailoverCounterStore', () => {
  let local: FailoverCounterStore;
  let open: FailoverCounterStore;
  let closed: FailoverCounterStore;
  beforeAll(() => {
    local = failover('local');
    open = failover('open');
    closed = failover('closed');
  });

  it('counts in Redis while it answers', async () => {
    expect(tally(await takeMany(local, 'key_up', 2))).toEqual(['admitted', 'admitted']);
    expect((await new RedisCounterStore(redis, 'fo:').inspect('key_up', T)).windows[0]?.count).toBe(2);
    expect(outages).toEqual([]);
  });

  describe('while Redis is down', () => {
    beforeAll(async () => {
      const closing = redis.status === 'ready' ? once(redis, 'close') : Promise.resolve();
      await server.kill();
      await closing;
    });

    it('local: each replica admits its share, ceil(limit / replicas), per minute window', async () => {
      expect(tally(await takeMany(local, 'key_local', 6))).toEqual([
        ...Array<string>(4).fill('admitted/local'),
        'refused/local',
        'refused/local',
      ]);
      expect(tally(await takeMany(local, 'key_local', 5, T + MINUTE))).toEqual([
        ...Array<string>(4).fill('admitted/local'),
        'refused/local',
      ]);
      // inspect falls back to this replica's own view.
      expect((await local.inspect('key_local', T + MINUTE)).windows.map((w) => w.count)).toEqual([4, 8]);
      expect(outages.length).toBeGreaterThan(0);
    });

    it('open: admits everything, marked', async () => {
      expect(new Set(tally(await takeMany(open, 'key_open', 30)))).toEqual(new Set(['admitted/open']));
    });

    it('closed: refuses everything, marked (the caller answers 503)', async () => {
      expect(new Set(tally(await takeMany(closed, 'key_closed', 5)))).toEqual(new Set(['refused/closed']));
    });

    it('answers at once rather than waiting for Redis', async () => {
      for (const store of [local, open, closed]) {
        const started = performance.now();
        await store.take('key_quick', POLICY, T);
        expect(performance.now() - started).toBeLessThan(500);
      }
    });

    it('forget and reset clear the local counts and do not throw', async () => {
      await local.forget(['key_local']);
      expect((await local.inspect('key_local', T + MINUTE)).windows[0]?.count).toBe(0);
      await takeMany(local, 'key_local', 1, T + MINUTE);
      await local.reset();
      expect((await local.inspect('key_local', T + MINUTE)).windows[0]?.count).toBe(0);
    });
  });

  describe('once Redis is back', () => {
    beforeAll(async () => {
      await server.restart();
      await ready(redis);
    });

    it('takes go to Redis again, which kept its counts (AOF) and reloads the script', async () => {
      const [outcome] = await takeMany(local, 'key_up', 1);
      expect(outcome?.degraded).toBeUndefined();
      expect(outcome?.state.windows.map((w) => w.count)).toEqual([3, 3]);
    });
  });

  it('a server that stops answering is an outage after commandTimeout', async () => {
    const pauser = new Redis(server.url);
    await ready(pauser);
    try {
      await pauser.client('PAUSE', 600, 'ALL');
      const started = performance.now();
      const outcome = await closed.take('key_paused', POLICY, T);
      expect(performance.now() - started).toBeLessThan(500);
      expect(outcome).toMatchObject({ kind: 'refused', degraded: 'closed' });
      expect(outages.at(-1)?.message).toBe('Command timed out');
    } finally {
      await pauser.client('UNPAUSE');
      await pauser.quit();
    }
  });

  it('rethrows what is not an outage (a bug must not pass for one)', async () => {
    const broken: CounterStore = {
      take: () => Promise.reject(new Error('the take script answered in an unexpected shape')),
      inspect: () => Promise.reject(new Error('WRONGTYPE')),
      forget: () => Promise.reject(new Error('WRONGTYPE')),
      reset: () => Promise.resolve(),
      capture: () => Promise.reject(new Error('WRONGTYPE')),
      restore: () => Promise.reject(new Error('WRONGTYPE')),
    };
    const store = failover('open', broken);
    await expect(store.take('key', POLICY, T)).rejects.toThrow(/unexpected shape/);
    await expect(store.inspect('key', T)).rejects.toThrow(/WRONGTYPE/);
    await expect(store.forget(['key'])).rejects.toThrow(/WRONGTYPE/);
  });

  it('refuses a replica count that is not a whole number of at least 1', () => {
    expect(() => new FailoverCounterStore(new RedisCounterStore(redis, 'fo:'), { policy: 'local', replicas: 0 })).toThrow(RangeError);
  });
});
