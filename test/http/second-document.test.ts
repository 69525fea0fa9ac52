import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const LIBRARY = fileURLToPath(new URL('../documents/library.yaml', import.meta.url));
const key = { 'X-Api-Key': 'demo-pro' };

/** No operation is hard-coded: another document, with other names and conventions, just works. */
describe.each(EDGES)('a second document (OpenAPI 3.0, no extensions) through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox({ spec: LIBRARY, fixtures: null });
    app = make(sandbox);
  });

  it('takes its base path from the first server and its key from the apiKey header', async () => {
    const res = await request(app).get('/api/v2/books').set(key);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(10);
    expect(res.headers['x-ratelimit-limit']).toBe('300');
    const missing = await request(app).get('/api/v2/books');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('missing_credentials');
  });

  it('infers list, create, read and delete from REST conventions', async () => {
    const created = await request(app)
      .post('/api/v2/books')
      .set(key)
      .send({ title: 'Dune', genre: 'novel', available: true, subtitle: null });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 11, title: 'Dune', genre: 'novel' });
    expect(created.headers.location).toBe('/api/v2/books/11');
    expect((await request(app).get('/api/v2/books/11').set(key)).body.title).toBe('Dune');
    expect((await request(app).get('/api/v2/books?genre=novel&available=true&after=10').set(key)).body).toEqual([created.body]);
    expect((await request(app).delete('/api/v2/books/11').set(key)).status).toBe(204);
    expect((await request(app).get('/api/v2/books/11').set(key)).status).toBe(404);
  });

  it('validates by the 3.0 dialect: nullable, additionalProperties, boolean query text', async () => {
    const res = await request(app).post('/api/v2/books').set(key).send({ title: '', genre: 'comic', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { location: string }) => d.location).sort()).toEqual(['body.extra', 'body.genre', 'body.title']);
    const bool = await request(app).get('/api/v2/books?available=yes').set(key);
    expect(bool.status).toBe(400);
    expect(bool.body.details).toEqual([{ location: 'query.available', message: 'must be true or false' }]);
  });

  it('answers an operation with no state behind it from its schema, the same way every time, with no key', async () => {
    const first = await request(app).get('/api/v2/stats');
    const second = await request(app).get('/api/v2/stats');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      books: expect.any(Number),
      members: expect.any(Number),
      opened: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(second.body).toEqual(first.body);
  });

  it('counts a public operation against the key it is sent, and against the address without one', async () => {
    const anonymous = await request(app).get('/api/v2/stats');
    expect(anonymous.headers['x-ratelimit-limit']).toBe('60');
    const keyed = await request(app).get('/api/v2/stats').set(key);
    expect(keyed.status).toBe(200);
    expect(keyed.headers['x-ratelimit-limit']).toBe('300');
  });
});
