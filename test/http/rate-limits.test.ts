import { createServer, type Server } from 'node:http';
import request, { type Response } from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import type { SandboxRequest, SandboxResponse } from '../../src/vocabulary/exchange.js';
import { MemoryCounterStore } from '../../src/limits/counter-store.js';
import { ADMIN_TOKEN, auth, EDGES, START, testSandbox } from '../support/sandbox.js';

/**
 * Plans, quotas and bans as a client sees them: status, body code and headers, through both HTTP
 * edges, on the real Pet Store document. The clock is frozen at START (10:00:30 UTC, 30 s into a
 * minute) and moved only through the admin API or sandbox.clock, so nothing here sleeps.
 */

const MINUTE_END = Date.parse('2026-11-22T10:01:00Z') / 1000;
const DAY_END = Date.parse('2026-11-23T00:00:00Z') / 1000;
const START_S = Date.parse(START) / 1000;
const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';

type Overrides = Parameters<typeof testSandbox>[0];
type Api = ReturnType<typeof request>;

/** What a client reads from the rate-limit headers; each must be there and well formed. */
function rate(res: Response) {
  const h = res.headers as Record<string, string | undefined>;
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(h[name], `${name} on a ${res.status}`).toMatch(/^\d+$/);
  }
  expect(h['ratelimit-policy'], `RateLimit-Policy on a ${res.status}`).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
  expect(h.ratelimit, `RateLimit on a ${res.status}`).toMatch(/^"(minute|day)";r=\d+;t=\d+$/);
  return {
    limit: Number(h['x-ratelimit-limit']),
    remaining: Number(h['x-ratelimit-remaining']),
    reset: Number(h['x-ratelimit-reset']),
    policy: h['ratelimit-policy'],
    ratelimit: h.ratelimit,
    retryAfter: h['retry-after'],
  };
}

const BIG_BODY = JSON.stringify({ name: 'x'.repeat(1024 * 1024), categoryId: 1 });

