import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/index.js';
import { auth, testSandbox } from '../support/sandbox.js';

describe('the Express app mounted inside another app', () => {
  it('serves the API under the mount path and leaves the host app alone', async () => {
    const host = express();
    host.get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    host.use('/mock', createApp(await testSandbox()));
    const pets = await request(host).get('/mock/v1/pets?limit=3').set(auth());
    expect(pets.status).toBe(200);
    expect(pets.body).toHaveLength(3);
    expect(pets.headers.link).toBe('</mock/v1/pets?limit=3&after=3>; rel="next"');
    const created = await request(host).post('/mock/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 1 });
    expect(created.headers.location).toBe(`/mock/v1/pets/${created.body.id}`);
    expect((await request(host).get(String(created.headers.location)).set(auth())).headers.link).toBe(
      '</mock/v1/pets>; rel="successor-version"',
    );
    expect((await request(host).get('/health')).body).toEqual({ ok: true });
    const missing = await request(host).get('/mock/v1/nothing').set(auth());
    expect(missing.body).toMatchObject({ code: 'route_not_found', status: 404 });
  });
});
