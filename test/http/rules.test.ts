import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, auth, EDGES, START, testSandbox } from '../support/sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const at = (seconds: number): string => new Date(Date.parse(START) + seconds * 1000).toISOString();
/** libuv's loop clock has millisecond granularity: a timer may fire up to 1 ms before the wall clock says. */
const TICK = 1;

interface Seen {
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly elapsedMs: number;
}

/** One GET over a real socket with node:http's client (no connection reuse). */
function socketGet(port: number, path: string, headers: Record<string, string>): Promise<Seen> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, errorCode: undefined, elapsedMs: performance.now() - started }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: undefined, errorCode: error.code, elapsedMs: performance.now() - started }),
    );
    req.end();
  });
}

async function listen(listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe.each(EDGES)('admin rules through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  const create = async (rule: object): Promise<{ id: string } & Record<string, unknown>> => {
    const res = await request(app).post('/__sandbox/rules').set(admin).send(rule);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string } & Record<string, unknown>;
  };
  const keyId = async (key: string): Promise<string> => (await request(app).get(`/__sandbox/keys/${key}`).set(admin)).body.id as string;
  const lastEntry = async (): Promise<Record<string, unknown>> => {
    const entries = (await request(app).get('/__sandbox/requests?limit=50').set(admin)).body as { path: string }[];
    return entries.find((e) => !e.path.startsWith('/__sandbox')) as Record<string, unknown>;
  };
  const advance = (seconds: number) => request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: seconds });

  it('a rule forcing 503 on getPet for one key affects only that key, and the journal names it', async () => {
    const rule = await create({ match: { operationId: 'getPet', key: 'demo-pro' }, respond: { status: 503 } });
    expect(rule).toEqual({
      id: 'rule_1',
      match: { operationId: 'getPet', key: await keyId('demo-pro') },
      respond: { status: 503 },
      applied: 0,
    });
    expect(JSON.stringify(rule)).not.toContain('demo-pro');

    const scenarios: readonly [string, string, number][] = [
      ['demo-pro', '/v1/pets/1', 503],
      ['demo-free', '/v1/pets/1', 200],
      ['demo-pro', '/v1/pets?limit=1', 200],
    ];
    for (const [key, path, status] of scenarios) {
      const res = await request(app).get(path).set(auth(key));
      expect(res.status, `${key} ${path}`).toBe(status);
      if (status === 503) {
        expect(res.headers['preference-applied']).toBeUndefined();
        expect(res.headers['x-ratelimit-limit']).toBe('300');
      }
    }
    const entries = (await request(app).get('/__sandbox/requests?status=503').set(admin)).body as Record<string, unknown>[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ operationId: 'getPet', applied: { rule: 'rule_1' } });
    const found = await request(app).post('/__sandbox/requests/count').set(admin).send({ key: 'demo-free', operationId: 'getPet' });
    expect(found.body).toEqual({ count: 1 });
    expect((await request(app).get('/__sandbox/rules/rule_1').set(admin)).body).toMatchObject({ applied: 1 });
  });

  it('times: 2 applies twice, then the rule is gone', async () => {
    await create({ match: { operationId: 'getPet' }, respond: { status: 503 }, times: 2 });
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(503);
    expect((await request(app).get('/__sandbox/rules/rule_1').set(admin)).body).toMatchObject({ times: 2, remaining: 1, applied: 1 });
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(503);
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(200);
    const gone = await request(app).get('/__sandbox/rules/rule_1').set(admin);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('resource_not_found');
    expect((await request(app).get('/__sandbox/rules').set(admin)).body).toEqual([]);
  });

  it('from and until follow the sandbox clock: an outage scheduled by moving it', async () => {
    await create({ match: { path: '/v1/pets/{id}' }, respond: { status: 503 }, from: at(60), until: at(120) });
    const steps: readonly [number, number][] = [
      [0, 200],
      [59, 200],
      [1, 503],
      [59, 503],
      [1, 200],
    ];
    for (const [seconds, status] of steps) {
      if (seconds > 0) expect((await advance(seconds)).status).toBe(200);
      expect((await request(app).get('/v1/pets/2').set(auth())).status).toBe(status);
    }
  });

  it('a forced non-2xx on a create leaves the store unchanged; a 2xx rule still creates', async () => {
    await create({ match: { operationId: 'createPet', key: 'demo-pro' }, respond: { status: 503 } });
    const digest = await sandbox.store.digest();
    const refused = await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Rex', categoryId: 1 });
    expect(refused.status).toBe(503);
    expect(await sandbox.store.digest()).toBe(digest);
    const created = await request(app).post('/v1/pets').set(auth('demo-free')).send({ name: 'Rex', categoryId: 1 });
    expect(created.status).toBe(201);
    expect(await sandbox.store.digest()).not.toBe(digest);
  });

  it('an invalid request still gets its 400, and the rule is not used', async () => {
    await create({ match: { operationId: 'createPet' }, respond: { status: 503 }, times: 1 });
    const res = await request(app).post('/v1/pets').set(auth()).send({ categoryId: 'one' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect((await request(app).get('/__sandbox/rules/rule_1').set(admin)).body).toMatchObject({ remaining: 1, applied: 0 });
    expect((await request(app).get('/v1/pets/1').set(auth('nobody'))).status).toBe(401);
  });

  it('a request’s own Prefer beats a rule, which is then neither used nor journaled', async () => {
    await create({ match: { operationId: 'getPet' }, respond: { status: 503 }, times: 1 });
    const preferred = await request(app).get('/v1/pets/1').set(auth()).set('Prefer', 'code=404');
    expect(preferred.status).toBe(404);
    expect(preferred.headers['preference-applied']).toBe('code=404');
    expect(await lastEntry()).toMatchObject({ applied: { preference: 'code=404' } });
    expect(((await lastEntry()).applied as Record<string, unknown>).rule).toBeUndefined();
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(503);
  });

  it('a request’s delay beats the rule’s latency, while the rule’s answer still applies', async () => {
    await create({ match: { operationId: 'getPet' }, respond: { status: 503 }, latency: { fixed: 5000 } });
    const res = await request(app).get('/v1/pets/1').set(auth()).set('Prefer', 'delay=0');
    expect(res.status).toBe(503);
    expect(await lastEntry()).toMatchObject({ applied: { rule: 'rule_1', preference: 'delay=0' } });
  });

  it('a rule’s own body and headers go on its answer; a 2xx on a read is the rule’s body', async () => {
    const body = { id: 1, name: 'Ghost', categoryId: 1, status: 'sold' };
    await create({ match: { path: '/v1/pets/1' }, respond: { status: 200, body, headers: { 'X-Scenario': 'ghost' } } });
    const res = await request(app).get('/v1/pets/1').set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect(res.headers['x-scenario']).toBe('ghost');
    expect((await request(app).get('/v1/pets/2').set(auth())).body.name).not.toBe('Ghost');
  });

  it('a named example; a 429 rule is the sandbox’s own 429', async () => {
    await create({ match: { operationId: 'getPet' }, respond: { status: 404, example: 'notFound' } });
    const missing = await request(app).get('/v1/pets/1').set(auth());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'resource_not_found', message: 'No pets with id 999', status: 404 });
    await create({ match: { operationId: 'listPets' }, respond: { status: 429 } });
    const limited = await request(app).get('/v1/pets').set(auth('demo-free'));
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('matches on query, headers and body', async () => {
    await create({
      match: { operationId: 'createPet', headers: { 'X-Suite': { equalTo: 'checkout' } }, body: { pointer: '/name', equalTo: 'Boom' } },
      respond: { status: 500 },
    });
    await create({ match: { operationId: 'listPets', query: { status: { equalTo: 'sold' } } }, respond: { status: 503 } });
    const scenarios: readonly [string, () => request.Test, number][] = [
      [
        'name and header',
        () => request(app).post('/v1/pets').set(auth()).set('X-Suite', 'checkout').send({ name: 'Boom', categoryId: 1 }),
        500,
      ],
      [
        'another name',
        () => request(app).post('/v1/pets').set(auth()).set('X-Suite', 'checkout').send({ name: 'Rex', categoryId: 1 }),
        201,
      ],
      ['no header', () => request(app).post('/v1/pets').set(auth()).send({ name: 'Boom', categoryId: 1 }), 201],
      ['the query value', () => request(app).get('/v1/pets?status=sold').set(auth()), 503],
      ['another query value', () => request(app).get('/v1/pets?status=available').set(auth()), 200],
    ];
    for (const [name, send, status] of scenarios) expect((await send()).status, name).toBe(status);
  });

  it('validation errors name the field, every one at once', async () => {
    const cases: readonly [object, readonly string[]][] = [
      [{ match: { operationId: 'nope' }, respond: { status: 503 } }, ['body.match.operationId']],
      [
        { match: { operationId: 'getPet', key: 'demo-nobody' }, respond: { status: 503, example: 'nope' } },
        ['body.match.key', 'body.respond.example'],
      ],
      [
        { match: { path: '/v1/pets/1' }, respond: { status: 200, body: { name: 7 } } },
        ['body.respond.body.categoryId', 'body.respond.body.id', 'body.respond.body.name'],
      ],
      [{ match: {}, latency: { uniform: [9, 1] } }, ['body.latency.uniform.1']],
      [{ match: {}, fault: { fault: 'timeout', capMs: 0 } }, ['body.fault']],
      [{ match: {}, fault: 'explode' }, ['body.fault']],
      [{ match: {}, latency: { fixed: 1 }, from: at(60), until: at(0) }, ['body.until']],
      [{ match: {}, latency: { fixed: 1 }, from: 'tomorrow' }, ['body.from']],
      [{ match: { operationId: 'getPet' } }, ['body']],
      [{ match: {}, respond: { status: 503 }, times: 0 }, ['body.times']],
      [{ match: {}, respond: { status: 503 }, probability: 2 }, ['body.probability']],
      [{ match: { metod: 'GET' }, respond: { status: 503 } }, ['body.match.metod']],
    ];
    for (const [rule, expected] of cases) {
      const res = await request(app).post('/__sandbox/rules').set(admin).send(rule);
      expect(res.status, JSON.stringify(rule)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      const locations = (res.body.details as { location: string }[]).map((d) => d.location);
      for (const location of expected) expect(locations, JSON.stringify(res.body)).toContain(location);
    }
    expect((await request(app).get('/__sandbox/rules').set(admin)).body).toEqual([]);
  });

  it('lists newest first, deletes one or all, and a reset clears them and starts ids again', async () => {
    await create({ match: { operationId: 'getPet' }, respond: { status: 503 } });
    await create({ match: { operationId: 'listPets' }, latency: { fixed: 0 } });
    await create({ match: {}, fault: [] });
    const listed = await request(app).get('/__sandbox/rules').set(admin);
    expect(listed.body.map((r: { id: string }) => r.id)).toEqual(['rule_3', 'rule_2', 'rule_1']);
    expect((await request(app).delete('/__sandbox/rules/rule_2').set(admin)).status).toBe(204);
    expect((await request(app).delete('/__sandbox/rules/rule_2').set(admin)).status).toBe(404);
    expect((await request(app).delete('/__sandbox/rules').set(admin)).body).toEqual({ removed: 2 });
    await create({ match: { operationId: 'getPet' }, respond: { status: 503 } });
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(503);
    expect((await request(app).post('/__sandbox/reset').set(admin)).status).toBe(200);
    expect((await request(app).get('/__sandbox/rules').set(admin)).body).toEqual([]);
    expect((await request(app).get('/v1/pets/1').set(auth())).status).toBe(200);
    expect((await create({ match: {}, latency: { fixed: 0 } })).id).toBe('rule_1');
  });

  it('a rule’s latency and a connection_reset fault, seen by a client over a real socket', async () => {
    const port = await listen(app as RequestListener);
    await create({ match: { operationId: 'getPet', key: 'demo-pro' }, latency: { fixed: 150 } });
    await create({ match: { operationId: 'listPets', key: 'demo-pro' }, fault: 'connection_reset' });
    const slow = await socketGet(port, '/v1/pets/1', auth('demo-pro'));
    expect(slow.status).toBe(200);
    expect(slow.elapsedMs).toBeGreaterThanOrEqual(150 - TICK);
    expect(await lastEntry()).toMatchObject({ status: 200, applied: { rule: 'rule_1', delayMs: 150 } });
    const reset = await socketGet(port, '/v1/pets', auth('demo-pro'));
    expect(reset).toMatchObject({ status: undefined, errorCode: 'ECONNRESET' });
    expect(await lastEntry()).toMatchObject({ operationId: 'listPets', applied: { rule: 'rule_2', fault: 'connection_reset' } });
    // Another key is served at once and whole.
    const other = await socketGet(port, '/v1/pets', auth('demo-free'));
    expect(other.status).toBe(200);
    expect(other.elapsedMs).toBeLessThan(150);
  });

  it('probability: the same seed and key give the same sequence', async () => {
    const sequence = async (): Promise<number[]> => {
      await request(app).post('/__sandbox/reset').set(admin);
      await create({ match: { operationId: 'getPet' }, respond: { status: 503 }, probability: 0.5 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await request(app).get('/v1/pets/1').set(auth())).status);
      return statuses;
    };
    const first = await sequence();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await sequence()).toEqual(first);
  });
});
