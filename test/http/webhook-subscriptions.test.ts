import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, sandboxForTest, testSandbox } from '../support/sandbox.js';
import { always, receiverForTest, type Behaviour } from '../support/webhook-receiver.js';

/**
 * Webhooks on store changes through the sandbox (issue 36): subscribed through the admin API, fired
 * by the API's own writes, signed per Standard Webhooks, retried when the sandbox clock is moved and
 * not before, refused where the allow-list says no. Real loopback receivers; the clock is frozen, so
 * a retry waits until a test moves it, and the tests wait on the engine or a receiver, never a sleep.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const rex = { name: 'Rex', categoryId: 1 };

async function started(
  overrides: Parameters<typeof testSandbox>[0] = {},
): Promise<{ sandbox: Sandbox; app: ReturnType<typeof createNodeHandler> }> {
  const sandbox = await sandboxForTest(overrides);
  return { sandbox, app: createNodeHandler(sandbox) };
}

/** Fails the first `failures` requests with 500, then answers 204. */
const failingFirst =
  (failures: number): Behaviour =>
  (n, _request, response) => {
    response.writeHead(n <= failures ? 500 : 204);
    response.end();
  };

interface DeliveryView {
  id: string;
  status: string;
  createdAt: number;
  nextAttemptAt?: number;
  reason?: string;
  attempts: { attempt: number; outcome: string; nextAttemptAt?: number; response?: { status: number } }[];
}

const deliveries = async (app: ReturnType<typeof createNodeHandler>, query = ''): Promise<DeliveryView[]> =>
  ((await request(app).get(`/__sandbox/webhooks/deliveries${query}`).set(admin)).body as { deliveries: DeliveryView[] }).deliveries;

