import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/sibling-collections.yaml', import.meta.url).pathname;

/**
 * `/matches/past` and `/series/past` end alike but list records of two closed schemas: two
 * collections, each answering records of its own schema (checkResponses is on: a match with a
 * series' fields would be a 500).
 */
describe('two list paths that end alike, with records of their own', () => {
  it('are two collections, each answering its own records', async () => {
    const app = EDGES[0]!.make(await testSandbox({ spec: SPEC, fixtures: null, keys: [] }));
    const matches = await request(app).get('/matches/past');
    const series = await request(app).get('/series/past');
    expect([matches.status, series.status]).toEqual([200, 200]);
    expect(matches.body.length).toBeGreaterThan(0);
    for (const match of matches.body as object[]) expect(Object.keys(match).every((k) => ['id', 'venue', 'score'].includes(k))).toBe(true);
    for (const one of series.body as object[]) expect(Object.keys(one).every((k) => ['id', 'name', 'season'].includes(k))).toBe(true);
    const model = await request(app).get('/__sandbox/model').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(model.body.collections.map((c: { name: string }) => c.name)).toEqual(['past', 'series/past', 'dialogs']);
  });

  it('a closed view of a collection shows only its own fields of a record written through a wider one', async () => {
    const app = EDGES[0]!.make(await testSandbox({ spec: SPEC, fixtures: null, keys: [] }));
    const made = await request(app).post('/serviceowner/dialogs').send({ title: 'Tax return', deletedAt: '2026-11-28T10:00:00Z' });
    expect(made.status).toBe(201);
    const mine = ((await request(app).get('/enduser/dialogs')).body as { id: number }[]).find((d) => d.id === made.body.id);
    expect(mine).toEqual({ id: made.body.id, title: 'Tax return' });
    const owned = ((await request(app).get('/serviceowner/dialogs')).body as { id: number }[]).find((d) => d.id === made.body.id);
    expect(owned).toEqual(made.body);
  });
});
