import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceClocks } from '../../src/clock/workspace-clocks.js';
import { Deliveries, workspaceClock } from '../../src/webhooks/deliveries.js';
import { nodeTransport } from '../../src/webhooks/send.js';
import { MemoryDeliveryStore } from '../../src/webhooks/store.js';
import { FROZEN_AT, SHORT_TIMEOUT_MS, testEngine, type TestEngine } from '../support/webhook-engine.js';
import { always, never, startReceiver, type Receiver } from '../support/webhook-receiver.js';

// Real loopback receivers; the sandbox clock stands still unless a test moves it, and the tests wait
// on the engine's idle state or on a receiver's arrivals, never on a sleep.

let open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.map((thing) => thing.close()));
  open = [];
});
const receiver = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
  const started = await startReceiver(...args);
  open.push(started);
  return started;
};
const engine = (...args: Parameters<typeof testEngine>): TestEngine => {
  const made = testEngine(...args);
  open.push(made);
  return made;
};

describe('delivering a webhook', () => {
  it('signs it per Standard Webhooks: the library verifies it, and so does the algorithm by hand', async () => {
    const hooks = await receiver(always(204, ''));
    const { engine: deliveries } = engine();
    const payload = { type: 'order.created', data: { id: 42 } };
    const queued = await deliveries.enqueue({
      workspace: 'default',
      url: hooks.url,
      event: 'order.created',
      payload,
      headers: { 'x-tenant': 't1' },
    });
    await deliveries.idle();

    const [arrived] = hooks.received;
    expect(arrived).toMatchObject({ method: 'POST', path: '/hook', body: JSON.stringify(payload) });
    expect(arrived!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': queued.id,
      'x-tenant': 't1',
      host: `127.0.0.1:${hooks.port}`,
    });
    expect(queued.id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(queued.secret).toMatch(/^whsec_/);
    expect(new Webhook(queued.secret).verify(arrived!.body, arrived!.headers)).toEqual(payload);
    const key = Buffer.from(queued.secret.slice('whsec_'.length), 'base64');
    const signed = `${arrived!.headers['webhook-id']}.${arrived!.headers['webhook-timestamp']}.${arrived!.body}`;
    expect(arrived!.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);

    const delivery = await deliveries.get(queued.id);
    expect(delivery).toMatchObject({
      id: queued.id,
      workspace: 'default',
      event: 'order.created',
      url: hooks.url,
      status: 'delivered',
      createdAt: FROZEN_AT,
    });
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        at: FROZEN_AT,
        outcome: 'delivered',
        response: expect.objectContaining({ status: 204, body: '' }),
      }),
    ]);
    expect(delivery!.attempts[0]!.request.headers['webhook-signature']).toBe(arrived!.headers['webhook-signature']);
    expect(delivery!.attempts[0]!.nextAttemptAt).toBeUndefined();
    expect(JSON.stringify(delivery)).not.toContain(queued.secret);
  });

  it('retries on the sandbox clock: not before a retry is due, at once when the clock is moved past it', async () => {
    const hooks = await receiver((n, request, response) => {
      if (n === 1) response.writeHead(500).end('down');
      else if (n === 2) request.socket.destroy();
      else response.writeHead(200).end('thanks');
    });
    const { engine: deliveries, move } = engine();
    const { id, secret } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: { n: 1 } });
    await deliveries.idle();
    expect(hooks.received).toHaveLength(1);
    let delivery = await deliveries.get(id);
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: FROZEN_AT + 5_000 });
    expect(delivery!.attempts[0]).toMatchObject({
      attempt: 1,
      outcome: 'failed',
      error: 'the receiver answered 500',
      nextAttemptAt: FROZEN_AT + 5_000,
    });
    expect(delivery!.attempts[0]!.response).toMatchObject({ status: 500, body: 'down' });

    // The clock standing still, or moved short of the due time, sends nothing.
    await deliveries.idle();
    await move('default', 4_999);
    expect(hooks.received).toHaveLength(1);
    await move('default', 1);
    expect(hooks.received).toHaveLength(2);
    delivery = await deliveries.get(id);
    expect(delivery!.attempts[1]).toMatchObject({
      attempt: 2,
      at: FROZEN_AT + 5_000,
      outcome: 'failed',
      nextAttemptAt: FROZEN_AT + 5_000 + 300_000,
    });
    expect(delivery!.attempts[1]!.error).toMatch(/socket hang up|ECONNRESET/);
    expect(delivery!.attempts[1]!.response).toBeUndefined();

    await move('default', 299_999);
    expect(hooks.received).toHaveLength(2);
    await move('default', 1);
    expect(hooks.received).toHaveLength(3);
    delivery = await deliveries.get(id);
    expect(delivery!.status).toBe('delivered');
    expect(delivery!.nextAttemptAt).toBeUndefined();
    expect(delivery!.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
    expect(delivery!.attempts[2]!.nextAttemptAt).toBeUndefined();
    // Every attempt carries the same message id, and each is signed anew.
    expect(new Set(hooks.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    for (const arrived of hooks.received) expect(new Webhook(secret).verify(arrived.body, arrived.headers)).toEqual({ n: 1 });
  });

  it('gives up on a receiver that never answers after the timeout, and retries it on the clock', async () => {
    const hooks = await receiver(never);
    const { engine: deliveries, move } = engine({ timeoutMs: SHORT_TIMEOUT_MS });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await deliveries.idle();
    let delivery = await deliveries.get(id);
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: FROZEN_AT + 5_000 });
    expect(delivery!.attempts[0]).toMatchObject({ outcome: 'timeout', error: 'no answer within 200 ms' });
    expect(delivery!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(190);
    expect(delivery!.attempts[0]!.durationMs).toBeLessThan(2_000);
    await move('default', 5_000);
    delivery = await deliveries.get(id);
    expect(hooks.received).toHaveLength(2);
    expect(delivery!.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout']);
  });

  it('stops after maxAttempts: failed, and nothing more however far the clock moves', async () => {
    const hooks = await receiver(always(503));
    const { engine: deliveries, move } = engine({ maxAttempts: 3, backoffSeconds: [1, 2] });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: 1 });
    await deliveries.idle();
    await move('default', 1_000);
    await move('default', 2_000);
    const delivery = await deliveries.get(id);
    expect(delivery).toMatchObject({ status: 'failed' });
    expect(delivery!.nextAttemptAt).toBeUndefined();
    expect(delivery!.attempts.map((a) => [a.at - FROZEN_AT, a.nextAttemptAt && a.nextAttemptAt - FROZEN_AT])).toEqual([
      [0, 1_000],
      [1_000, 3_000],
      [3_000, undefined],
    ]);
    await move('default', 30 * 24 * 3_600_000);
    expect(hooks.received).toHaveLength(3);
    expect(await deliveries.list({ status: 'failed' })).toHaveLength(1);
  });

  it("runs on each workspace's own clock: moving one fires that workspace's retries only", async () => {
    const hooks = await receiver((n, request, response) => response.writeHead(request.url === '/a' && n > 2 ? 200 : 500).end());
    const { engine: deliveries, move } = engine();
    const base = hooks.url.replace('/hook', '');
    const a = await deliveries.enqueue({ workspace: 'a', url: `${base}/a`, event: 'ping', payload: 'a' });
    const b = await deliveries.enqueue({ workspace: 'b', url: `${base}/b`, event: 'ping', payload: 'b' });
    await deliveries.idle();
    expect(hooks.received.map((r) => r.path).sort()).toEqual(['/a', '/b']);
    await move('a', 5_000);
    expect(hooks.received.map((r) => r.path)).toHaveLength(3);
    expect(hooks.received[2]!.path).toBe('/a');
    expect((await deliveries.get(a.id))!.status).toBe('delivered');
    expect((await deliveries.get(b.id))!.attempts).toHaveLength(1);
    expect(await deliveries.list({ workspace: 'b' })).toEqual([expect.objectContaining({ id: b.id, status: 'pending' })]);
    await move('b', 5_000);
    expect((await deliveries.get(b.id))!.attempts).toHaveLength(2);
  });

  it('answers enqueue before any network I/O: the first attempt starts after the caller’s turn', async () => {
    const hooks = await receiver(never);
    let sends = 0;
    const { engine: deliveries } = engine({
      timeoutMs: SHORT_TIMEOUT_MS,
      transport: (...args) => {
        sends++;
        return nodeTransport(...args);
      },
    });
    let turnEnded = false;
    setImmediate(() => (turnEnded = true));
    const queued = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    expect(turnEnded).toBe(false);
    expect(sends).toBe(0);
    expect(hooks.connections).toBe(0);
    expect(await deliveries.get(queued.id)).toMatchObject({ status: 'pending', attempts: [] });
    await hooks.taken(1);
    await deliveries.idle();
    expect(sends).toBe(1);
  });

  it('fires a retry from its timer when the clock runs on its own', async () => {
    const hooks = await receiver((n, _request, response) => response.writeHead(n === 1 ? 500 : 200).end());
    // A running clock and a 50 ms backoff: the wait below is for the receiver's second arrival, which the timer causes.
    const clocks = new WorkspaceClocks(Date.now, undefined);
    const deliveries = new Deliveries({ clock: workspaceClock(clocks), backoffSeconds: [0.05] });
    open.push({
      close: async () => {
        deliveries.close();
        await deliveries.idle();
      },
    });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await hooks.taken(2);
    await deliveries.idle();
    const delivery = await deliveries.get(id);
    expect(delivery!.status).toBe('delivered');
    expect(delivery!.attempts[1]!.at).toBeGreaterThanOrEqual(delivery!.attempts[0]!.nextAttemptAt!);
  });

  it('sends each attempt once when two engines share a store (the replicas’ case): the claim decides who sends', async () => {
    const hooks = await receiver((n, _request, response) => response.writeHead(n === 1 ? 500 : 200).end());
    const store = new MemoryDeliveryStore();
    const one = engine({ store });
    // Both read the same clocks, as replicas do once the clocks are shared.
    const two = engine({ store, clock: { now: (w) => one.clocks.of(w).now() } });
    const { id } = await one.engine.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    two.engine.clockMoved();
    await Promise.all([one.engine.idle(), two.engine.idle()]);
    expect(hooks.received).toHaveLength(1);
    one.clocks.advance('default', 5_000);
    one.engine.clockMoved();
    two.engine.clockMoved();
    await Promise.all([one.engine.idle(), two.engine.idle()]);
    expect(hooks.received).toHaveLength(2);
    expect((await two.engine.get(id))!.attempts.map((a) => a.outcome)).toEqual(['failed', 'delivered']);
  });
});
