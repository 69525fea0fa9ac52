import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, sandboxForTest } from '../support/sandbox.js';
import { receiverForTest, type Behaviour } from '../support/webhook-receiver.js';

/**
 * Every attempt at a webhook delivery is in the journal, beside the requests the sandbox answered
 * (issue 36): what was sent, what came back, how long it took, when the next attempt is due. The
 * journal's listing, stream and HAR take `direction`; counts and verifications stay on the requests
 * a client sent. A real loopback receiver; the clock is frozen, and only a test moves it.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const rex = { name: 'Rex', categoryId: 1 };

/** Fails the first request with 503 and a body, then answers 204. */
const failingOnce: Behaviour = (n, _request, response) => {
  if (n === 1) {
    response.writeHead(503, { 'content-type': 'text/plain' });
    response.end('busy');
  } else {
    response.writeHead(204);
    response.end();
  }
};

interface Entry {
  id: string;
  time: number;
  method: string;
  path: string;
  status: number;
  workspace: string;
  request: { headers: Record<string, string>; body?: { text: string } };
  response: { headers: Record<string, string>; body?: { text: string } };
  outbound?: {
    kind: string;
    delivery: string;
    event: string;
    url: string;
    attempt: number;
    outcome: string;
    error?: string;
    nextAttemptAt?: number;
  };
}

describe('delivery attempts in the journal', () => {
  it('journals each attempt as a request sent, listed by direction, and leaves counts to the client’s requests', async () => {
    const sandbox = await sandboxForTest();
    const app = createNodeHandler(sandbox);
    const hooks = await receiverForTest(failingOnce);
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'pets.created', url: hooks.url }).expect(201);
    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex).expect(201);
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    const now = ((await request(app).get('/__sandbox/clock').set(admin)).body as { now: number }).now * 1000;

    const outbound = async (): Promise<Entry[]> =>
      (await request(app).get('/__sandbox/requests?direction=outbound').set(admin).expect(200)).body as Entry[];
    const [first] = await outbound();
    expect(first).toMatchObject({
      method: 'POST',
      path: '/hook',
      status: 503,
      workspace: 'default',
      time: now,
      response: { body: { text: 'busy' } },
      outbound: {
        kind: 'webhook',
        event: 'pets.created',
        url: hooks.url,
        attempt: 1,
        outcome: 'failed',
        nextAttemptAt: now + 5_000,
      },
    });
    expect(first!.id).toBe(`${first!.outbound!.delivery}.1`);
    // What went out is what arrived: the signed headers and the payload.
    expect(first!.request.headers['webhook-id']).toBe(hooks.received[0]!.headers['webhook-id']);
    expect(first!.request.headers['webhook-signature']).toBe(hooks.received[0]!.headers['webhook-signature']);
    expect(first!.request.body!.text).toBe(hooks.received[0]!.body);

    // The retry, once the clock passes its time, is an entry of its own: newest first.
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 5 }).expect(200);
    await hooks.taken(2);
    await sandbox.webhooks.deliveries.idle();
    const attempts = await outbound();
    expect(attempts.map((e) => [e.outbound!.attempt, e.status, e.outbound!.outcome, e.outbound!.nextAttemptAt])).toEqual([
      [2, 204, 'delivered', undefined],
      [1, 503, 'failed', now + 5_000],
    ]);

    // Inbound: the requests answered, without the attempts; all (the default): both.
    const inbound = (await request(app).get('/__sandbox/requests?direction=inbound').set(admin)).body as Entry[];
    expect(inbound.every((e) => e.outbound === undefined)).toBe(true);
    expect(inbound.map((e) => `${e.method} ${e.path}`)).toContain('POST /v1/pets');
    const all = (await request(app).get('/__sandbox/requests').set(admin)).body as Entry[];
    expect(all).toHaveLength(inbound.length + 2);

    // A count, a find and a verification look at what clients sent: the attempts' POSTs are not counted.
    const pattern = { method: 'POST', workspace: 'default', pathPattern: '/(v1/pets|hook)' };
    expect((await request(app).post('/__sandbox/requests/count').set(admin).send(pattern)).body).toEqual({ count: 1 });
    expect((await request(app).post('/__sandbox/requests/find').set(admin).send(pattern)).body).toMatchObject([{ path: '/v1/pets' }]);
    await request(app)
      .post('/__sandbox/requests/verify')
      .set(admin)
      .send({ pattern, count: { exactly: 1 } })
      .expect(200);

    // The HAR export of the attempts names the URL they went to.
    const har = (await request(app).get('/__sandbox/requests.har?direction=outbound').set(admin).expect(200)).body as {
      log: { entries: { request: { url: string }; response: { status: number } }[] };
    };
    expect(har.log.entries.map((e) => [e.request.url, e.response.status])).toEqual([
      [hooks.url, 503],
      [hooks.url, 204],
    ]);
  });

  it('journals an attempt the allow-list refused with status 0 and the reason', async () => {
    const sandbox = await sandboxForTest();
    const app = createNodeHandler(sandbox);
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'record.created', url: 'http://10.1.2.3/hook' }).expect(201);
    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex).expect(201);
    await sandbox.webhooks.deliveries.idle();
    const [refused] = (await request(app).get('/__sandbox/requests?direction=outbound').set(admin)).body as Entry[];
    expect(refused).toMatchObject({ status: 0, method: 'POST', path: '/hook', outbound: { attempt: 1, outcome: 'refused' } });
    expect(refused!.outbound!.error).toContain('10.1.2.3');
    expect(refused!.response).toEqual({ headers: {} });
  });
});
