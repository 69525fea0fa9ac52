import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, sandboxForTest } from '../support/sandbox.js';

/**
 * The front door (src/core/front-door.ts): every request is answered by the first door that takes
 * it, and what listens to the answers cannot break one. Before it, an exchange listener that threw
 * ran outside the answer's `try`, and the client's socket was left unanswered.
 */
describe('the front door', () => {
  it('answers a request whose exchange listener throws, and reports the listener as a notice', async () => {
    const sandbox = await sandboxForTest();
    const notices: Notice[] = [];
    sandbox.onNotice((notice) => notices.push(notice));
    const heard: string[] = [];
    sandbox.onExchange(() => {
      throw new Error('a listener that breaks');
    });
    sandbox.onExchange((exchange) => heard.push(`${exchange.request.method} ${exchange.request.path} ${exchange.response.status}`));
    const app = createNodeHandler(sandbox);

    const created = await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Rex', categoryId: 1 });
    expect(created.status).toBe(201);
    expect(
      (
        await request(app)
          .get(`/v1/pets/${(created.body as { id: number }).id}`)
          .set(auth('demo-pro'))
      ).status,
    ).toBe(200);
    // The listener after the broken one still hears every answer.
    expect(heard).toEqual(['POST /v1/pets 201', expect.stringMatching(/^GET \/v1\/pets\/\d+ 200$/)]);
    expect(notices).toContainEqual({ level: 'error', message: 'a listener of exchange events failed: a listener that breaks' });
  });

  it('takes each request at its own door: probes and pages are not journaled, admin and API requests are', async () => {
    const sandbox = await sandboxForTest();
    const heard: string[] = [];
    sandbox.onExchange((exchange) => heard.push(exchange.request.path));
    const app = createNodeHandler(sandbox);
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

    expect((await request(app).get('/__sandbox/health/ready')).status).toBe(200);
    expect((await request(app).get('/docs/')).status).toBe(200);
    expect((await request(app).get('/__sandbox/clock').set(admin)).status).toBe(200);
    expect((await request(app).get('/v1/pets').set(auth('demo-pro'))).status).toBe(200);
    expect((await request(app).get('/nowhere').set(auth('demo-pro'))).status).toBe(404);
    expect(heard).toEqual(['/__sandbox/clock', '/v1/pets', '/nowhere']);
  });
});
