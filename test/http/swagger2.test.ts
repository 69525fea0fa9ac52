import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const KEY = { 'X-Api-Key': 'demo-free' };

/** A Swagger 2.0 document served through HTTP, with every answer checked against the document. */
describe.each(EDGES)('Swagger 2.0 document ($name)', (edge) => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await testSandbox({ spec: 'test/documents/swagger2-shop.yaml', fixtures: null });
  });
  const app = () => edge.make(sandbox);

  it.each([
    // basePath, apiKey in a header and in the query (securityDefinitions)
    ['GET', '/api/v2/items', 200, undefined, KEY, undefined],
    ['GET', '/api/v2/items?api_key=demo-free', 200, undefined, {}, undefined],
    ['GET', '/api/v2/items', 401, undefined, {}, undefined],
    ['GET', '/items', 404, undefined, KEY, undefined],
    // collectionFormat: each item is validated where the format split it
    ['GET', '/api/v2/items?tags=ab,long', 400, 'query.tags[1]', KEY, undefined],
    ['GET', '/api/v2/items?words=ab%20long', 400, 'query.words[1]', KEY, undefined],
    ['GET', '/api/v2/items?codes=1|x', 400, 'query.codes', KEY, undefined],
    ['GET', '/api/v2/items?ids=1&ids=300', 400, 'query.ids[1]', KEY, undefined],
    ['GET', '/api/v2/items?tags=ab,cd&words=ab%20cd&codes=1|2&ids=1&ids=2', 200, undefined, KEY, undefined],
    // in: body
    ['POST', '/api/v2/items', 400, 'body.name', KEY, { name: '' }],
    ['POST', '/api/v2/items', 400, 'body.name', KEY, {}],
    // x-nullable: null where the document allows it, and only there
    ['POST', '/api/v2/items', 201, undefined, KEY, { name: 'Pot', note: null }],
    ['POST', '/api/v2/items', 400, 'body.name', KEY, { name: null }],
    // a path parameter declared on the path item
    ['GET', '/api/v2/items/0', 400, 'path.itemId', KEY, undefined],
  ] as const)('%s %s → %i %s', async (method, url, status, location, headers, body) => {
    let req = request(app())[method === 'GET' ? 'get' : 'post'](url).set(headers);
    if (body !== undefined) req = req.send(body);
    const res = await req;
    expect(res.status).toBe(status);
    if (location) expect(res.body).toMatchObject({ code: 'validation_failed', status: 400, details: [{ location }] });
  });

  it('keeps what a create sends where x-nullable allows null', async () => {
    const res = await request(app()).post('/api/v2/items').set(KEY).send({ name: 'Pot', note: null });
    expect(res.body).toMatchObject({ name: 'Pot', note: null });
  });

  it('answers a produces type other than JSON with that type', async () => {
    const res = await request(app()).get('/api/v2/export').set(KEY);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
  });
});

describe('an operation with no responses (allowed by OpenAPI 3.1 §4.8.10)', () => {
  it('starts, and answers 204 with no body; 3.1 ignores `nullable`', async () => {
    const sandbox = await testSandbox({ spec: 'test/documents/openapi31-no-responses.yaml', fixtures: null });
    const app = EDGES[0]!.make(sandbox);
    const ping = await request(app).post('/ping');
    expect(ping.status).toBe(204);
    expect(ping.text).toBe('');
    const thing = await request(app).get('/thing');
    expect(thing.status).toBe(200);
    expect(typeof thing.body.label).toBe('string');
  });
});

describe('a Swagger 2.0 document with basic and oauth2 security', () => {
  it('starts, and refuses a request with no credentials', async () => {
    const sandbox = await testSandbox({ spec: 'test/documents/swagger2-auth.yaml', fixtures: null });
    const app = EDGES[0]!.make(sandbox);
    expect((await request(app).get('/things')).status).toBe(401);
    // 2.0 requires `responses`; for an operation without, the converter adds a bare `default`,
    // which the sandbox answers 200 with no body (an OpenAPI 3.x document without any gets 204).
    const ping = await request(app).get('/ping');
    expect(ping.status).toBe(200);
    expect(ping.text).toBe('');
  });
});
