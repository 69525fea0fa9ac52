import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, auth, EDGES, START, testSandbox, withoutNames } from '../support/sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe.each(EDGES)('admin API through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  it('is closed to plan keys, wrong tokens and no token', async () => {
    for (const headers of [auth('demo-enterprise'), { Authorization: 'Bearer wrong-token' }, {}]) {
      const res = await request(app).post('/__sandbox/reset').set(headers);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('admin_unauthorized');
    }
  });

  it('is absent when no admin token is configured', async () => {
    const closed = make(await testSandbox({ adminToken: null }));
    const res = await request(closed).post('/__sandbox/reset').set(admin);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('route_not_found');
  });

  it('moves the clock and reports it', async () => {
    const start = Date.parse(START) / 1000;
    const res = await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 90 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ now: start + 90 });
    expect((await request(app).get('/__sandbox/clock').set(admin)).body).toEqual({ now: start + 90 });
    const bad = await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });

  it('answers the served document, its servers the base path it is served under', async () => {
    const res = await request(app).get('/__sandbox/document').set(admin);
    expect(res.status).toBe(200);
    expect(res.body.info.title).toBe(sandbox.model.title);
    expect(res.body.servers).toEqual([{ url: '/v1', description: 'This sandbox' }]);
    expect(Object.keys(res.body.paths)).toContain('/pets/{petId}');
  });

  it('issues keys on a plan that the API then accepts', async () => {
    const res = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      key: expect.any(String),
      plan: 'pro',
      id: expect.stringMatching(/^key_/),
      workspace: expect.stringMatching(/^ws_/),
    });
    const used = await request(app).get('/v1/pets?limit=1').set(auth(res.body.key));
    expect(used.status).toBe(200);
    expect(used.headers['x-ratelimit-limit']).toBe('300');
    const bad = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'platinum' });
    expect(bad.status).toBe(400);
  });

  it('resets the store, issued keys and the clock to the seeded state', async () => {
    const digest = await sandbox.store.digest();
    const issued = (await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free' })).body.key as string;
    await request(app).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 1 });
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 3600 });
    const res = await request(app).post('/__sandbox/reset').set(admin);
    expect(res.status).toBe(200);
    expect(res.body.now).toBe(Date.parse(START) / 1000);
    expect(await sandbox.store.digest()).toBe(digest);
    expect((await request(app).get('/v1/pets').set(auth(issued))).status).toBe(401);
  });

  it('keeps a journal of requests that names the key by id, never by value', async () => {
    await request(app).get('/v1/pets?limit=2').set(auth('demo-pro'));
    await request(app).get('/v1/nope').set(auth('demo-pro'));
    const res = await request(app).get('/__sandbox/requests?limit=2').set(admin);
    expect(res.status).toBe(200);
    // Newest first.
    expect(res.body).toMatchObject([
      { method: 'GET', path: '/v1/nope', status: 404, code: 'route_not_found' },
      { method: 'GET', path: '/v1/pets', query: 'limit=2', status: 200, operationId: 'listPets', keyId: expect.stringMatching(/^key_/) },
    ]);
    // Its name is shown (the demo keys are named after their published values); its value nowhere else.
    expect((res.body as { keyName?: string }[])[1]?.keyName).toBe('demo-pro');
    expect(JSON.stringify(res.body, withoutNames)).not.toContain('demo-pro');
  });

  it('answers unknown admin routes with 404 in the Error shape', async () => {
    const res = await request(app).get('/__sandbox/nothing').set(admin);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('route_not_found');
  });

  it('checks the token before it reveals any route: an unknown admin path without it is 401', async () => {
    const res = await request(app).get('/__sandbox/nothing');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('admin_unauthorized');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="understudy-admin"');
  });

  it('answers a wrong method on an admin path with 405 and Allow', async () => {
    const res = await request(app).put('/__sandbox/clock').set(admin).send({ advanceSeconds: 1 });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('method_not_allowed');
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, POST');
  });

  // openapi/admin.yaml is compiled and enforced like the API's own document.
  // prettier-ignore
  it.each([
    ['a limit that is not a whole number', () => request(app).get('/__sandbox/requests?limit=abc'), 400, 'validation_failed', ['query.limit']],
    ['a negative limit', () => request(app).get('/__sandbox/requests?limit=-1'), 400, 'validation_failed', ['query.limit']],
    ['no body', () => request(app).post('/__sandbox/clock').set('content-type', 'application/json'), 400, 'body_required', []],
    ['a body that is not JSON', () => request(app).post('/__sandbox/clock').set('content-type', 'application/json').send('{'), 400, 'malformed_json', []],
    ['a body sent as text', () => request(app).post('/__sandbox/clock').set('content-type', 'text/plain').send('{"advanceSeconds":1}'), 415, 'unsupported_media_type', []],
    ['a move past a century', () => request(app).post('/__sandbox/clock').send({ advanceSeconds: 1e12 }), 400, 'validation_failed', ['body.advanceSeconds']],
    ['a key request without a plan', () => request(app).post('/__sandbox/keys').send({}), 400, 'validation_failed', ['body.plan']],
    ['a plan that is not a string', () => request(app).post('/__sandbox/keys').send({ plan: 7 }), 400, 'validation_failed', ['body.plan']],
  ] as const)('refuses %s with %i %s', async (_, send, status, code, locations) => {
    const res = await send().set(admin);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect((res.body.details ?? []).map((d: { location: string }) => d.location)).toEqual(locations);
  });

  it('inspects a key by value or by id, with its windows, refusals and ban', async () => {
    await request(app).get('/v1/pets?limit=1').set(auth('demo-free'));
    const byValue = await request(app).get('/__sandbox/keys/demo-free').set(admin);
    expect(byValue.status).toBe(200);
    expect(byValue.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      plan: 'free',
      windows: [
        { window: 'minute', limit: 60, used: 1, remaining: 59 },
        { window: 'day', limit: 1000, used: 1, remaining: 999 },
      ],
      refusalsThisMinute: 0,
      bannedUntil: null,
    });
    const byId = await request(app)
      .get(`/__sandbox/keys/${byValue.body.id as string}`)
      .set(admin);
    expect(byId.body).toEqual(byValue.body);
    const missing = await request(app).get('/__sandbox/keys/nobody').set(admin);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('resource_not_found');
  });

  it('lists every key by id with its workspace, origin, windows and ban, and filters by workspace', async () => {
    await request(app).get('/v1/pets?limit=1').set(auth('demo-free'));
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' });
    const res = await request(app).get('/__sandbox/keys').set(admin);
    expect(res.status).toBe(200);
    const ids = (res.body.keys as { id: string }[]).map((k) => k.id);
    expect(ids.at(-1)).toBe(issued.body.id);
    const free = (await request(app).get('/__sandbox/keys/demo-free').set(admin)).body;
    expect(res.body.keys[0]).toEqual({ ...free, workspace: 'default', configured: true });
    expect(res.body.keys.at(-1)).toMatchObject({ plan: 'pro', workspace: issued.body.workspace, configured: false });
    expect(res.body.keys[0].name).toBe('demo-free');
    expect(JSON.stringify(res.body, withoutNames)).not.toContain('demo-free');
    const mine = await request(app)
      .get(`/__sandbox/keys?workspace=${issued.body.workspace as string}`)
      .set(admin);
    expect(mine.body.keys.map((k: { id: string }) => k.id)).toEqual([issued.body.id]);
  });

  it("gives an unused key's windows the reset of the current window, and moves it with the clock", async () => {
    const start = Date.parse(START);
    const minuteEnd = (ms: number): number => (Math.floor(ms / 60_000) + 1) * 60;
    const before = await request(app).get('/__sandbox/keys/demo-pro').set(admin);
    expect(before.body.windows[0].reset).toBe(minuteEnd(start));
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 3600 });
    const after = await request(app).get('/__sandbox/keys/demo-pro').set(admin);
    expect(after.body.windows[0].reset).toBe(minuteEnd(start + 3_600_000));
  });

  it('sets the clock back to its source, leaving a workspace moved on its own where it is', async () => {
    const start = Date.parse(START) / 1000;
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free' });
    const own = `/__sandbox/workspaces/${issued.body.workspace as string}/clock`;
    await request(app).post(own).set(admin).send({ advanceSeconds: 60 });
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 86_400 });
    const res = await request(app).delete('/__sandbox/clock').set(admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ now: start });
    expect((await request(app).get('/__sandbox/clock').set(admin)).body).toEqual({ now: start });
    expect((await request(app).get(own).set(admin)).body).toMatchObject({ now: start + 60 });
  });

  it('reports metrics: requests in flight, memory, uptime and event-loop delay', async () => {
    const res = await request(app).get('/__sandbox/metrics').set(admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      now: Date.parse(START) / 1000,
      uptimeSeconds: expect.any(Number),
      inFlight: 0,
      rssBytes: expect.any(Number),
      heapUsedBytes: expect.any(Number),
      eventLoopDelayMs: { p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) },
    });
  });
});
