import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/parameter-pattern-ids.yaml', import.meta.url).pathname;

/** A record's id property says only `string`; the item path's parameter gives the pattern: minted ids keep it. */
describe('an id whose pattern only the path parameter states', () => {
  it('is minted to that pattern, so the created record reads back', async () => {
    const app = EDGES[0]!.make(await testSandbox({ spec: SPEC, fixtures: null, keys: [] }));
    const created = await request(app).post('/Users').send({ userName: 'ada@example.com' });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^US[0-9a-f]{32}$/);
    const read = await request(app).get(`/Users/${created.body.id as string}`);
    expect([read.status, read.body]).toEqual([200, created.body]);
  });
});
