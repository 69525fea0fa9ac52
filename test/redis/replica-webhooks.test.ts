import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis.js';
import { ADMIN, call, KEY, startReplica, stopAll, type Replica } from '../support/replica.js';
import type { testSandbox } from '../support/sandbox.js';
import { always, receiverForTest, type Behaviour } from '../support/webhook-receiver.js';

/**
 * Webhooks and timed transitions on two replicas sharing one real redis-server, each replica on a
 * real socket, deliveries to a real receiver: a delivery is sent once across the replicas, and a
 * transition applies once. The clocks are frozen and moved only through the admin API.
 */

let redis: TestRedis;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Two replicas on one Redis, under a prefix no other test uses, stopped when the test ends. */
async function pair(overrides: Parameters<typeof testSandbox>[0] = {}): Promise<[Replica, Replica]> {
  const prefix = `w${++prefixes}:`;
  const replicas: [Replica, Replica] = [await startReplica(redis.url, prefix, overrides), await startReplica(redis.url, prefix, overrides)];
  onTestFinished(() => stopAll(replicas).then(() => undefined));
  return replicas;
}

/** Once neither replica has an attempt under way or due (what the tests await instead of sleeping). */
const settled = (replicas: readonly Replica[]) => Promise.all(replicas.map((r) => r.sandbox.webhooks.deliveries.idle()));

interface Delivery {
  readonly id: string;
  readonly status: string;
  readonly attempts: readonly { readonly outcome: string; readonly replay?: true }[];
}
const deliveries = async (replica: Replica): Promise<Delivery[]> =>
  ((await call(replica.url, 'GET', '/__sandbox/webhooks/deliveries', ADMIN)).body as { deliveries: Delivery[] }).deliveries;
const subscriptions = async (replica: Replica): Promise<{ id: string; event: string; configured: boolean }[]> =>
  (
    (await call(replica.url, 'GET', '/__sandbox/webhooks', ADMIN)).body as {
      webhooks: { id: string; event: string; configured: boolean }[];
    }
  ).webhooks;

const rex = { name: 'Rex', categoryId: 1, status: 'available' };

