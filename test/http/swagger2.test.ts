import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
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
    // 2.0 requires `responses`; an operation without is answered as in OpenAPI 3.1: 204, no body
    // (the converter's invented bare `default` would have made it a 200).
    const ping = await request(app).get('/ping');
    expect(ping.status).toBe(204);
    expect(ping.text).toBe('');
  });
});

describe('a Swagger 2.0 document with what the converter cannot carry over', () => {
  it('starts, reporting each warning at its place in the 2.0 file, and serves', async () => {
    const warnings: string[] = [];
    const config = checkConfig({
      ...DEFAULT_CONFIG,
      spec: 'test/documents/swagger2-located.yaml',
      fixtures: null,
      log: { level: 'silent', format: 'json' },
    });
    const sandbox = await createSandbox(config, { onProgress: (e) => e.phase === 'warning' && warnings.push(e.message) });
    expect(warnings).toEqual(
      expect.arrayContaining([
        '#/paths/~1pets/post/parameters/1: collectionFormat:tsv is no longer supported',
        '#/responses/Problem/headers/X-Codes: collectionFormat:ssv is no longer supported for headers',
      ]),
    );
    // Warnings found after loading (unchecked schemes, invalid examples) name the 2.0 file too.
    expect(sandbox.model.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^#\/securityDefinitions\/client cert: /),
        expect.stringMatching(/^#\/paths\/~1pets\/get\/responses\/200\/examples\/application~1json: /),
        expect.stringMatching(/^#\/definitions\/Pet Item\/properties\/name\/example: /),
      ]),
    );
    const app = EDGES[0]!.make(sandbox);
    expect((await request(app).get('/v1/ping')).status).toBe(204);
    expect((await request(app).get('/v1/pets')).status).toBe(200);
  });
});
