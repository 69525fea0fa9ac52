import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/related.yaml', import.meta.url).pathname;

/** Seeded fields that name another collection's records point at records that exist. */
describe('related records in the seed', () => {
  it('categoryId, owner_id and customer name seeded records of categories, owners and customers', async () => {
    const app = EDGES[0]?.make(await testSandbox({ spec: SPEC, fixtures: null })) as Parameters<typeof request>[0];
    const get = async (path: string) => (await request(app).get(path).set(auth())).body as Record<string, unknown>[];
    const categories = new Set((await get('/categories')).map((c) => c.id));
    const owners = new Set((await get('/owners')).map((o) => o.id));
    const customers = new Set((await get('/customers')).map((c) => c.id));
    const products = await get('/products');
    expect(products.length).toBe(10);
    for (const product of products) {
      expect(categories).toContain(product.categoryId);
      expect(owners).toContain(product.owner_id);
    }
    const charges = await get('/charges');
    for (const charge of charges) {
      expect(customers).toContain(charge.customer);
      expect(
        (
          await request(app)
            .get(`/customers/${String(charge.customer)}`)
            .set(auth())
        ).status,
      ).toBe(200);
    }
  });
});
