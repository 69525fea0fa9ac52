import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

interface Row {
  readonly name: string;
  readonly method: 'get' | 'post';
  readonly url: string;
  readonly body?: string;
  readonly type?: string;
  readonly status: number;
  readonly code: string;
  /** Locations the 400's details must name, exactly. */
  readonly locations?: readonly string[];
}

const JSON_TYPE = 'application/json';

/** One row per request: what is sent, and the status, code and violated locations expected. */
// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'limit above the maximum', method: 'get', url: '/v1/pets?limit=101', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit below the minimum', method: 'get', url: '/v1/pets?limit=0', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit in exponent form', method: 'get', url: '/v1/pets?limit=1e3', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit in hex', method: 'get', url: '/v1/pets?limit=0x10', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit with a fraction', method: 'get', url: '/v1/pets?limit=1.5', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit with a leading blank', method: 'get', url: '/v1/pets?limit=%201', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit Infinity', method: 'get', url: '/v1/pets?limit=Infinity', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit empty', method: 'get', url: '/v1/pets?limit=', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'limit given twice', method: 'get', url: '/v1/pets?limit=5&limit=6', status: 400, code: 'validation_failed', locations: ['query.limit'] },
  { name: 'unknown status', method: 'get', url: '/v1/pets?status=lost', status: 400, code: 'validation_failed', locations: ['query.status'] },
  { name: 'every query violation at once', method: 'get', url: '/v1/pets?status=lost&limit=500&after=x', status: 400, code: 'validation_failed', locations: ['query.limit', 'query.status', 'query.after'] },
  { name: 'broken percent-encoding in the query', method: 'get', url: '/v1/pets?status=%E0%A4%A', status: 400, code: 'malformed_request' },
  { name: 'petId not an integer', method: 'get', url: '/v1/pets/abc', status: 400, code: 'validation_failed', locations: ['path.petId'] },
  { name: 'petId past 2^53', method: 'get', url: '/v1/pets/9007199254740993', status: 400, code: 'validation_failed', locations: ['path.petId'] },
  { name: 'petId zero (minimum 1)', method: 'get', url: '/v1/pets/0', status: 400, code: 'validation_failed', locations: ['path.petId'] },
  { name: 'petId with broken percent-encoding', method: 'get', url: '/v1/pets/%E0%A4%A', status: 400, code: 'invalid_path_encoding' },
  { name: 'missing name and categoryId', method: 'post', url: '/v1/pets', body: '{}', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body.name', 'body.categoryId'] },
  { name: 'wrong types and an unknown status', method: 'post', url: '/v1/pets', body: '{"name":5,"categoryId":"1","status":"lost"}', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body.name', 'body.categoryId', 'body.status'] },
  { name: 'categoryId past 2^53', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":9007199254740993}', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body.categoryId'] },
  { name: 'categoryId past the double range (1e400)', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1e400}', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body.categoryId'] },
  { name: 'categoryId a fraction', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1.5}', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body.categoryId'] },
  { name: 'body an array', method: 'post', url: '/v1/pets', body: '[]', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body'] },
  { name: 'body a string', method: 'post', url: '/v1/pets', body: '"Rex"', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body'] },
  { name: 'body null', method: 'post', url: '/v1/pets', body: 'null', type: JSON_TYPE, status: 400, code: 'validation_failed', locations: ['body'] },
  { name: 'empty body', method: 'post', url: '/v1/pets', body: '', type: JSON_TYPE, status: 400, code: 'body_required' },
  { name: 'truncated JSON', method: 'post', url: '/v1/pets', body: '{"name":"Rex",', type: JSON_TYPE, status: 400, code: 'malformed_json' },
  { name: 'JSON with a trailing comma', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1,}', type: JSON_TYPE, status: 400, code: 'malformed_json' },
  { name: 'single-quoted JSON', method: 'post', url: '/v1/pets', body: "{'name':'Rex'}", type: JSON_TYPE, status: 400, code: 'malformed_json' },
  { name: 'text/plain body', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1}', type: 'text/plain', status: 415, code: 'unsupported_media_type' },
  { name: 'form body', method: 'post', url: '/v1/pets', body: 'name=Rex&categoryId=1', type: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type' },
  { name: 'JSON in latin-1', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1}', type: 'application/json; charset=iso-8859-1', status: 415, code: 'unsupported_media_type' },
  { name: 'a valid create', method: 'post', url: '/v1/pets', body: '{"name":"Rex","categoryId":1}', type: 'application/json; charset=UTF-8', status: 201, code: '' },
  { name: 'a valid list with every parameter', method: 'get', url: '/v1/pets?limit=100&status=sold&after=0', status: 200, code: '' },
];

describe.each(EDGES)('request validation through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  it.each(ROWS)('$name → $status $code', async (row) => {
    const before = await sandbox.store.digest();
    let req = request(app)[row.method](row.url).set(auth());
    if (row.type !== undefined) req = req.set('Content-Type', row.type);
    const res = row.body === undefined ? await req : await req.send(row.body);
    expect(res.status).toBe(row.status);
    if (row.status >= 400) {
      expect(res.body).toMatchObject({ code: row.code, status: row.status, message: expect.any(String) });
      expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
      expect(await sandbox.store.digest()).toBe(before);
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    }
    if (row.locations) {
      const locations = (res.body.details as { location: string }[]).map((d) => d.location);
      expect([...new Set(locations)].sort()).toEqual([...row.locations].sort());
      for (const location of row.locations) expect(res.body.message).toContain(location);
    }
  });

  it('refuses a body over the size limit with 413 and stores nothing', async () => {
    const small = await testSandbox({ bodyLimit: 1024 });
    const before = await small.store.digest();
    const res = await request(make(small))
      .post('/v1/pets')
      .set(auth())
      .set('Content-Type', JSON_TYPE)
      .send(JSON.stringify({ name: 'x'.repeat(2000), categoryId: 1 }));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(await small.store.digest()).toBe(before);
  });

  it('uses the default page size of 20 when limit is absent', async () => {
    const res = await request(app).get('/v1/pets').set(auth());
    expect(res.body).toHaveLength(20);
  });
});

describe('unknown query parameters', () => {
  it('are ignored by default', async () => {
    const res = await request(EDGES[0]!.make(await testSandbox()))
      .get('/v1/pets?stauts=sold')
      .set(auth());
    expect(res.status).toBe(200);
  });

  it('are refused when validation.unknownQueryParameters is reject', async () => {
    const sandbox = await testSandbox({ validation: { unknownQueryParameters: 'reject', checkResponses: true } });
    const res = await request(EDGES[0]!.make(sandbox)).get('/v1/pets?stauts=sold').set(auth());
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ location: 'query.stauts', message: 'is not a parameter of this operation' }]);
  });
});
