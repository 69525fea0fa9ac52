import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, auth, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/nested-views.yaml', import.meta.url).pathname;

type Order = { id: number; userId: number; item: string };

/** `/users/{userId}/orders` and `/orders?userId=` are two views of one collection, not two collections. */
describe.each(EDGES)('nested views of a top-level collection through the $name', ({ make }) => {
  it('a record created under a user is its order everywhere: nested list and read, top-level list, filter and read', async () => {
    const app = make(await testSandbox({ spec: SPEC, fixtures: null }));
    const get = async (path: string) => request(app).get(path).set(auth());
    const users = (await get('/users')).body as { id: number }[];
    const seeded = (await get('/orders')).body as Order[];
    for (const order of seeded) expect(users.map((u) => u.id)).toContain(order.userId);
    const created = await request(app).post('/users/3/orders').set(auth()).send({ item: 'kettle' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), userId: 3, item: 'kettle' });
    const id = created.body.id as number;
    expect((await get(`/orders/${id}`)).body).toEqual(created.body);
    expect((await get(`/users/3/orders/${id}`)).body).toEqual(created.body);
    expect((await get(`/users/4/orders/${id}`)).status).toBe(404);
    const mine = (await get('/users/3/orders')).body as Order[];
    expect(mine).toEqual((await get('/orders?userId=3')).body);
    expect(mine.map((o) => o.id)).toContain(id);
    expect(mine.every((o) => o.userId === 3)).toBe(true);
    expect(((await get('/users/4/orders')).body as Order[]).map((o) => o.id)).not.toContain(id);
  });

  it('the state model names the parent field of each nested view', async () => {
    const app = make(await testSandbox({ spec: SPEC, fixtures: null }));
    const model = await request(app).get('/__sandbox/model').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const orders = (
      model.body as { collections: { name: string; views: { operationId: string; parentFields?: object }[] }[] }
    ).collections.find((c) => c.name === 'orders');
    expect(orders?.views.find((v) => v.operationId === 'createUserOrder')?.parentFields).toEqual({ userId: 'userId' });
    expect(model.body.collections.map((c: { name: string }) => c.name)).toEqual(['users', 'orders']);
  });
});
