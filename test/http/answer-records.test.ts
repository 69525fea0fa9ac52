import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = fileURLToPath(new URL('../documents/search-results.yaml', import.meta.url));

/** A collection answered under another operation's schema keeps that schema (checkResponses is on). */
describe.each(EDGES)('records answered under each operation’s own schema through the $name', ({ make }) => {
  it('fills the required fields an answer needs that the stored records lack, the same on every read', async () => {
    const app = make(await testSandbox({ spec: SPEC, fixtures: null }));
    // The schema requires a readOnly id: required of the answer, not of the request (OpenAPI 3.0.3 §4.7.25).
    const created = await request(app).post('/users').send({ login: 'ada', password: 's3cret-pass' });
    expect(created.status).toBe(201);
    const empty = await request(app).post('/users').send({});
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([{ location: 'body.login', message: 'is required' }]);
    expect(created.body).toEqual({ id: expect.any(Number), login: 'ada' });
    const found = await request(app).get('/search/users');
    expect(found.status).toBe(200);
    const ada = (found.body as { id: number; login: string; score: number }[]).find((u) => u.login === 'ada');
    expect(ada).toEqual({ id: created.body.id, login: 'ada', score: expect.any(Number) });
    const again = await request(app).get('/search/users');
    expect(again.body).toEqual(found.body);
    // The record itself is unchanged: the users list shows it as it was written.
    const users = await request(app).get('/users');
    expect((users.body as Record<string, unknown>[]).find((u) => u.login === 'ada')).toEqual(created.body);
    // The writeOnly password was stored and is never sent back: not on create, read, list or search.
    const read = await request(app).get(`/users/${String(created.body.id)}`);
    expect(read.body).toEqual({ id: created.body.id, login: 'ada' });
    expect(JSON.stringify([created.body, users.body, found.body, read.body])).not.toContain('password');
  });
});
