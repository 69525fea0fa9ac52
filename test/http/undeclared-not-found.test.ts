import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/undeclared-404.yaml', import.meta.url).pathname;

/** A record the store lacks, on operations whose document declares no 404. */
describe.each(EDGES)('a miss where the document declares no 404, through the $name', ({ make }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
  });

  it('reads a stored record statefully, and answers 404 for a record it lacks, declared or not (decision 0015)', async () => {
    const app = make(sandbox);
    const created = await request(app).post('/api/widgets').send({ name: 'gear' });
    expect(created.status).toBe(201);
    const read = await request(app).get(`/api/widgets/${created.body.id as number}`);
    expect(read.body).toEqual({ id: created.body.id, name: 'gear' });
    const missing = await request(app).get('/api/widgets/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'resource_not_found', message: expect.any(String), status: 404 });
    const deleted = await request(app).delete(`/api/widgets/${created.body.id as number}`);
    expect(deleted.status).toBe(204);
    expect((await request(app).delete(`/api/widgets/${created.body.id as number}`)).status).toBe(404);
    expect((await request(app).get(`/api/widgets/${created.body.id as number}`)).status).toBe(404);
  });

  it('stores a PUT to an id the store lacks under that id (PUT creates), and a later create never reuses it', async () => {
    const app = make(sandbox);
    const put = await request(app).put('/api/widgets/500').send({ name: 'cog' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: 500, name: 'cog' });
    expect((await request(app).get('/api/widgets/500')).body).toEqual({ id: 500, name: 'cog' });
    const next = await request(app).post('/api/widgets').send({ name: 'nut' });
    expect(next.status).toBe(201);
    expect(next.body.id).not.toBe(500);
    expect((await request(app).get('/api/widgets/500')).body).toEqual({ id: 500, name: 'cog' });
    const ids = ((await request(app).get('/api/widgets')).body as { id: number }[]).map((w) => w.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});
