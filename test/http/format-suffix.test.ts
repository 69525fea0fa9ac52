import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/format-suffix.yaml', import.meta.url).pathname;
const ACCOUNT = `AC${'0'.repeat(32)}`;

/**
 * `/Queues.json` and `/Queues/{Sid}.json` (Twilio's paths) are a collection and its item: the
 * format suffix is not part of the path's shape, and `{Sid}` names the record's `sid`.
 */
describe('a collection whose paths end in a format suffix', () => {
  it('remembers: a created queue reads back by its sid, then is deleted', async () => {
    const app = EDGES[0]!.make(await testSandbox({ spec: SPEC, fixtures: null, keys: [] }));
    const base = `/Accounts/${ACCOUNT}/Queues`;
    const created = await request(app).post(`${base}.json`).type('form').send('FriendlyName=support&MaxSize=10');
    expect(created.status).toBe(201);
    const sid = created.body.sid as string;
    expect(sid).toMatch(/^QU[0-9a-f]{32}$/);
    const read = await request(app).get(`${base}/${sid}.json`);
    expect([read.status, read.body]).toEqual([200, created.body]);
    expect(((await request(app).get(`${base}.json`)).body.queues as { sid: string }[]).map((q) => q.sid)).toContain(sid);
    expect((await request(app).delete(`${base}/${sid}.json`)).status).toBe(204);
    expect((await request(app).get(`${base}/${sid}.json`)).status).toBe(404);
  });
});
