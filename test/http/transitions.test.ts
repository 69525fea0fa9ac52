import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, START, sandboxForTest, testSandbox } from '../support/sandbox.js';
import { always, receiverForTest } from '../support/webhook-receiver.js';

/**
 * Records that move through their states on the sandbox clock (issue 36 §4), on the Pet Store: a
 * pet available for an hour goes pending, and pending for a day goes sold. The clock is frozen and
 * moved only through the admin API; nothing here sleeps.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const LIFECYCLE = [
  { collection: 'pets', field: 'status', from: 'available', to: 'pending', after: '1h' },
  { collection: 'pets', field: 'status', from: 'pending', to: 'sold', after: '1d' },
];

async function started(
  overrides: Parameters<typeof testSandbox>[0] = {},
): Promise<{ sandbox: Sandbox; app: ReturnType<typeof createNodeHandler> }> {
  const sandbox = await sandboxForTest({ transitions: LIFECYCLE, ...overrides });
  return { sandbox, app: createNodeHandler(sandbox) };
}

const advance = (app: ReturnType<typeof createNodeHandler>, seconds: number) =>
  request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: seconds });
const statusOf = async (app: ReturnType<typeof createNodeHandler>, id: number): Promise<string> =>
  ((await request(app).get(`/v1/pets/${id}`).set(auth('demo-pro'))).body as { status: string }).status;

describe('timed transitions', () => {
  it('moves a pet along its states when the clock passes each wait, and not before', async () => {
    const { app } = await started();
    const { id } = (await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Rex', categoryId: 1, status: 'available' }))
      .body as { id: number };

    await advance(app, 3_599);
    expect(await statusOf(app, id)).toBe('available');
    await advance(app, 1);
    expect(await statusOf(app, id)).toBe('pending');
    // A day after it went pending (not after the clock's last move): sold.
    await advance(app, 86_399);
    expect(await statusOf(app, id)).toBe('pending');
    await advance(app, 1);
    expect(await statusOf(app, id)).toBe('sold');
    await advance(app, 30 * 86_400);
    expect(await statusOf(app, id)).toBe('sold');
  });

  it('follows a chain through when the clock jumps past both waits, each change delivered', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const { sandbox, app } = await started({ webhooks: { subscriptions: [{ event: 'pets.updated', url: hooks.url }] } });
    const { id } = (await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Rex', categoryId: 1, status: 'available' }))
      .body as { id: number };
    expect(await statusOf(app, id)).toBe('available');
    await advance(app, 3 * 86_400);
    expect(await statusOf(app, id)).toBe('sold');
    await hooks.taken(2);
    await sandbox.webhooks.deliveries.idle();
    const bodies = hooks.received.map(
      (r) => JSON.parse(r.body) as { timestamp: string; data: { previous: { status: string }; record: { status: string } } },
    );
    expect(bodies.map((b) => `${b.data.previous.status}→${b.data.record.status}`)).toEqual(['available→pending', 'pending→sold']);
  });

  it('starts the wait again when a request changes the state, and leaves seeded records as they are', async () => {
    const { app } = await started();
    const seeded = ((await request(app).get('/v1/pets?status=available&limit=1').set(auth('demo-pro'))).body as { id: number }[])[0]!;
    await advance(app, 2 * 86_400);
    expect(await statusOf(app, seeded.id)).toBe('available');
  });

  it('forces one record to a state from the admin API, delivered and followed from then on', async () => {
    const hooks = await receiverForTest(always(204, ''));
    const { sandbox, app } = await started({ webhooks: { subscriptions: [{ event: 'pets.status=sold', url: hooks.url }] } });
    const { id } = (await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Rex', categoryId: 1, status: 'available' }))
      .body as { id: number };
    const forced = await request(app).post(`/__sandbox/records/pets/${id}/transition`).set(admin).send({ to: 'sold' });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      collection: 'pets',
      id: String(id),
      field: 'status',
      workspace: 'default',
      before: { status: 'available' },
      after: { status: 'sold' },
    });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    expect(await statusOf(app, id)).toBe('sold');

    expect((await request(app).post('/__sandbox/records/pets/99999/transition').set(admin).send({ to: 'sold' })).status).toBe(404);
    const noField = await request(app).post('/__sandbox/records/orders/1/transition').set(admin).send({ to: 'delivered' });
    expect(noField.status).toBe(400);
    expect((noField.body as { details: { location: string }[] }).details[0]?.location).toBe('body.field');
  });

  it('lists the transitions, from the config and from x-understudy-transitions', async () => {
    const { app } = await started();
    expect((await request(app).get('/__sandbox/transitions').set(admin)).body).toEqual({
      transitions: [
        { collection: 'pets', field: 'status', from: 'available', to: 'pending', afterSeconds: 3600 },
        { collection: 'pets', field: 'status', from: 'pending', to: 'sold', afterSeconds: 86_400 },
      ],
    });
  });

  it('reads transitions a document declares on its schema (x-understudy-transitions), and sets the update timestamp to the moment each was due', async () => {
    const sandbox = await sandboxForTest({
      spec: 'test/documents/order-lifecycle.yaml',
      fixtures: null,
      keys: [{ key: 'shop-key', plan: 'free' }],
    });
    const app = createNodeHandler(sandbox);
    expect(((await request(app).get('/__sandbox/transitions').set(admin)).body as { transitions: unknown[] }).transitions).toEqual([
      { collection: 'orders', field: 'status', from: 'placed', to: 'approved', afterSeconds: 600 },
      { collection: 'orders', field: 'status', from: 'approved', to: 'delivered', afterSeconds: 172_800 },
    ]);
    const { id } = (await request(app).post('/v1/orders').send({ item: 'lamp', status: 'placed' })).body as { id: number };
    await advance(app, 3 * 86_400);
    const order = (await request(app).get(`/v1/orders/${id}`)).body as { status: string; updatedAt: string };
    expect(order.status).toBe('delivered');
    expect(order.updatedAt).toBe(new Date(Date.parse(START) + 600_000 + 172_800_000).toISOString());
  });

  it('refuses to start on a transition that does not read, saying where', async () => {
    await expect(
      testSandbox({ transitions: [{ collection: 'pets', field: 'status', from: 'available', to: 'available', after: '1h' }] }),
    ).rejects.toThrow('timed transitions: transitions (pets.status).0 moves "available" to itself');
  });
});
