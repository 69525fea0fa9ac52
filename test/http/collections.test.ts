import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const COLLECTIONS = fileURLToPath(new URL('../documents/answers-collections.yaml', import.meta.url));
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/** Collections the document describes coherently are stateful, and every answer still validates (`checkResponses`). */
describe.each(EDGES)('collections through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox({ spec: COLLECTIONS, fixtures: null });
    app = make(sandbox);
  });
  const api = (path: string): string => `/v3${path}`;

  it('pages inside an envelope: data, next_cursor, total and has_more agree with the store', async () => {
    const first = await request(app).get(api('/notes'));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', next_cursor: '5', total: 10, has_more: true });
    expect(first.body.data.map((n: { id: number }) => n.id)).toEqual([1, 2, 3, 4, 5]);
    expect(first.headers.link).toBe('</v3/notes?cursor=5>; rel="next"');
    const last = await request(app).get(api('/notes?cursor=5&limit=50'));
    expect(last.body).toMatchObject({ next_cursor: null, total: 10, has_more: false });
    expect(last.body.data).toHaveLength(5);
    expect(last.headers.link).toBeUndefined();
  });

  it.each([
    { query: '?limit=0', data: 0, next: null, more: false },
    { query: '?limit=3&cursor=9', data: 1, next: null, more: false },
    { query: '?cursor=oops', status: 400 },
  ])('GET /notes$query', async ({ query, data, next, more, status }) => {
    const res = await request(app).get(api(`/notes${query}`));
    expect(res.status).toBe(status ?? 200);
    if (status !== undefined) return expect(res.body.code).toBe('validation_failed');
    expect(res.body).toMatchObject({ next_cursor: next, has_more: more, total: 10 });
    expect(res.body.data).toHaveLength(data as number);
  });

  it('creates the stored record, filling the server-owned required fields, and reads it back', async () => {
    const created = await request(app).post(api('/notes')).send({ title: 'Groceries' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 11, title: 'Groceries', createdAt: expect.any(String), author: expect.stringMatching(/@/) });
    expect(created.headers.location).toBe('/v3/notes/11');
    expect((await request(app).get(api('/notes/11'))).body).toEqual(created.body);
  });

  it('PUT replaces the writable fields and keeps the server-owned ones', async () => {
    const before = (await request(app).get(api('/notes/2'))).body;
    const res = await request(app).put(api('/notes/2')).send({ title: 'Replaced' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 2, title: 'Replaced', createdAt: before.createdAt, author: before.author });
  });

  it.each([
    { name: 'merge patch sets a field', type: MERGE, body: { pinned: true }, status: 200, expected: { pinned: true } },
    { name: 'merge patch null removes an optional field', type: MERGE, body: { pinned: null }, status: 200, expected: {} },
    { name: 'merge patch cannot remove a required field', type: MERGE, body: { title: null }, status: 400 },
    {
      name: 'merge patch cannot change a read-only field',
      type: MERGE,
      body: { createdAt: '2000-01-01T00:00:00Z' },
      status: 200,
      expected: {},
    },
    {
      name: 'JSON Patch replace',
      type: JSON_PATCH,
      body: [{ op: 'replace', path: '/title', value: 'Patched' }],
      status: 200,
      expected: { title: 'Patched' },
    },
    {
      name: 'JSON Patch failing test changes nothing',
      type: JSON_PATCH,
      body: [
        { op: 'replace', path: '/title', value: 'X' },
        { op: 'test', path: '/title', value: 'Y' },
      ],
      status: 400,
    },
  ])('PATCH: $name → $status', async ({ type, body, status, expected }) => {
    const before = (await request(app).get(api('/notes/3'))).body;
    const digest = await sandbox.store.digest();
    const res = await request(app).patch(api('/notes/3')).set('content-type', type).send(JSON.stringify(body));
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status !== 200) {
      expect(res.body.code).toBe('validation_failed');
      expect(await sandbox.store.digest()).toBe(digest);
      return;
    }
    const { pinned: _pinned, ...rest } = before;
    const base = Object.hasOwn(body as object, 'pinned') && (body as { pinned: unknown }).pinned === null ? rest : before;
    expect(res.body).toEqual({ ...base, ...expected });
    expect((await request(app).get(api('/notes/3'))).body).toEqual(res.body);
  });

  it('DELETE removes: 204 with no body, then 404', async () => {
    const res = await request(app).delete(api('/notes/4'));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await request(app).get(api('/notes/4'))).status).toBe(404);
  });

  it('scopes nested records by their parent: created under user 1, not seen under user 2', async () => {
    const created = await request(app).post(api('/users/1/orders')).send({ item: 'book' });
    expect(created.status).toBe(201);
    const { orderId } = created.body;
    expect(created.body).toEqual({ orderId, item: 'book' });
    expect(created.headers.location).toBe(`/v3/users/1/orders/${orderId}`);
    expect((await request(app).get(api(`/users/1/orders/${orderId}`))).body).toEqual(created.body);
    expect((await request(app).get(api(`/users/2/orders/${orderId}`))).status).toBe(404);
    expect((await request(app).delete(api(`/users/2/orders/${orderId}`))).status).toBe(404);
    const mine = (await request(app).get(api('/users/1/orders'))).body as { orderId: number }[];
    const theirs = (await request(app).get(api('/users/2/orders'))).body as { orderId: number }[];
    expect(mine.map((o) => o.orderId)).toContain(orderId);
    expect(theirs.map((o) => o.orderId)).not.toContain(orderId);
    for (const order of [...mine, ...theirs]) expect(Object.keys(order).sort()).toEqual(['item', 'orderId']);
  });
});
