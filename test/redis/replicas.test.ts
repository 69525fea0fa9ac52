import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis.js';
import { ADMIN, call, KEY, startReplica, stopAll, type Replica } from '../support/replica.js';
import type { testSandbox } from '../support/sandbox.js';

let redis: TestRedis;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

const replica = (prefix: string, overrides: Parameters<typeof testSandbox>[0] = {}): Promise<Replica> =>
  startReplica(redis.url, prefix, overrides);

/** Three replicas on one Redis, under a prefix no other test uses. */
async function cluster(overrides: Parameters<typeof testSandbox>[0] = {}): Promise<Replica[]> {
  const prefix = `t${++prefixes}:`;
  return [await replica(prefix, overrides), await replica(prefix, overrides), await replica(prefix, overrides)];
}

describe('several replicas sharing one Redis', () => {
  it('admits exactly the plan’s limit across replicas, under parallel bursts', async () => {
    const replicas = await cluster({ plans: { free: { perMinute: 50, perDay: 1_000 } }, bans: { threshold: 1_000, durationSeconds: 60 } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, n) => call((replicas[n % 3] as Replica).url, 'GET', '/v1/pets/1', KEY('demo-free'))),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(50);
      expect(statuses.filter((s) => s === 429)).toHaveLength(100);
      // Each answer counts the same shared window.
      const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get('x-ratelimit-remaining')));
      expect(new Set(remaining).size).toBe(50);
    } finally {
      await stopAll(replicas);
    }
  });

  it('reads a record created on one replica on every other, by id and in a page', async () => {
    const [a, b, c] = (await cluster()) as [Replica, Replica, Replica];
    try {
      const created = await call(a.url, 'POST', '/v1/pets', KEY(), { name: 'Shared', categoryId: 2 });
      expect(created.status).toBe(201);
      const id = created.body?.id as number;
      for (const other of [b, c]) {
        const read = await call(other.url, 'GET', `/v1/pets/${id}`, KEY());
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created.body);
      }
      const listed = await call(c.url, 'GET', `/v1/pets?limit=5&after=${id - 1}`, KEY());
      expect(listed.body).toEqual([created.body]);
      // Ids come from one counter: creates on different replicas never collide.
      const next = await Promise.all([a, b, c].map((r) => call(r.url, 'POST', '/v1/pets', KEY(), { name: 'Next', categoryId: 1 })));
      expect(new Set(next.map((n) => n.body?.id)).size).toBe(3);
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it('moves the clock of every replica when one is moved, and resets them all when one is reset', async () => {
    const [a, b, c] = (await cluster()) as [Replica, Replica, Replica];
    try {
      const moved = await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 3_600 });
      expect(moved.status).toBe(200);
      for (const other of [b, c]) expect((await call(other.url, 'GET', '/__sandbox/clock', ADMIN)).body).toEqual(moved.body);

      const created = await call(b.url, 'POST', '/v1/pets', KEY(), { name: 'Gone after reset', categoryId: 1 });
      expect((await call(c.url, 'POST', '/__sandbox/reset', ADMIN)).status).toBeLessThan(300);
      for (const any of [a, b, c]) {
        expect((await call(any.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY())).status).toBe(404);
        expect((await call(any.url, 'GET', '/__sandbox/clock', ADMIN)).body).not.toEqual(moved.body);
      }
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it('holds a ban earned on one replica on the others', async () => {
    const [a, b, c] = (await cluster({
      plans: { free: { perMinute: 2, perDay: 1_000 } },
      bans: { threshold: 3, durationSeconds: 600 },
    })) as [Replica, Replica, Replica];
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(a.url, 'GET', '/v1/pets/1', KEY('demo-free'))).status);
      expect(statuses).toEqual([200, 200, 429, 429, 429]);
      for (const other of [b, c]) {
        const banned = await call(other.url, 'GET', '/v1/pets/1', KEY('demo-free'));
        expect(banned.status).toBe(429);
        expect(banned.body).toMatchObject({ code: 'key_banned' });
        expect(Number(banned.headers.get('retry-after'))).toBeGreaterThan(500);
      }
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it('accepts a key issued on one replica on the others at once, in its own workspace, and a rule added on one applies on all', async () => {
    const [a, b, c] = (await cluster()) as [Replica, Replica, Replica];
    try {
      const issued = await call(a.url, 'POST', '/__sandbox/keys', ADMIN, { plan: 'pro' });
      expect(issued.status).toBe(201);
      const key = issued.body?.key as string;
      const created = await call(b.url, 'POST', '/v1/pets', KEY(key), { name: 'Mine', categoryId: 1 });
      expect(created.status).toBe(201);
      expect((await call(c.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY(key))).body).toEqual(created.body);
      // Another workspace does not see it.
      expect((await call(c.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY())).status).toBe(404);

      const rule = await call(b.url, 'POST', '/__sandbox/rules', ADMIN, {
        match: { method: 'GET', path: '/v1/pets/{petId}' },
        respond: { status: 404 },
      });
      expect(rule.status).toBe(201);
      for (const any of [a, b, c]) expect((await call(any.url, 'GET', '/v1/pets/1', KEY())).status).toBe(404);
      expect((await call(c.url, 'DELETE', `/__sandbox/rules/${rule.body?.id as string}`, ADMIN)).status).toBe(204);
      for (const any of [a, b, c]) expect((await call(any.url, 'GET', '/v1/pets/1', KEY())).status).toBe(200);
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it("counts a rule's times across replicas: times 1 applies once in the whole deployment, even in parallel", async () => {
    const prefix = `t${++prefixes}:`;
    const [a, b] = [await replica(prefix), await replica(prefix)];
    try {
      const once = { match: { method: 'GET', path: '/v1/pets/{petId}' }, respond: { status: 404 }, times: 1 };
      expect((await call(a.url, 'POST', '/__sandbox/rules', ADMIN, once)).status).toBe(201);
      const statuses = [(await call(a.url, 'GET', '/v1/pets/1', KEY())).status, (await call(b.url, 'GET', '/v1/pets/1', KEY())).status];
      expect(statuses).toEqual([404, 200]);

      expect((await call(b.url, 'POST', '/__sandbox/rules', ADMIN, { ...once, times: 2 })).status).toBe(201);
      const burst = await Promise.all(Array.from({ length: 10 }, (_, n) => call((n % 2 === 0 ? a : b).url, 'GET', '/v1/pets/1', KEY())));
      expect(burst.filter((r) => r.status === 404)).toHaveLength(2);
      expect(burst.filter((r) => r.status === 200)).toHaveLength(8);
    } finally {
      await stopAll([a, b]);
    }
  });

  it('keeps every key when replicas issue keys at the same moment, each accepted on every replica', async () => {
    const replicas = await cluster();
    try {
      // Each replica builds its admin API on its first admin request (docs/performance.md): built
      // by all three at once inside the burst, on one loaded process, that could outlast the test
      // config's 200 ms Redis command timeout and answer 503. The burst is about the keys.
      for (const any of replicas) expect((await call(any.url, 'GET', '/__sandbox/keys', ADMIN)).status).toBe(200);
      const issued = await Promise.all(
        Array.from({ length: 12 }, (_, n) => call((replicas[n % 3] as Replica).url, 'POST', '/__sandbox/keys', ADMIN, { plan: 'pro' })),
      );
      expect(issued.map((i) => i.status)).toEqual(Array.from({ length: 12 }, () => 201));
      for (const { body } of issued) {
        for (const any of replicas) expect((await call(any.url, 'GET', '/v1/pets/1', KEY(body?.key as string))).status).toBe(200);
      }
      for (const any of replicas) {
        const listed = ((await call(any.url, 'GET', '/__sandbox/keys', ADMIN)).body as unknown as { keys: { id: string }[] }).keys;
        expect(listed.map((k) => k.id)).toEqual(expect.arrayContaining(issued.map((i) => i.body?.id)));
      }
    } finally {
      await stopAll(replicas);
    }
  });

  it('shares the journal: a request one replica served is in every replica’s journal and verify', async () => {
    const [a, b, c] = (await cluster()) as [Replica, Replica, Replica];
    try {
      const served = await call(b.url, 'GET', '/v1/pets/7', KEY());
      const id = served.headers.get('x-request-id');
      for (const other of [a, c]) {
        await vi.waitFor(
          async () => {
            const journal = await call(other.url, 'GET', '/__sandbox/requests?path=/v1/pets/7', ADMIN);
            expect(journal.body).toEqual(expect.arrayContaining([expect.objectContaining({ id, status: 200 })]));
          },
          { timeout: 2_000, interval: 20 },
        );
      }
      const verified = await call(a.url, 'POST', '/__sandbox/requests/verify', ADMIN, {
        pattern: { method: 'GET', path: '/v1/pets/7' },
        count: { exactly: 1 },
      });
      expect(verified.status).toBe(200);
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it('answers 503 and fails readiness while Redis is down, and serves again when it is back, with nothing lost', async () => {
    const [a, b, c] = (await cluster()) as [Replica, Replica, Replica];
    try {
      const created = await call(a.url, 'POST', '/v1/pets', KEY(), { name: 'Durable', categoryId: 3 });
      await redis.kill();
      const down = Date.now();
      await vi.waitFor(async () => expect((await call(b.url, 'GET', '/__sandbox/health/ready', {})).status).toBe(503), {
        timeout: 1_000,
        interval: 10,
      });
      expect(Date.now() - down).toBeLessThan(1_000);
      expect((await call(b.url, 'GET', '/__sandbox/health/live', {})).status).toBe(200);
      const refused = await call(c.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY());
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 60 })).status).toBe(503);

      await redis.restart();
      for (const any of [a, b, c]) {
        await vi.waitFor(async () => expect((await call(any.url, 'GET', '/__sandbox/health/ready', {})).status).toBe(200), {
          timeout: 5_000,
          interval: 20,
        });
        expect((await call(any.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY())).body).toEqual(created.body);
      }
    } finally {
      await stopAll([a, b, c]);
    }
  });

  it('keeps records, keys, workspaces and the clock when every replica restarts', async () => {
    const prefix = `t${++prefixes}:`;
    const first = [await replica(prefix), await replica(prefix)];
    const [a, b] = first as [Replica, Replica];
    const issued = await call(a.url, 'POST', '/__sandbox/keys', ADMIN, { plan: 'pro' });
    const key = issued.body?.key as string;
    const created = await call(b.url, 'POST', '/v1/pets', KEY(key), { name: 'Kept', categoryId: 2 });
    const moved = await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 86_400 });
    await stopAll(first);

    const again = await replica(prefix);
    try {
      expect((await call(again.url, 'GET', `/v1/pets/${created.body?.id as number}`, KEY(key))).body).toEqual(created.body);
      expect((await call(again.url, 'GET', '/__sandbox/clock', ADMIN)).body).toEqual(moved.body);
    } finally {
      await again.stop();
    }
  });
});