describe.each(EDGES)('rate limits through the $name', ({ make }) => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  /** A sandbox behind one listening server, so parallel requests share it (and its address). */
  async function serve(overrides: Overrides = {}): Promise<{ sandbox: Sandbox; api: Api }> {
    const sandbox = await testSandbox(overrides);
    const server = createServer(make(sandbox));
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { sandbox, api: request(server) };
  }

  const advance = async (api: Api, seconds: number): Promise<void> => {
    const res = await api.post('/__sandbox/clock').set(ADMIN).send({ advanceSeconds: seconds });
    expect(res.status).toBe(200);
  };

  const burn = async (api: Api, key: string, n: number): Promise<Response[]> => {
    const answers: Response[] = [];
    for (let i = 0; i < n; i++) answers.push(await api.get('/v1/pets?limit=1').set(auth(key)));
    return answers;
  };

  describe('the numbers', () => {
    it.each([
      ['demo-free', 60, 1_000],
      ['demo-pro', 300, 10_000],
      ['demo-business', 1_000, 100_000],
      ['demo-enterprise', 5_000, 1_000_000],
    ])("%s sees its plan's limits in every header", async (key, perMinute, perDay) => {
      const { api } = await serve();
      const res = await api.get('/v1/pets').set(auth(key));
      expect(res.status).toBe(200);
      expect(rate(res)).toEqual({
        limit: perMinute,
        remaining: perMinute - 1,
        reset: MINUTE_END,
        policy: `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`,
        ratelimit: `"minute";r=${perMinute - 1};t=30`,
        retryAfter: undefined,
      });
    });

    it("takes the enterprise plan's numbers from the configuration", async () => {
      const { api } = await serve({ plans: { enterprise: { perMinute: 7, perDay: 70 } } });
      const res = await api.get('/v1/pets').set(auth('demo-enterprise'));
      expect(rate(res)).toMatchObject({ limit: 7, remaining: 6, policy: '"minute";q=7;w=60, "day";q=70;w=86400' });
      await burn(api, 'demo-enterprise', 6);
      const refused = await api.get('/v1/pets').set(auth('demo-enterprise'));
      expect(refused.status).toBe(429);
    });
  });

  describe('every answer under /v1 carries the headers and uses quota', () => {
    it('2xx, 400, 404, 405, 413 and 415 each count one request of the key; 401 counts against the address', async () => {
      const { api } = await serve();
      const key = auth('demo-free');
      // prettier-ignore
      const answers: [string, Response][] = [
        ['200', await api.get('/v1/pets').set(key)],
        ['201', await api.post('/v1/pets').set(key).send({ name: 'Rex', categoryId: 1 })],
        ['400 validation_failed', await api.post('/v1/pets').set(key).send({})],
        ['400 validation_failed (query)', await api.get('/v1/pets?limit=0').set(key)],
        ['404 route_not_found', await api.get('/v1/no-such-thing').set(key)],
        ['404 resource_not_found', await api.get('/v1/pets/9999').set(key)],
        ['405 method_not_allowed', await api.delete('/v1/pets').set(key)],
        ['413 payload_too_large', await api.post('/v1/pets').set(key).set('Content-Type', 'application/json').send(BIG_BODY)],
        ['415 unsupported_media_type', await api.post('/v1/pets').set(key).set('Content-Type', 'text/plain').send('{"name":"Rex","categoryId":1}')],
      ];
      answers.forEach(([expected, res], i) => {
        const [status, code] = expected.split(' ');
        expect(res.status, expected).toBe(Number(status));
        if (code) expect(res.body).toMatchObject({ code, status: Number(status) });
        expect(rate(res), expected).toEqual({
          limit: 60,
          remaining: 59 - i,
          reset: MINUTE_END,
          policy: FREE_POLICY,
          ratelimit: `"minute";r=${59 - i};t=30`,
          retryAfter: undefined,
        });
      });

      // Without a key: 401, counted against the client address on the free plan, not the key.
      const anonymous = await api.get('/v1/pets');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'missing_credentials', status: 401 });
      expect(rate(anonymous)).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END, policy: FREE_POLICY });

      const inspected = await api.get('/__sandbox/keys/demo-free').set(ADMIN);
      expect(inspected.body.windows.map((w: { used: number }) => w.used)).toEqual([answers.length, answers.length]);

      // And 429: the rest of the minute, then one more.
      const rest = await burn(api, 'demo-free', 60 - answers.length);
      expect(rest.map((r) => r.status)).toEqual(rest.map(() => 200));
      const refused = await api.get('/v1/pets').set(key);
      expect(refused.status).toBe(429);
      expect(rate(refused)).toEqual({
        limit: 60,
        remaining: 0,
        reset: MINUTE_END,
        policy: FREE_POLICY,
        ratelimit: '"minute";r=0;t=30',
        retryAfter: '30',
      });
    });

    it('leaves the CORS preflight alone: no rate-limit headers, no quota used', async () => {
      const { api } = await serve();
      const preflight = await api.options('/v1/pets').set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'POST');
      expect(preflight.status).toBe(204);
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
        expect(preflight.headers[name]).toBeUndefined();
      }
      const res = await api.get('/v1/pets').set(auth('demo-free')).set('Origin', 'https://app.example');
      expect(rate(res).remaining).toBe(59);
      // A browser script is allowed to read them.
      expect(res.headers['access-control-expose-headers']).toMatch(/X-RateLimit-Remaining.*RateLimit,.*RateLimit-Policy.*Retry-After/);
      const anonymous = await api.get('/v1/pets');
      expect(rate(anonymous).remaining).toBe(59);
    });

    it('counts failed requests and not 429s: what is left after the window is exactly the day minus the counted ones', async () => {
      const { api } = await serve({ plans: { free: { perMinute: 5, perDay: 8 } } });
      const key = auth('demo-free');
      const statuses = [
        (await api.post('/v1/pets').set(key).send({ name: 7 })).status,
        (await api.get('/v1/pets?status=lost').set(key)).status,
        (await api.get('/v1/nowhere').set(key)).status,
        (await api.put('/v1/pets').set(key).send({})).status,
        (await api.get('/v1/pets').set(key)).status,
      ];
      expect(statuses).toEqual([400, 400, 404, 405, 200]);
      // Ten refusals in this minute: none of them counted.
      const refused = await burn(api, 'demo-free', 10);
      expect(refused.map((r) => r.body.code)).toEqual(refused.map(() => 'rate_limited'));
      await advance(api, 30);
      const next = await burn(api, 'demo-free', 4);
      expect(next.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      // The day window (3 left of 8, fewer than the minute's 5) is the one described.
      expect(rate(next[0]!)).toMatchObject({ limit: 8, remaining: 2, reset: DAY_END });
      expect(rate(next[3]!)).toMatchObject({ limit: 8, remaining: 0, reset: DAY_END, retryAfter: String(DAY_END - MINUTE_END) });
      const inspected = await api.get('/__sandbox/keys/demo-free').set(ADMIN);
      expect(inspected.body.windows).toEqual([
        { window: 'minute', limit: 5, used: 3, remaining: 2, reset: MINUTE_END + 60 },
        { window: 'day', limit: 8, used: 8, remaining: 0, reset: DAY_END },
      ]);
    });
  });

  describe('429', () => {
    it('refuses the 61st request in the Error shape with Retry-After, exact to the second on the sandbox clock', async () => {
      const { api } = await serve();
      const ok = await burn(api, 'demo-free', 60);
      expect(ok.map((r) => r.status)).toEqual(ok.map(() => 200));
      expect(ok.map((r) => rate(r).remaining)).toEqual(ok.map((_, i) => 59 - i));

      const refused = await api.get('/v1/pets').set(auth('demo-free'));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ code: 'rate_limited', message: expect.stringMatching(/60 requests per minute/), status: 429 });
      expect(refused.headers['retry-after']).toBe('30');

      await advance(api, 29);
      const early = await api.get('/v1/pets').set(auth('demo-free'));
      expect(early.status).toBe(429);
      expect(early.headers['retry-after']).toBe('1');
      await advance(api, 1);
      const later = await api.get('/v1/pets').set(auth('demo-free'));
      expect(later.status).toBe(200);
      expect(rate(later)).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END + 60, ratelimit: '"minute";r=59;t=60' });
    });

    it('answers 429 before anything else once the limit is reached, whatever the request', async () => {
      const { api } = await serve({ plans: { free: { perMinute: 1, perDay: 100 } } });
      const key = auth('demo-free');
      expect((await api.get('/v1/pets').set(key)).status).toBe(200);
      const answers = [
        await api.post('/v1/pets').set(key).send({}),
        await api.get('/v1/nowhere').set(key),
        await api.delete('/v1/pets').set(key),
        await api.post('/v1/pets').set(key).set('Content-Type', 'text/plain').send('x'),
        await api.post('/v1/pets').set(key).set('Content-Type', 'application/json').send(BIG_BODY),
      ];
      for (const res of answers) {
        expect(res.status).toBe(429);
        expect(res.body.code).toBe('rate_limited');
        expect(rate(res)).toMatchObject({ limit: 1, remaining: 0, reset: MINUTE_END, retryAfter: '30' });
      }
    });
  });

  describe('bans', () => {
    it('bans a key for 600 s at its 20th 429 in a minute; key_banned until the exact end', async () => {
      const { api } = await serve();
      await burn(api, 'demo-free', 60);
      const refusals = await burn(api, 'demo-free', 20);
      expect(refusals.map((r) => r.body.code)).toEqual(refusals.map(() => 'rate_limited'));
      expect(refusals.slice(0, 19).map((r) => r.headers['retry-after'])).toEqual(refusals.slice(0, 19).map(() => '30'));
      // The 20th starts the ban and already points at its end.
      expect(rate(refusals[19]!)).toMatchObject({ remaining: 0, reset: START_S + 600, retryAfter: '600' });

      const banned = await api.get('/v1/pets').set(auth('demo-free'));
      expect(banned.status).toBe(429);
      expect(banned.body).toEqual({ code: 'key_banned', message: expect.any(String), status: 429 });
      expect(rate(banned)).toMatchObject({ remaining: 0, reset: START_S + 600, retryAfter: '600' });
      // Any request, even one that would fail otherwise.
      const bannedWrong = await api.delete('/v1/pets').set(auth('demo-free'));
      expect([bannedWrong.status, bannedWrong.body.code]).toEqual([429, 'key_banned']);
      // Other keys are not affected.
      expect((await api.get('/v1/pets').set(auth('demo-pro'))).status).toBe(200);

      await advance(api, 599);
      const last = await api.get('/v1/pets').set(auth('demo-free'));
      expect([last.status, last.body.code, last.headers['retry-after']]).toEqual([429, 'key_banned', '1']);
      await advance(api, 1);
      const free = await api.get('/v1/pets').set(auth('demo-free'));
      expect(free.status).toBe(200);
      expect(rate(free).remaining).toBe(59);
    });

    it('takes the threshold and duration from the configuration', async () => {
      const { api } = await serve({ plans: { free: { perMinute: 2, perDay: 100 } }, bans: { threshold: 3, durationSeconds: 120 } });
      await burn(api, 'demo-free', 2);
      const refusals = await burn(api, 'demo-free', 4);
      expect(refusals.map((r) => [r.body.code, r.headers['retry-after']])).toEqual([
        ['rate_limited', '30'],
        ['rate_limited', '30'],
        ['rate_limited', '120'],
        ['key_banned', '120'],
      ]);
      await advance(api, 119);
      expect((await api.get('/v1/pets').set(auth('demo-free'))).body.code).toBe('key_banned');
      await advance(api, 1);
      expect((await api.get('/v1/pets').set(auth('demo-free'))).status).toBe(200);
    });
  });

  describe('requests without a valid key', () => {
    it('are limited per client address at the free rates, whether the key is missing, malformed or unknown', async () => {
      const { api } = await serve();
      const kinds = [
        { headers: {}, code: 'missing_credentials' },
        { headers: { Authorization: 'Basic dXNlcjpwYXNz' }, code: 'malformed_credentials' },
        { headers: { Authorization: 'Bearer not-a-key' }, code: 'invalid_api_key' },
      ];
      const remaining: number[] = [];
      for (let i = 0; i < 60; i++) {
        const kind = kinds[i % kinds.length]!;
        const res = await api.get('/v1/pets').set(kind.headers);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe(kind.code);
        const h = rate(res);
        expect(h).toMatchObject({ limit: 60, reset: MINUTE_END, policy: FREE_POLICY });
        remaining.push(h.remaining);
      }
      expect(remaining).toEqual(remaining.map((_, i) => 59 - i));
      // The 61st from the address, key or not, is refused before its key is even judged.
      for (const kind of kinds) {
        const res = await api.get('/v1/pets').set(kind.headers);
        expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([429, 'rate_limited', '30']);
      }
      const probe = await api.get('/v1/secret-admin-route').set({ Authorization: 'Bearer guess-1' });
      expect(probe.status).toBe(429);
      // A valid key from the same address has its own quota.
      const keyed = await api.get('/v1/pets').set(auth('demo-free'));
      expect(keyed.status).toBe(200);
      expect(rate(keyed).remaining).toBe(59);
    });
  });

  describe('concurrency', () => {
    it('admits exactly 60 of 240 parallel requests on a fresh free key, and bans at the 20th refusal', async () => {
      const { api } = await serve();
      const issued = await api.post('/__sandbox/keys').set(ADMIN).send({ plan: 'free' });
      expect(issued.status).toBe(201);
      const { key, id } = issued.body as { key: string; id: string };

      const answers = await Promise.all(Array.from({ length: 240 }, () => api.get('/v1/pets?limit=1').set(auth(key))));
      const ok = answers.filter((r) => r.status === 200);
      const codes = answers.filter((r) => r.status === 429).map((r) => r.body.code as string);
      expect(ok).toHaveLength(60);
      expect(codes.filter((c) => c === 'rate_limited')).toHaveLength(20);
      expect(codes.filter((c) => c === 'key_banned')).toHaveLength(160);
      // Each success was counted once: the remainders they report are 59..0, each exactly once.
      expect(ok.map((r) => rate(r).remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));

      const inspected = await api.get(`/__sandbox/keys/${id}`).set(ADMIN);
      expect(inspected.status).toBe(200);
      expect(inspected.body).toMatchObject({
        id,
        plan: 'free',
        windows: [
          { window: 'minute', used: 60, remaining: 0 },
          { window: 'day', used: 60, remaining: 940 },
        ],
        bannedUntil: START_S + 600,
      });
    });

    it('admits exactly the limit of a mixed parallel burst (reads, writes, bad bodies, unknown routes)', async () => {
      const { api, sandbox } = await serve({ bans: { threshold: 1_000, durationSeconds: 600 } });
      const issued = await api.post('/__sandbox/keys').set(ADMIN).send({ plan: 'free' });
      const key = auth(issued.body.key);
      const before = (await sandbox.store.list(issued.body.workspace, 'pets', { after: undefined, limit: 1000, filters: [] })).items.length;
      const requests = Array.from({ length: 200 }, (_, i) => {
        switch (i % 4) {
          case 0:
            return api.get('/v1/pets').set(key);
          case 1:
            return api
              .post('/v1/pets')
              .set(key)
              .send({ name: `Pet ${i}`, categoryId: 1 });
          case 2:
            return api.post('/v1/pets').set(key).send({ name: 1 });
          default:
            return api.get('/v1/elsewhere').set(key);
        }
      });
      const answers = await Promise.all(requests);
      const counted = answers.filter((r) => r.status !== 429);
      expect(counted).toHaveLength(60);
      expect(answers.filter((r) => r.status === 429).every((r) => r.body.code === 'rate_limited')).toBe(true);
      const created = answers.filter((r) => r.status === 201).length;
      const after = (await sandbox.store.list(issued.body.workspace, 'pets', { after: undefined, limit: 1000, filters: [] })).items.length;
      expect(after - before).toBe(created);
    });
  });

  describe('admin', () => {
    it('shows a key by key or by safe id: plan, windows, refusals and ban', async () => {
      const { api } = await serve();
      await burn(api, 'demo-pro', 3);
      const byKey = await api.get('/__sandbox/keys/demo-pro').set(ADMIN);
      expect(byKey.status).toBe(200);
      expect(byKey.body).toEqual({
        id: expect.stringMatching(/^key_[0-9a-f]{12}$/),
        name: 'demo-pro',
        plan: 'pro',
        windows: [
          { window: 'minute', limit: 300, used: 3, remaining: 297, reset: MINUTE_END },
          { window: 'day', limit: 10_000, used: 3, remaining: 9_997, reset: DAY_END },
        ],
        refusalsThisMinute: 0,
        banThreshold: 20,
        bannedUntil: null,
      });
      const byId = await api.get(`/__sandbox/keys/${byKey.body.id}`).set(ADMIN);
      expect(byId.body).toEqual(byKey.body);

      await burn(api, 'demo-free', 65);
      const limited = await api.get('/__sandbox/keys/demo-free').set(ADMIN);
      expect(limited.body).toMatchObject({ refusalsThisMinute: 5, bannedUntil: null, windows: [{ used: 60, remaining: 0 }, { used: 60 }] });

      expect((await api.get('/__sandbox/keys/not-a-key').set(ADMIN)).status).toBe(404);
      expect((await api.get('/__sandbox/keys/demo-pro')).status).toBe(401);
      expect((await api.get('/__sandbox/keys/demo-pro').set(auth('demo-pro'))).status).toBe(401);
    });

    it('clears counters and bans on POST /__sandbox/reset', async () => {
      const { api } = await serve();
      await burn(api, 'demo-free', 80);
      for (let i = 0; i < 61; i++) await api.get('/v1/pets');
      expect((await api.get('/v1/pets').set(auth('demo-free'))).body.code).toBe('key_banned');
      expect((await api.get('/v1/pets')).status).toBe(429);

      const reset = await api.post('/__sandbox/reset').set(ADMIN);
      expect(reset.status).toBe(200);

      const keyed = await api.get('/v1/pets').set(auth('demo-free'));
      expect(keyed.status).toBe(200);
      expect(rate(keyed)).toMatchObject({ remaining: 59, reset: MINUTE_END });
      const anonymous = await api.get('/v1/pets');
      expect(anonymous.status).toBe(401);
      expect(rate(anonymous).remaining).toBe(59);
      const inspected = await api.get('/__sandbox/keys/demo-free').set(ADMIN);
      expect(inspected.body).toMatchObject({ refusalsThisMinute: 0, bannedUntil: null, windows: [{ used: 1 }, { used: 1 }] });
    });

    it('moves every window with POST /__sandbox/clock: the minute, then the UTC day', async () => {
      const { api } = await serve({ plans: { free: { perMinute: 2, perDay: 3 } } });
      const first = await burn(api, 'demo-free', 3);
      expect(first.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(rate(first[2]!)).toMatchObject({ limit: 2, remaining: 0, reset: MINUTE_END, retryAfter: '30' });

      await advance(api, 30);
      const second = await burn(api, 'demo-free', 2);
      expect(second.map((r) => r.status)).toEqual([200, 429]);
      const wait = DAY_END - MINUTE_END;
      expect(rate(second[0]!)).toMatchObject({ limit: 3, remaining: 0, reset: DAY_END, ratelimit: `"day";r=0;t=${wait}` });
      expect(rate(second[1]!)).toMatchObject({ limit: 3, remaining: 0, reset: DAY_END, retryAfter: String(wait) });

      await advance(api, wait - 1);
      expect((await api.get('/v1/pets').set(auth('demo-free'))).headers['retry-after']).toBe('1');
      await advance(api, 1);
      const tomorrow = await api.get('/v1/pets').set(auth('demo-free'));
      expect(tomorrow.status).toBe(200);
      expect(rate(tomorrow)).toMatchObject({ limit: 2, remaining: 1, reset: DAY_END + 60 });
      const inspected = await api.get('/__sandbox/keys/demo-free').set(ADMIN);
      expect(inspected.body.windows).toEqual([
        { window: 'minute', limit: 2, used: 1, remaining: 1, reset: DAY_END + 60 },
        { window: 'day', limit: 3, used: 1, remaining: 2, reset: DAY_END + 86_400 },
      ]);
    });
  });
});

