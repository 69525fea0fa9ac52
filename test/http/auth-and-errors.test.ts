import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

describe.each(EDGES)('authentication through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  const cases = [
    { name: 'no Authorization header', header: undefined, code: 'missing_credentials', challenge: 'Bearer realm="understudy"' },
    { name: 'an empty header', header: '', code: 'missing_credentials', challenge: 'Bearer realm="understudy"' },
    { name: 'the Basic scheme', header: 'Basic ZGVtbzpkZW1v', code: 'malformed_credentials', challenge: 'error="invalid_request"' },
    { name: 'Bearer with no token', header: 'Bearer', code: 'malformed_credentials', challenge: 'error="invalid_request"' },
    { name: 'a token with spaces', header: 'Bearer demo free', code: 'malformed_credentials', challenge: 'error="invalid_request"' },
    { name: 'an unknown key', header: 'Bearer not-a-key', code: 'invalid_api_key', challenge: 'error="invalid_token"' },
    { name: 'a key differing in case', header: 'Bearer DEMO-FREE', code: 'invalid_api_key', challenge: 'error="invalid_token"' },
  ] as const;

  it.each(cases)('answers 401 $code for $name, with a Bearer challenge', async ({ header, code, challenge }) => {
    const req = request(app).get('/v1/pets');
    const res = header === undefined ? await req : await req.set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code, message: expect.any(String), status: 401 });
    expect(res.headers['www-authenticate']).toContain(challenge);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="understudy"/);
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme spelled %s', async (scheme) => {
    const res = await request(app).get('/v1/pets?limit=1').set('Authorization', `${scheme} demo-free`);
    expect(res.status).toBe(200);
  });

  it('authenticates before validating: a bad body without a key gets 401, and stores nothing', async () => {
    const before = await sandbox.store.digest();
    const res = await request(app).post('/v1/pets').set('Content-Type', 'application/json').send('{not json');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('missing_credentials');
    expect(await sandbox.store.digest()).toBe(before);
  });
});

describe.each(EDGES)('errors in the API shape through the $name', ({ make }) => {
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    app = make(await testSandbox());
  });

  // `near`: the nearest documented operations a miss names in `details` (none when nothing is close).
  const PET = 'GET /v1/pets/{petId}';
  const PETS = ['GET /v1/pets', 'POST /v1/pets'];
  // prettier-ignore
  const rows = [
    { method: 'get', url: '/v1/unicorns', status: 404, code: 'route_not_found', near: [] },
    { method: 'get', url: '/v1/pets/1/owner', status: 404, code: 'route_not_found', near: [PET] },
    { method: 'get', url: '/v1/pets/', status: 404, code: 'route_not_found', near: PETS },
    { method: 'get', url: '/v1/pet/1', status: 404, code: 'route_not_found', near: [PET] },
    { method: 'get', url: '/', status: 404, code: 'route_not_found', near: [] },
    { method: 'get', url: '/v2/pets', status: 404, code: 'route_not_found', near: PETS },
    { method: 'get', url: '/favicon.ico', status: 404, code: 'route_not_found', near: [] },
    { method: 'delete', url: '/v1/pets', status: 405, code: 'method_not_allowed', allow: 'GET, HEAD, POST', near: PETS },
    { method: 'put', url: '/v1/pets/1', status: 405, code: 'method_not_allowed', allow: 'GET, HEAD', near: [PET] },
    { method: 'post', url: '/v1/store/orders', status: 405, code: 'method_not_allowed', allow: 'GET, HEAD', near: ['GET /v1/store/orders'] },
  ] as const;

  it.each(rows)('$method $url → $status $code', async (row) => {
    const res = await request(app)[row.method](row.url).set(auth());
    expect(res.status).toBe(row.status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const details = row.near.map((message) => ({ location: 'path', message }));
    expect(res.body).toEqual({ code: row.code, message: expect.any(String), status: row.status, ...(details.length > 0 && { details }) });
    expect(res.headers['x-powered-by']).toBeUndefined();
    if ('allow' in row) expect(res.headers.allow).toBe(row.allow);
  });

  it('never sends X-Powered-By or an HTML page', async () => {
    for (const url of ['/v1/pets', '/nope', '/v1/pets/abc']) {
      const res = await request(app).get(url).set(auth());
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.text).not.toMatch(/<html|<!DOCTYPE/i);
    }
  });
});

describe.each(EDGES)('CORS through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  it('answers a preflight without a key and without using quota', async () => {
    const res = await request(app)
      .options('/v1/pets')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST');
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    const after = await request(app).get('/v1/pets?limit=1').set(auth('demo-free'));
    expect(after.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('exposes the rate-limit, paging and lifecycle headers to scripts', async () => {
    const res = await request(app).get('/v1/pets/1').set(auth()).set('Origin', 'http://localhost:5173');
    const exposed = String(res.headers['access-control-expose-headers']).split(', ');
    for (const header of [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'Link',
      'Location',
      'Deprecation',
      'Sunset',
      'X-Sandbox-Error',
    ]) {
      expect(exposed).toContain(header);
    }
  });

  it('allows only the configured origins when a list is given', async () => {
    const strict = make(await testSandbox({ cors: { origins: ['https://app.example'] } }));
    const good = await request(strict).get('/v1/pets?limit=1').set(auth()).set('Origin', 'https://app.example');
    expect(good.headers['access-control-allow-origin']).toBe('https://app.example');
    const bad = await request(strict).get('/v1/pets?limit=1').set(auth()).set('Origin', 'https://evil.example');
    expect(bad.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe.each(EDGES)('overlong request targets through the $name', ({ make }) => {
  it('answers 414 uri_too_long in the Error shape', async () => {
    const app = make(await testSandbox());
    const res = await request(app)
      .get(`/v1/pets?status=${'a'.repeat(9000)}`)
      .set(auth());
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ code: 'uri_too_long', message: expect.any(String), status: 414 });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });
});
