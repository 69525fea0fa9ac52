import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

/** HEAD is allowed wherever GET is (RFC 9110 §9.3.2): the GET's status and headers, and no body. */
describe.each(EDGES)('HEAD through the $name', ({ make }) => {
  it('answers as GET without a body, headers and length included', async () => {
    const app = make(await testSandbox());
    const get = await request(app).get('/v1/pets?limit=2').set(auth());
    const head = await request(app).head('/v1/pets?limit=2').set(auth());
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['x-ratelimit-limit']).toBe(get.headers['x-ratelimit-limit']);
  });

  it('lists HEAD in Allow wherever GET is, and answers a HEAD for a missing record 404 with no body', async () => {
    const app = make(await testSandbox());
    const refused = await request(app).delete('/v1/pets').set(auth());
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD, POST');
    const missing = await request(app).head('/v1/pets/999999').set(auth());
    expect(missing.status).toBe(404);
    expect(missing.text ?? '').toBe('');
  });
});
