import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/classic-shop.yaml', import.meta.url).pathname;

type App = ReturnType<(typeof EDGES)[number]['make']>;
type Animal = { id: number; name: string; status?: string; tags?: string[]; photoUrls: string[] };

/** One store, many views: search paths, a collection-path PUT, actions on a record, as the classic pet shop declares them. */
describe.each(EDGES)('the classic shop through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: App;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
    app = make(sandbox);
  });
  const get = (path: string) => request(app).get(`/api/v3${path}`).set(auth());

  it('search views list the very records the item path reads', async () => {
    const all = (await get('/animal/findByStatus')).body as Animal[];
    expect(all.length).toBe(10);
    for (const animal of all) expect((await get(`/animal/${animal.id}`)).body).toEqual(animal);
    const sold = (await get('/animal/findByStatus?status=sold')).body as Animal[];
    expect(sold.every((a) => a.status === 'sold')).toBe(true);
    expect(sold).toEqual(all.filter((a) => a.status === 'sold'));
  });

  it('a created record shows in the search views, a PUT on the collection path replaces it by the id in its body', async () => {
    const created = await request(app)
      .post('/api/v3/animal')
      .set(auth())
      .send({ name: 'Rex', photoUrls: [], tags: ['good-boy'], status: 'pending' });
    expect(created.status).toBe(200);
    const id = created.body.id as number;
    expect((await get('/animal/findByTags?tags=good-boy')).body).toEqual([created.body]);
    expect(((await get('/animal/findByStatus?status=pending')).body as Animal[]).map((a) => a.id)).toContain(id);
    const put = await request(app)
      .put('/api/v3/animal')
      .set(auth())
      .send({ id, name: 'Rex II', photoUrls: ['x'], status: 'sold' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id, name: 'Rex II', photoUrls: ['x'], status: 'sold' });
    expect((await get(`/animal/${id}`)).body).toEqual(put.body);
    const missing = await request(app).put('/api/v3/animal').set(auth()).send({ id: 999999, name: 'Nobody', photoUrls: [] });
    expect(missing.status).toBe(404);
  });

  it('a POST on the item path applies the fields its query names, and answers the stored record', async () => {
    const before = (await get('/animal/3')).body as Animal;
    const applied = await request(app).post('/api/v3/animal/3?name=Biscuit&status=sold').set(auth());
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ ...before, name: 'Biscuit', status: 'sold' });
    expect((await get('/animal/3')).body).toEqual(applied.body);
    expect((await request(app).post('/api/v3/animal/999999?name=x').set(auth())).status).toBe(404);
  });

  it('an action verb sets the state it names: /cancel sets status cancelled', async () => {
    const placed = await request(app).post('/api/v3/shop/purchase').set(auth()).send({ animalId: 1, quantity: 2, status: 'placed' });
    const id = placed.body.id as number;
    const cancelled = await request(app).post(`/api/v3/shop/purchase/${id}/cancel`).set(auth());
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ ...placed.body, status: 'cancelled' });
    expect((await get(`/shop/purchase/${id}`)).body.status).toBe('cancelled');
  });

  it('a deleted record is gone from every view', async () => {
    const all = (await get('/animal/findByStatus')).body as Animal[];
    const victim = all[0] as Animal;
    expect((await request(app).delete(`/api/v3/animal/${victim.id}`).set(auth())).status).toBe(200);
    expect((await get(`/animal/${victim.id}`)).status).toBe(404);
    expect(((await get('/animal/findByStatus')).body as Animal[]).map((a) => a.id)).not.toContain(victim.id);
  });

  it('a customer is named by the username it was created with', async () => {
    const made = await request(app).post('/api/v3/customer').set(auth()).send({ id: 5, username: 'theUser', email: 'a@b.c' });
    expect(made.status).toBe(200);
    expect((await get('/customer/theUser')).body).toEqual(made.body);
    expect((await request(app).post('/api/v3/customer').set(auth()).send({ username: 'theUser' })).status).toBe(409);
  });
});

describe('what the classic shop leaves to the document', () => {
  it('a delete declaring only a failure deletes nothing', async () => {
    const app = EDGES[0]?.make(await testSandbox({ spec: SPEC, fixtures: null })) as App;
    const res = await request(app).delete('/api/v3/shop/purchase/1').set(auth());
    expect(res.status).toBe(400);
    expect((await request(app).get('/api/v3/shop/purchase/1').set(auth())).status).toBe(200);
  });
});
