import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

describe.each(EDGES)('pets, stateful, through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  it('lists 20 pets by default, in id order, each a Pet', async () => {
    const res = await request(app).get('/v1/pets').set(auth());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toHaveLength(20);
    const ids = res.body.map((p: { id: number }) => p.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const pet of res.body) {
      expect(Object.keys(pet).sort()).toEqual(expect.arrayContaining(['categoryId', 'id', 'name']));
      expect(['available', 'pending', 'sold', undefined]).toContain(pet.status);
    }
  });

  it('filters by status and honours limit', async () => {
    const res = await request(app).get('/v1/pets?status=sold&limit=5').set(auth());
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.length).toBeLessThanOrEqual(5);
    expect(res.body.every((p: { status: string }) => p.status === 'sold')).toBe(true);
  });

  it('pages through every matching pet once, following Link rel="next" until it is absent', async () => {
    const seen: number[] = [];
    let url: string | undefined = '/v1/pets?status=available&limit=7';
    let pages = 0;
    while (url) {
      const res = await request(app).get(url).set(auth());
      expect(res.status).toBe(200);
      seen.push(...res.body.map((p: { id: number; status: string }) => (expect(p.status).toBe('available'), p.id)));
      const link = res.headers.link as string | undefined;
      url = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      if (url) expect(res.body).toHaveLength(7);
      pages++;
    }
    const all = (
      await sandbox.store.list('default', 'pets', { after: undefined, limit: 1000, filters: [['status', 'available']] })
    ).items.map((p) => p.id);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(all.length / 7));
  });

  it('creates a pet with a service-assigned id and serves it back by id and in the list', async () => {
    const created = await request(app)
      .post('/v1/pets')
      .set(auth())
      .send({ name: 'Rex', categoryId: 3, status: 'pending', id: 1, owner: 'x' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 121, name: 'Rex', categoryId: 3, status: 'pending' });
    expect(created.headers.location).toBe('/v1/pets/121');
    const fetched = await request(app).get(String(created.headers.location)).set(auth());
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
    const listed = await request(app).get('/v1/pets?status=pending&after=120').set(auth());
    expect(listed.body).toEqual([created.body]);
  });

  it('gives unique ids to concurrent creates', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(app)
          .post('/v1/pets')
          .set(auth())
          .send({ name: `Pet ${i}`, categoryId: 1 }),
      ),
    );
    const ids = results.map((r) => (expect(r.status).toBe(201), r.body.id));
    expect(new Set(ids).size).toBe(30);
  });

  it('answers 404 resource_not_found for an unknown id, with the deprecation headers', async () => {
    const res = await request(app).get('/v1/pets/9999').set(auth());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'resource_not_found', message: expect.any(String), status: 404 });
    expect(res.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('marks the deprecated getPet with Deprecation, Sunset and a Link to its replacement', async () => {
    const res = await request(app).get('/v1/pets/1').set(auth());
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(res.headers.link).toBe('</v1/pets>; rel="successor-version"');
    const list = await request(app).get('/v1/pets').set(auth());
    expect(list.headers.deprecation).toBeUndefined();
  });

  it('answers 410 operation_removed once the clock passes the sunset', async () => {
    sandbox.clock.advance(Date.parse('2030-12-05T00:00:00Z') - sandbox.clock.now());
    const res = await request(app).get('/v1/pets/1').set(auth());
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('operation_removed');
  });

  it('serves the store orders from the seeded store', async () => {
    const res = await request(app).get('/v1/store/orders?limit=3').set(auth());
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    expect(res.headers.link).toBe('</v1/store/orders?limit=3&after=3>; rel="next"');
  });
});

describe('seeded data', () => {
  it('is identical, byte for byte, for the same seed and differs for another', async () => {
    const a = await testSandbox({ seed: 42 });
    const b = await testSandbox({ seed: 42 });
    const c = await testSandbox({ seed: 43 });
    expect(await a.store.digest()).toBe(await b.store.digest());
    expect(await a.store.digest()).not.toBe(await c.store.digest());
  });

  it('returns to the seeded state on reset', async () => {
    const sandbox = await testSandbox();
    const before = await sandbox.store.digest();
    await request(EDGES[0]!.make(sandbox)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 1 });
    expect(await sandbox.store.digest()).not.toBe(before);
    await sandbox.reset();
    expect(await sandbox.store.digest()).toBe(before);
  });
});
