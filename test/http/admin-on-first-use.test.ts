import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, testSandbox } from '../support/sandbox.js';

// The real admin surface, counted: the admin API is built on the first request under its prefix,
// not at start (src/core/sandbox.ts), so an admin token costs a start nothing.
const built = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/admin/admin-surface.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/admin/admin-surface.js')>();
  return {
    ...original,
    adminSurface: (...args: Parameters<typeof original.adminSurface>) => {
      built.count++;
      return original.adminSurface(...args);
    },
  };
});

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the admin API, built on first use', () => {
  it('is not built by a start, nor by API requests, health checks or a refused token', async () => {
    built.count = 0;
    const app = createNodeHandler(await testSandbox());
    expect((await request(app).get('/v1/pets?limit=1').set(auth())).status).toBe(200);
    expect((await request(app).get('/__sandbox/health/live')).status).toBe(200);
    expect(built.count).toBe(0);
    // The first request under the prefix builds it, whoever sends it: the refusal comes from the admin API's own rules.
    const refused = await request(app).get('/__sandbox/keys').set(auth());
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('admin_unauthorized');
    expect(built.count).toBe(1);
  });

  it('is built once when its first requests arrive together, and each is answered', async () => {
    built.count = 0;
    const app = createNodeHandler(await testSandbox());
    const answers = await Promise.all([
      request(app).get('/__sandbox/clock').set(admin),
      request(app).get('/__sandbox/keys').set(admin),
      request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 'soon' }),
    ]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 400]);
    expect(answers[2]?.body.code).toBe('validation_failed');
    expect(built.count).toBe(1);
  });

  it('is never built without an admin token', async () => {
    built.count = 0;
    const app = createNodeHandler(await testSandbox({ adminToken: null }));
    expect((await request(app).get('/__sandbox/keys').set(admin)).status).toBe(404);
    expect(built.count).toBe(0);
  });
});