describe('rate limits in the core (many requests, no sockets)', () => {
  let sequence = 0;
  const call = (
    sandbox: Sandbox,
    headers: Record<string, string>,
    clientAddress = '203.0.113.7',
    path = '/v1/pets',
  ): Promise<SandboxResponse> => {
    const req: SandboxRequest = {
      id: `r${++sequence}`,
      method: 'GET',
      path,
      query: '',
      headers,
      clientAddress,
      readBody: async () => ({ kind: 'ok', bytes: Buffer.alloc(0) }),
    };
    return sandbox.handle(req);
  };

  it('counts each client address separately', async () => {
    const sandbox = await testSandbox();
    for (let i = 0; i < 60; i++) expect((await call(sandbox, {}, '203.0.113.7')).status).toBe(401);
    expect((await call(sandbox, {}, '203.0.113.7')).status).toBe(429);
    const other = await call(sandbox, {}, '198.51.100.2');
    expect(other.status).toBe(401);
    expect(other.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('keeps the counter store tiny under 100,000 distinct unknown keys: they are all one client address', async () => {
    const sandbox = await testSandbox();
    const get = vi.spyOn(MemoryCounterStore.prototype, 'take');
    try {
      const statuses = new Map<string, number>();
      for (let i = 0; i < 100_000; i++) {
        // A new minute now and then, so the address is refused, banned and let back in along the way.
        if (i % 10_000 === 0) sandbox.clock.advance(11 * 60_000);
        const res = await call(sandbox, { authorization: `Bearer unknown-${i}` });
        const label = `${res.status} ${(res.body as { code: string }).code}`;
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
      }
      // Every tenth-of-the-run: 60 counted (401), 20 refused, then banned.
      expect(Object.fromEntries(statuses)).toEqual({
        '401 invalid_api_key': 600,
        '429 rate_limited': 200,
        '429 key_banned': 100_000 - 800,
      });
      const clients = new Set(get.mock.calls.map(([client]) => client));
      expect([...clients]).toEqual(['address:203.0.113.7']);
      const stores = new Set(get.mock.contexts);
      expect(stores.size).toBe(1);
      const [store] = [...stores] as MemoryCounterStore[];
      expect(store!.size).toBe(1);
    } finally {
      get.mockRestore();
    }
  });
});
