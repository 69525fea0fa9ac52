import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, auth, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/any-ids.yaml', import.meta.url).pathname;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type App = ReturnType<(typeof EDGES)[number]['make']>;

/** Collections whose records are named by UUIDs, prefixed strings, usernames and slugs remember, as whole-number ones do. */
describe.each(EDGES)('any ids through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: App;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
    app = make(sandbox);
  });
  const get = (path: string) => request(app).get(path).set(auth());
  const post = (path: string, body: object) => request(app).post(path).set(auth()).send(body);

  it('UUIDs: create, read back equal, listed, filtered, patched, deleted, then 404', async () => {
    const sent = { trip_id: 'b2e783e1-c824-4d63-b37a-d8d698862f1d', passenger_name: 'Ada Byron', has_dog: false };
    const created = await post('/bookings', sent);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID), ...sent });
    const id = created.body.id as string;
    expect(created.headers.location).toBe(`/bookings/${id}`);
    expect((await get(`/bookings/${id}`)).body).toEqual(created.body);
    const listed = (await get('/bookings?limit=100')).body as { id: string }[];
    expect(listed.filter((b) => b.id === id)).toEqual([created.body]);
    expect((await get('/bookings?passenger_name=Ada%20Byron')).body).toEqual([created.body]);
    const patched = await request(app).patch(`/bookings/${id}`).set(auth()).send({ has_dog: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, has_dog: true });
    expect((await get(`/bookings/${id}`)).body).toEqual({ ...created.body, has_dog: true });
    expect((await request(app).delete(`/bookings/${id}`).set(auth())).status).toBe(204);
    const gone = await get(`/bookings/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'resource_not_found' });
    expect((await request(app).delete(`/bookings/${id}`).set(auth())).status).toBe(404);
  });

  it('UUIDs: two creates never share an id, and a never-created id is a 404', async () => {
    const body = { trip_id: 'b2e783e1-c824-4d63-b37a-d8d698862f1d', passenger_name: 'Twin', has_dog: true };
    const [one, two] = await Promise.all([post('/bookings', body), post('/bookings', body)]);
    expect(one.body.id).not.toBe(two.body.id);
    expect((await get('/bookings/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('seeded records are read by the ids their list shows', async () => {
    const listed = (await get('/bookings?limit=3')).body as { id: string }[];
    expect(listed).toHaveLength(3);
    for (const booking of listed) {
      expect(booking.id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await get(`/bookings/${booking.id}`)).body).toEqual(booking);
    }
  });

  it('prefixed ids: minted with the prefix the examples share, in an envelope list', async () => {
    const created = await post('/customers', { email: 'grace@example.com', tier: 'gold' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^cus_[A-Za-z0-9]{14}$/),
      object: 'customer',
      email: 'grace@example.com',
    });
    const id = created.body.id as string;
    expect((await get(`/customers/${id}`)).body).toEqual(created.body);
    const gold = (await get('/customers?tier=gold&limit=100')).body as { object: string; data: { id: string }[] };
    expect(gold.object).toBe('list');
    expect(gold.data.map((c) => c.id)).toContain(id);
    const seeded = (await get('/customers?limit=2')).body as { data: { id: string }[] };
    for (const c of seeded.data) expect(c.id).toMatch(/^cus_/);
    // Stripe's way to update: a POST on the item path with the fields to set.
    const updated = await post(`/customers/${id}`, { name: 'Grace Hopper', tier: 'basic' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, name: 'Grace Hopper', tier: 'basic' });
    expect((await get(`/customers/${id}`)).body).toEqual(updated.body);
  });

  it('client-named ids: the username sent is kept, a second create with it is a 409, PUT and DELETE act on it', async () => {
    const created = await post('/user', { username: 'ada', email: 'ada@example.com', password: 'secret' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ username: 'ada', email: 'ada@example.com' });
    expect((await get('/user/ada')).body).toEqual({ username: 'ada', email: 'ada@example.com' });
    const again = await post('/user', { username: 'ada', email: 'other@example.com' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'resource_exists' });
    expect((await get('/user/ada')).body.email).toBe('ada@example.com');
    const put = await request(app).put('/user/ada').set(auth()).send({ username: 'ada', email: 'new@example.com' });
    expect(put.status).toBe(200);
    expect((await get('/user/ada')).body).toEqual({ username: 'ada', email: 'new@example.com' });
    expect((await request(app).delete('/user/ada').set(auth())).status).toBe(200);
    expect((await get('/user/ada')).status).toBe(404);
    expect((await request(app).put('/user/ada').set(auth()).send({ username: 'ada' })).status).toBe(404);
  });

  it('a record named by its username keeps an `id` of its own, through a create, a read and a replace', async () => {
    const created = await post('/user', { id: 7, username: 'lin', email: 'lin@example.com' });
    expect(created.body).toEqual({ id: 7, username: 'lin', email: 'lin@example.com' });
    expect((await get('/user/lin')).body).toEqual(created.body);
    const put = await request(app).put('/user/lin').set(auth()).send({ id: 8, username: 'lin', email: 'new@example.com' });
    expect(put.body).toEqual({ id: 8, username: 'lin', email: 'new@example.com' });
    expect((await get('/user/lin')).body).toEqual(put.body);
  });

  it('a create that names no id of a client-named collection gets a minted one, within the lengths', async () => {
    const created = await post('/user', { email: 'anon@example.com' });
    expect(created.status).toBe(200);
    const name = created.body.username as string;
    expect(name.length).toBeGreaterThanOrEqual(3);
    expect(name.length).toBeLessThanOrEqual(20);
    expect((await get(`/user/${encodeURIComponent(name)}`)).body).toEqual(created.body);
  });

  it('slugs: made from the title (numbered when taken), read back, and an array field filters by membership', async () => {
    const created = await post('/articles', { title: 'Hello world', tags: ['intro', 'news'] });
    expect(created.status).toBe(201);
    const slug = created.body.slug as string;
    expect(slug).toBe('hello-world');
    const second = await post('/articles', { title: 'Hello, World!' });
    expect(second.body.slug).toMatch(/^hello-world-\d+$/);
    expect((await get(`/articles/${slug}`)).body).toEqual(created.body);
    const tagged = (await get('/articles?tags=news')).body as { slug: string; tags: string[] }[];
    expect(tagged.map((a) => a.slug)).toContain(slug);
    for (const a of tagged) expect(a.tags).toContain('news');
  });

  it('{team_slug} names a team by its slug, made from its name; its own numeric id is kept beside it', async () => {
    const created = await post('/teams', { name: 'Core Team' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), slug: 'core-team', name: 'Core Team' });
    expect((await get('/teams/core-team')).body).toEqual(created.body);
    expect((await get('/teams/core-team')).body).toEqual(created.body);
  });

  it('records wrapped in one property (`{"shipment": {…}}`): written and answered inside it', async () => {
    const created = await post('/shipments', { shipment: { carrier: 'UPS', weight: 2.5 } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ shipment: { id: expect.stringMatching(/^shp_[a-z0-9]{10}$/), carrier: 'UPS', weight: 2.5 } });
    const id = created.body.shipment.id as string;
    expect((await get(`/shipments/${id}`)).body).toEqual(created.body);
    const listed = (await get('/shipments')).body as { shipments: { id: string }[] };
    expect(listed.shipments.filter((s) => s.id === id)).toEqual([created.body.shipment]);
  });

  it('nested under a keyed parent: a post is listed and read under its user only', async () => {
    expect((await post('/user', { username: 'grace' })).status).toBe(200);
    expect((await post('/user', { username: 'alan' })).status).toBe(200);
    const created = await post('/user/grace/posts', { text: 'first' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(id).toMatch(UUID);
    expect(created.headers.location).toBe(`/user/grace/posts/${id}`);
    expect((await get(`/user/grace/posts/${id}`)).body).toEqual(created.body);
    expect((await get('/user/grace/posts')).body).toEqual([created.body]);
    expect((await get('/user/alan/posts')).body).toEqual([]);
    expect((await get(`/user/alan/posts/${id}`)).status).toBe(404);
  });
});

describe('GET /__sandbox/model', () => {
  it('lists each collection with its id kind, and the undeclared 404s', async () => {
    const sandbox = await testSandbox({ spec: SPEC, fixtures: null });
    const res = await request(EDGES[0]?.make(sandbox) as App)
      .get('/__sandbox/model')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(200);
    const customers = (res.body as { collections: { name: string }[] }).collections.find((c) => c.name === 'customers');
    expect(customers).toEqual({
      name: 'customers',
      scope: [],
      idProperty: 'id',
      idKind: 'string',
      ids: 'a minted string prefixed cus_',
      views: [
        { operationId: 'listCustomers', method: 'GET', path: '/customers', action: 'list' },
        { operationId: 'createCustomer', method: 'POST', path: '/customers', action: 'create' },
        { operationId: 'getCustomer', method: 'GET', path: '/customers/{customer}', action: 'read' },
        { operationId: 'updateCustomer', method: 'POST', path: '/customers/{customer}', action: 'apply' },
        { operationId: 'deleteCustomer', method: 'DELETE', path: '/customers/{customer}', action: 'delete' },
      ],
      filters: ['tier'],
      paging: 'limit (first page only)',
      explicit: false,
    });
    expect(res.body.undeclaredNotFound).toEqual(expect.arrayContaining(['deleteBooking', 'getCustomer', 'getUser']));
    expect(res.body.undeclaredNotFound).not.toContain('getBooking');
  });
});

describe('store changes', () => {
  it('each write reports what it did to which record, before and after, and the journal names it', async () => {
    const sandbox = await testSandbox({ spec: SPEC, fixtures: null });
    const app = EDGES[0]?.make(sandbox) as App;
    const changes: unknown[] = [];
    sandbox.onExchange((exchange) => {
      if (exchange.change !== undefined) changes.push(exchange.change);
    });
    const created = await request(app).post('/user').set(auth()).send({ username: 'ada', email: 'a@x' });
    await request(app).put('/user/ada').set(auth()).send({ username: 'ada', email: 'b@x' });
    await request(app).delete('/user/ada').set(auth());
    await request(app).get('/user/ada').set(auth());
    expect(changes).toEqual([
      { workspace: 'default', collection: 'user', id: 'ada', kind: 'created', after: created.body },
      {
        workspace: 'default',
        collection: 'user',
        id: 'ada',
        kind: 'replaced',
        before: created.body,
        after: { username: 'ada', email: 'b@x' },
      },
      { workspace: 'default', collection: 'user', id: 'ada', kind: 'deleted', before: { username: 'ada', email: 'b@x' } },
    ]);
    const journal = await request(app).get('/__sandbox/requests').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const named = journal.body as { change?: string }[];
    expect(named.map((e) => e.change).filter(Boolean)).toEqual(
      expect.arrayContaining(['created user/ada', 'replaced user/ada', 'deleted user/ada']),
    );
  });
});