describe('webhooks on store changes', () => {
  it('delivers a pet created, signed, and retries a failing receiver only when the sandbox clock is moved', async () => {
    const { sandbox, app } = await started();
    const hooks = await receiverForTest(failingFirst(2));
    const subscribed = await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'pets.created', url: hooks.url });
    expect(subscribed.status).toBe(201);
    const { secret, id } = subscribed.body as { secret: string; id: string };
    expect(subscribed.body).toEqual({
      id: expect.stringMatching(/^wh_/) as unknown,
      event: 'pets.created',
      url: hooks.url,
      workspace: 'default',
      configured: false,
      secret,
    });

    const created = await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex);
    expect(created.status).toBe(201);
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();

    // Signed per Standard Webhooks: the specification's own library verifies it.
    const [first] = hooks.received;
    const payload = new Webhook(secret).verify(first!.body, first!.headers) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({
      type: 'pets.created',
      data: { collection: 'pets', change: 'created', record: created.body as unknown },
    });

    const [delivery] = await deliveries(app);
    expect(delivery).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, outcome: 'failed', response: { status: 500 } }] });
    expect(delivery!.nextAttemptAt).toBe(delivery!.createdAt + 5_000);

    // The clock stands still: the retry waits. Four seconds on, it is not yet due.
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 4 });
    await sandbox.webhooks.deliveries.idle();
    expect(hooks.received).toHaveLength(1);

    // One more second and it goes at once; the next waits five minutes of sandbox time.
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 1 });
    await hooks.taken(2);
    await sandbox.webhooks.deliveries.idle();
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 300 });
    await hooks.taken(3);
    await sandbox.webhooks.deliveries.idle();
    const [done] = await deliveries(app);
    expect(done!.status).toBe('delivered');
    expect(done!.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
    // The same message every time.
    expect(new Set(hooks.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([done!.id]));

    // Unsubscribed: the next pet is nobody's business.
    expect((await request(app).delete(`/__sandbox/webhooks/${id}`).set(admin)).status).toBe(204);
    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex);
    await sandbox.webhooks.deliveries.idle();
    expect(await deliveries(app)).toHaveLength(1);
  });

  it('fires a field transition only for records that take the value', async () => {
    const { sandbox, app } = await started();
    const hooks = await receiverForTest(always(204, ''));
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'pets.status=sold', url: hooks.url });
    await request(app)
      .post('/v1/pets')
      .set(auth('demo-pro'))
      .send({ ...rex, status: 'available' });
    const sold = await request(app)
      .post('/v1/pets')
      .set(auth('demo-pro'))
      .send({ ...rex, name: 'Tom', status: 'sold' });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    expect(hooks.received).toHaveLength(1);
    expect(JSON.parse(hooks.received[0]!.body)).toMatchObject({ type: 'pets.status=sold', data: { record: sold.body as unknown } });
  });

  it("hears only its own workspace's changes", async () => {
    const { sandbox, app } = await started();
    const hooks = await receiverForTest(always(204, ''));
    const { key, workspace } = (await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' })).body as {
      key: string;
      workspace: string;
    };
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'record.created', url: hooks.url, workspace });
    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex);
    await request(app)
      .post('/v1/pets')
      .set(auth(key))
      .send({ ...rex, name: 'Mine' });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    expect(hooks.received.map((r) => (JSON.parse(r.body) as { data: { record: { name: string } } }).data.record.name)).toEqual(['Mine']);
    expect((await deliveries(app, `?workspace=${workspace}`)).map((d) => d.status)).toEqual(['delivered']);
    expect(await deliveries(app, '?workspace=default')).toEqual([]);
  });

  it('refuses, and never attempts, a delivery to an address the allow-list does not permit', async () => {
    const { sandbox, app } = await started();
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'record.created', url: 'http://10.1.2.3/hook' });
    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex);
    await sandbox.webhooks.deliveries.idle();
    const [delivery] = await deliveries(app);
    expect(delivery).toMatchObject({ status: 'refused', attempts: [{ outcome: 'refused' }] });
    expect(JSON.stringify(delivery)).toContain('10.1.2.3');
  });

  it('replays a delivery with the same message id, and a reset leaves only the configured subscriptions', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const { sandbox, app } = await started({ webhooks: { subscriptions: [{ event: 'pets.created', url: hooks.url }] } });
    const listed = (await request(app).get('/__sandbox/webhooks').set(admin)).body as { webhooks: { configured: boolean }[] };
    expect(listed.webhooks).toMatchObject([{ event: 'pets.created', configured: true }]);
    // No subscription's secret; only the callbacks' own, which the list shows on purpose.
    expect(JSON.stringify(listed.webhooks)).not.toContain('whsec_');

    await request(app).post('/v1/pets').set(auth('demo-pro')).send(rex);
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    const [delivery] = await deliveries(app);
    const replayed = await request(app).post(`/__sandbox/webhooks/deliveries/${delivery!.id}/replay`).set(admin);
    expect(replayed.status).toBe(202);
    await hooks.taken(2);
    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([delivery!.id, delivery!.id]);
    expect((await request(app).post('/__sandbox/webhooks/deliveries/msg_nothing/replay').set(admin)).status).toBe(404);

    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'record.deleted', url: hooks.url });
    await request(app).post('/__sandbox/reset').set(admin);
    // The configured one is made again under the same id.
    expect((await request(app).get('/__sandbox/webhooks').set(admin)).body).toMatchObject({ webhooks: listed.webhooks });
    expect(await deliveries(app)).toEqual([]);
  });

  it('says what is wrong with a subscription, at its field', async () => {
    const { app } = await started();
    const res = await request(app)
      .post('/__sandbox/webhooks')
      .set(admin)
      .send({ event: 'pets.sold', url: 'ftp://example.test/hook', secret: 'not-a-secret', workspace: 'ws_nobody' });
    expect(res.status).toBe(400);
    expect((res.body as { details: { location: string }[] }).details.map((d) => d.location)).toEqual([
      'body.event',
      'body.url',
      'body.secret',
      'body.workspace',
    ]);
    expect(((await request(app).get('/__sandbox/webhooks').set(admin)).body as { webhooks: unknown[] }).webhooks).toEqual([]);
  });
});
