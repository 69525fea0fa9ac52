import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/request-shapes.yaml', import.meta.url).pathname;

/**
 * A request field the record types otherwise (GitHub's `repositories`: names in the request,
 * repository objects in the record) no longer keeps a write from being stored: the record gets a
 * value of its own type there, and every field that fits is kept.
 */
describe.each(EDGES)('requests shaped otherwise than their records, through the $name', ({ make }) => {
  it('a create is stored, with the fields that fit kept, and read back', async () => {
    const app = make(await testSandbox({ spec: SPEC, fixtures: null }));
    const created = await request(app)
      .post('/migrations')
      .set(auth())
      .send({ repositories: ['octo/hello'], state: 'pending' });
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('pending');
    expect(created.body.repositories.every((r: unknown) => typeof r === 'object')).toBe(true);
    const second = await request(app)
      .post('/migrations')
      .set(auth())
      .send({ repositories: ['octo/hello'] });
    expect(second.body.id).not.toBe(created.body.id);
    expect(
      (
        await request(app)
          .get(`/migrations/${created.body.id as number}`)
          .set(auth())
      ).body,
    ).toEqual(created.body);
  });

  it('a patch keeps the stored value of a field it cannot hold, and applies the rest', async () => {
    const app = make(await testSandbox({ spec: SPEC, fixtures: null }));
    const created = await request(app).post('/migrations').set(auth()).send({ repositories: [] });
    const id = created.body.id as number;
    const patched = await request(app)
      .patch(`/migrations/${id}`)
      .set(auth())
      .send({ state: 'done', config: { url: 'u', secret: 's' } });
    expect(patched.status).toBe(200);
    expect(patched.body.state).toBe('done');
    expect(patched.body.config).toEqual(created.body.config);
    expect((await request(app).get(`/migrations/${id}`).set(auth())).body).toEqual(patched.body);
  });
});