describe('webhooks and timed transitions across replicas on Redis', () => {
  it('sends a change made on one replica once, to a subscription made on the other; lists it alike on both, and replays it from either', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const [a, b] = await pair();
    expect((await call(a.url, 'POST', '/__sandbox/webhooks', ADMIN, { event: 'pets.created', url: hooks.url })).status).toBe(201);

    const created = await call(b.url, 'POST', '/v1/pets', KEY(), rex);
    expect(created.status).toBe(201);
    await hooks.taken(1);
    await settled([a, b]);
    expect(hooks.received).toHaveLength(1);
    expect(JSON.parse(hooks.received[0]?.body ?? '')).toMatchObject({ type: 'pets.created', data: { id: String(created.body?.id) } });

    const listed = await deliveries(a);
    expect(listed).toMatchObject([{ status: 'delivered', attempts: [{ outcome: 'delivered' }] }]);
    expect(await deliveries(b)).toEqual(listed);

    const id = listed[0]?.id as string;
    expect((await call(b.url, 'POST', `/__sandbox/webhooks/deliveries/${id}/replay`, ADMIN)).status).toBe(202);
    await hooks.taken(2);
    await settled([a, b]);
    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    const replayed = await deliveries(a);
    expect(replayed).toMatchObject([{ id, attempts: [{ outcome: 'delivered' }, { outcome: 'delivered', replay: true }] }]);
    expect(await deliveries(b)).toEqual(replayed);
  });

  it('retries a failed attempt once when the clock is moved on the other replica, not once per replica', async () => {
    const failFirst: Behaviour = (n, _request, response) => {
      response.writeHead(n === 1 ? 500 : 204);
      response.end();
    };
    const hooks = await receiverForTest(failFirst);
    const [a, b] = await pair();
    await call(a.url, 'POST', '/__sandbox/webhooks', ADMIN, { event: 'pets.created', url: hooks.url });
    await call(b.url, 'POST', '/v1/pets', KEY(), rex);
    await hooks.taken(1);
    await settled([a, b]);
    expect(await deliveries(a)).toMatchObject([{ status: 'pending', attempts: [{ outcome: 'failed' }] }]);

    // Not due yet: nothing is sent.
    await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 4 });
    await settled([a, b]);
    expect(hooks.received).toHaveLength(1);

    await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 1 });
    await hooks.taken(2);
    await settled([a, b]);
    expect(hooks.received).toHaveLength(2);
    const listed = await deliveries(b);
    expect(listed).toMatchObject([{ status: 'delivered', attempts: [{ outcome: 'failed' }, { outcome: 'delivered' }] }]);
    expect(await deliveries(a)).toEqual(listed);
  });

  it('applies a transition once when a record made on one replica is moved on by the clock of the other, its webhook sent once', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const [a, b] = await pair({
      transitions: [
        { collection: 'pets', field: 'status', from: 'available', to: 'pending', after: '1h' },
        { collection: 'pets', field: 'status', from: 'pending', to: 'sold', after: '1d' },
      ],
      webhooks: { subscriptions: [{ event: 'pets.updated', url: hooks.url }] },
    });
    const id = (await call(a.url, 'POST', '/v1/pets', KEY(), rex)).body?.id as number;
    const statusOn = async (replica: Replica): Promise<unknown> => (await call(replica.url, 'GET', `/v1/pets/${id}`, KEY())).body?.status;

    await call(b.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 3_600 });
    expect([await statusOn(a), await statusOn(b)]).toEqual(['pending', 'pending']);
    await hooks.taken(1);
    await settled([a, b]);
    expect(hooks.received.map((r) => (JSON.parse(r.body) as { data: { record: { status: string } } }).data.record.status)).toEqual([
      'pending',
    ]);

    // And on from there, the clock moved on the first replica this time.
    await call(a.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 86_400 });
    expect([await statusOn(a), await statusOn(b)]).toEqual(['sold', 'sold']);
    await hooks.taken(2);
    await settled([a, b]);
    expect(hooks.received).toHaveLength(2);
    expect(await deliveries(b)).toEqual(await deliveries(a));
  });

  it('moves a record followed through a replica that has stopped since, when the clock is moved on another', async () => {
    const [a, b] = await pair({ transitions: [{ collection: 'pets', field: 'status', from: 'available', to: 'pending', after: '1h' }] });
    const id = (await call(a.url, 'POST', '/v1/pets', KEY(), rex)).body?.id as number;
    await a.stop();
    await call(b.url, 'POST', '/__sandbox/clock', ADMIN, { advanceSeconds: 3_600 });
    expect((await call(b.url, 'GET', `/v1/pets/${id}`, KEY())).body).toMatchObject({ status: 'pending' });
  });

  it('lists the same subscriptions on each replica; a removal on one holds on the other, and a reset on one leaves only the configured on both', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const [a, b] = await pair({ webhooks: { subscriptions: [{ event: 'pets.deleted', url: hooks.url }] } });
    const [configured] = await subscriptions(a);
    expect(configured).toMatchObject({ event: 'pets.deleted', configured: true });
    expect(await subscriptions(b)).toEqual([configured]);

    const made = await call(a.url, 'POST', '/__sandbox/webhooks', ADMIN, { event: 'pets.created', url: hooks.url });
    expect(await subscriptions(b)).toEqual([configured, { ...made.body, secret: undefined }].map((s) => JSON.parse(JSON.stringify(s))));
    expect((await call(b.url, 'DELETE', `/__sandbox/webhooks/${configured?.id ?? ''}`, ADMIN)).status).toBe(204);
    expect((await subscriptions(a)).map((s) => s.event)).toEqual(['pets.created']);

    expect((await call(a.url, 'POST', '/__sandbox/reset', ADMIN)).status).toBeLessThan(300);
    expect(await subscriptions(b)).toEqual([configured]);
    expect(await subscriptions(a)).toEqual([configured]);
    // The reset subscription is gone on both: a create on the second replica goes to nobody.
    await call(b.url, 'POST', '/v1/pets', KEY(), rex);
    await settled([a, b]);
    expect(await deliveries(a)).toEqual([]);
    expect(hooks.received).toEqual([]);
  });

  it('answers 503 for the deliveries while Redis cannot be reached, and lists them again once it is back', async () => {
    const [a, b] = await pair();
    await redis.kill();
    try {
      const down = await call(a.url, 'GET', '/__sandbox/webhooks/deliveries', ADMIN);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(down.headers.get('retry-after')).toBe('1');
    } finally {
      await redis.restart();
    }
    for (const any of [a, b]) {
      await vi.waitFor(async () => expect((await call(any.url, 'GET', '/__sandbox/health/ready', {})).status).toBe(200), {
        timeout: 5_000,
        interval: 20,
      });
      expect(await deliveries(any)).toEqual([]);
    }
  });
});
