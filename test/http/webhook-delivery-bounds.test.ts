import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/webhooks/allow.js';
import type { AttemptRecord } from '../../src/webhooks/records.js';
import { nodeTransport, type Transport } from '../../src/webhooks/send.js';
import { FROZEN_AT, SHORT_TIMEOUT_MS, testEngine, type TestEngine } from '../support/webhook-engine.js';
import { always, never, startReceiver, type Receiver } from '../support/webhook-receiver.js';

// What the engine refuses and bounds, on real loopback receivers: the allow-list, redirects, answer
// size, the queue and history limits; and replay, forget and subscribers.

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

/** The real transport, counting what it is asked to send (a refused address must never reach it). */
const watched = (): { transport: Transport; sent: string[] } => {
  const sent: string[] = [];
  return {
    sent,
    transport: (target, request, limits) => {
      sent.push(target.address);
      return nodeTransport(target, request, limits);
    },
  };
};

describe('the allow-list, on the delivery path', () => {
  it('refuses a name that resolves outside it, records why, and never connects nor retries', async () => {
    const { transport, sent } = watched();
    const asked: string[] = [];
    // No receiver lives at 10.1.2.3 (nor may a test send there): the stub only makes the name resolve.
    const resolver: Resolver = (host) => {
      asked.push(host);
      return Promise.resolve([{ address: '10.1.2.3', family: 4 }]);
    };
    const { engine: deliveries, move } = engine({ transport, resolver });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: 'http://hooks.internal.test:8080/x', event: 'ping', payload: {} });
    await deliveries.idle();
    const delivery = await deliveries.get(id);
    expect(delivery).toMatchObject({
      status: 'refused',
      reason: 'hooks.internal.test resolves to 10.1.2.3, which is not in outbound.allow',
    });
    expect(delivery!.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'refused', at: FROZEN_AT })]);
    expect(delivery!.attempts[0]!.nextAttemptAt).toBeUndefined();
    await move('default', 48 * 3_600_000);
    expect(asked).toEqual(['hooks.internal.test']);
    expect(sent).toEqual([]);
  });

  it('tries the name’s next address when nothing listens at the first (localhost as ::1 first), and no further once one answers', async () => {
    const hooks = await receiver(always(204, ''));
    const { transport, sent } = watched();
    // The receiver listens on 127.0.0.1 only; the name resolves to ::1 first, as localhost does on macOS.
    const resolver: Resolver = () =>
      Promise.resolve([
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]);
    const { engine: deliveries } = engine({ transport, resolver });
    const url = `http://hooks.loopback.test:${hooks.port}/hook`;
    const { id } = await deliveries.enqueue({ workspace: 'default', url, event: 'ping', payload: {} });
    await deliveries.idle();
    expect(await deliveries.get(id)).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, outcome: 'delivered' }] });
    // Each address once, the duplicate dropped; the receiver is told the name it was given.
    expect(sent).toEqual(['::1', '127.0.0.1']);
    expect(hooks.received.map((r) => r.headers.host)).toEqual([`hooks.loopback.test:${hooks.port}`]);

    // An answer from the first address ends the attempt, whatever it says.
    const failing = await receiver(always(503, ''));
    sent.length = 0;
    const first: Resolver = () =>
      Promise.resolve([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
    const { engine: other } = engine({ transport, resolver: first });
    await other.enqueue({ workspace: 'default', url: `http://hooks.loopback.test:${failing.port}/hook`, event: 'ping', payload: {} });
    await other.idle();
    expect(sent).toEqual(['127.0.0.1']);
  });

  it('refuses an address outside it without asking the resolver', async () => {
    const { transport, sent } = watched();
    const resolver: Resolver = () => Promise.reject(new Error('not asked'));
    const { engine: deliveries } = engine({ transport, resolver });
    for (const url of ['http://10.1.2.3/', 'http://[::ffff:a01:203]/', 'http://169.254.169.254/latest', 'ftp://127.0.0.1/']) {
      await deliveries.enqueue({ workspace: 'default', url, event: 'ping', payload: {} });
    }
    await deliveries.idle();
    expect((await deliveries.list()).map((d) => d.status)).toEqual(['refused', 'refused', 'refused', 'refused']);
    expect(sent).toEqual([]);
  });

  it('connects to the address it checked, with the name in Host, resolving once per attempt (no rebinding)', async () => {
    const hooks = await receiver(always(200));
    const { transport, sent } = watched();
    // A name that answers loopback to the check and a private address to anything that asks again.
    let lookups = 0;
    const resolver: Resolver = () => Promise.resolve([{ address: lookups++ === 0 ? '127.0.0.1' : '10.1.2.3', family: 4 }]);
    const { engine: deliveries } = engine({ transport, resolver });
    const { id } = await deliveries.enqueue({
      workspace: 'default',
      url: `http://hooks.example.test:${hooks.port}/in`,
      event: 'ping',
      payload: {},
    });
    await deliveries.idle();
    expect((await deliveries.get(id))!.status).toBe('delivered');
    expect(lookups).toBe(1);
    expect(sent).toEqual(['127.0.0.1']);
    expect(hooks.received[0]).toMatchObject({
      path: '/in',
      headers: expect.objectContaining({ host: `hooks.example.test:${hooks.port}` }),
    });
  });

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    const elsewhere = await receiver(always(200));
    const hooks = await receiver((_n, _request, response) => response.writeHead(302, { location: elsewhere.url }).end());
    const { engine: deliveries } = engine();
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await deliveries.idle();
    const delivery = await deliveries.get(id);
    expect(delivery!.status).toBe('pending');
    expect(delivery!.attempts[0]).toMatchObject({ outcome: 'failed', error: `redirect (302 to ${elsewhere.url}) not followed` });
    expect(elsewhere.connections).toBe(0);
  });
});

describe('bounds', () => {
  it('bounds name resolution by the timeout too: a resolver that hangs fails the attempt, to be retried', async () => {
    const { transport, sent } = watched();
    const { engine: deliveries } = engine({ transport, resolver: () => new Promise(() => undefined), timeoutMs: SHORT_TIMEOUT_MS });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: 'http://slow.test/', event: 'ping', payload: {} });
    await deliveries.idle();
    const delivery = await deliveries.get(id);
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: FROZEN_AT + 5_000 });
    expect(delivery!.attempts[0]).toMatchObject({ outcome: 'failed', error: 'slow.test did not resolve: no address within 200 ms' });
    expect(sent).toEqual([]);
  });

  it('fails an attempt whose answer is over the size cap, keeping the capped start of it', async () => {
    const hooks = await receiver(always(200, 'x'.repeat(5_000)));
    const { engine: deliveries } = engine({ maxResponseBytes: 1_024 });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await deliveries.idle();
    const [attempt] = (await deliveries.get(id))!.attempts;
    expect(attempt).toMatchObject({ outcome: 'failed', error: 'the answer is larger than 1024 bytes' });
    expect(attempt!.response!.body).toHaveLength(1_024);
  });

  it('refuses a delivery past the queue limit, with the reason recorded', async () => {
    const hooks = await receiver(always(500));
    const { engine: deliveries } = engine({ queueLimit: 2, historyLimit: 10 });
    const queued = [];
    for (let i = 0; i < 3; i++) queued.push(await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: i }));
    expect(queued.map((q) => q.status)).toEqual(['pending', 'pending', 'refused']);
    expect(queued[2]!.reason).toMatch(/already has 2 deliveries pending/);
    // Another workspace has a queue of its own.
    expect((await deliveries.enqueue({ workspace: 'other', url: hooks.url, event: 'ping', payload: 3 })).status).toBe('pending');
    await deliveries.idle();
    expect(hooks.received).toHaveLength(3);
    expect(await deliveries.get(queued[2]!.id)).toMatchObject({ status: 'refused', attempts: [] });
  });

  it('keeps the last historyLimit deliveries of a workspace', async () => {
    const hooks = await receiver(always(200));
    const { engine: deliveries } = engine({ queueLimit: 1, historyLimit: 2 });
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: i })).id);
      await deliveries.idle();
    }
    expect((await deliveries.list({ workspace: 'default' })).map((d) => d.id)).toEqual(ids.slice(1));
  });

  it('refuses a bad secret or header at once, sending nothing', async () => {
    const { engine: deliveries } = engine();
    const badSecret = await deliveries.enqueue({
      workspace: 'default',
      url: 'http://127.0.0.1:9/',
      secret: 'whsec_!!',
      event: 'e',
      payload: {},
    });
    const badHeader = await deliveries.enqueue({
      workspace: 'default',
      url: 'http://127.0.0.1:9/',
      event: 'e',
      payload: {},
      headers: { 'x-a': 'a\nb' },
    });
    expect([badSecret.status, badHeader.status]).toEqual(['refused', 'refused']);
    expect(badSecret.reason).toMatch(/base64/);
    expect(badHeader.reason).toMatch(/x-a/);
  });
});

describe('replay, forget and subscribers', () => {
  it('replays a delivery now: the same id and body, a fresh timestamp, outside the retry schedule', async () => {
    const hooks = await receiver(always(200));
    let signings = 0;
    const { engine: deliveries } = engine({ signingClock: () => Date.now() + 7_000 * signings++ });
    const { id, secret } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: { v: 1 } });
    await deliveries.idle();
    expect(await deliveries.replay(id)).toMatchObject({ id, status: 'delivered' });
    await deliveries.idle();
    const [first, again] = hooks.received;
    expect(again!.headers['webhook-id']).toBe(id);
    expect(again!.body).toBe(first!.body);
    expect(Number(again!.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']));
    expect(new Webhook(secret).verify(again!.body, again!.headers)).toEqual({ v: 1 });
    const delivery = await deliveries.get(id);
    expect(delivery!.attempts.map((a) => [a.attempt, a.outcome, a.replay])).toEqual([
      [1, 'delivered', undefined],
      [2, 'delivered', true],
    ]);
    expect(await deliveries.replay('msg_unknown')).toBeUndefined();
  });

  it('keeps a replay asked for while a scheduled attempt is under way, and makes it after', async () => {
    const hooks = await receiver(never);
    const { engine: deliveries } = engine({ timeoutMs: SHORT_TIMEOUT_MS });
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await hooks.taken(1);
    await deliveries.replay(id);
    await deliveries.idle();
    const delivery = await deliveries.get(id);
    expect(hooks.received).toHaveLength(2);
    expect(delivery!.attempts.map((a) => [a.outcome, a.replay])).toEqual([
      ['timeout', undefined],
      ['timeout', true],
    ]);
    // The failed replay leaves the schedule as the first attempt set it.
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: FROZEN_AT + 5_000 });
  });

  it('forgets a workspace: its pending deliveries are gone and never retried; others go on', async () => {
    const hooks = await receiver((_n, request, response) => response.writeHead(500).end(request.url));
    const { engine: deliveries, move } = engine();
    await deliveries.enqueue({ workspace: 'a', url: `${hooks.url}?a`, event: 'ping', payload: {} });
    const b = await deliveries.enqueue({ workspace: 'b', url: `${hooks.url}?b`, event: 'ping', payload: {} });
    await deliveries.idle();
    await deliveries.forget('a');
    await move('a', 5_000);
    await move('b', 5_000);
    expect(hooks.received.map((r) => r.path).sort()).toEqual(['/hook?a', '/hook?b', '/hook?b']);
    expect(await deliveries.list({ workspace: 'a' })).toEqual([]);
    expect((await deliveries.list()).map((d) => d.id)).toEqual([b.id]);
    await deliveries.reset();
    expect(await deliveries.list()).toEqual([]);
  });

  it('tells subscribers of every attempt; one that throws neither stops the others nor the delivery', async () => {
    const hooks = await receiver((n, _request, response) => response.writeHead(n === 1 ? 500 : 200).end());
    const { engine: deliveries, move, reported } = engine();
    const seen: [string, AttemptRecord['outcome']][] = [];
    deliveries.onAttempt(() => {
      throw new Error('a broken subscriber');
    });
    deliveries.onAttempt(() => Promise.reject(new Error('a broken async subscriber')));
    const stop = deliveries.onAttempt((delivery, attempt) => void seen.push([delivery.status, attempt.outcome]));
    const { id } = await deliveries.enqueue({ workspace: 'default', url: hooks.url, event: 'ping', payload: {} });
    await deliveries.idle();
    await move('default', 5_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      ['pending', 'failed'],
      ['delivered', 'delivered'],
    ]);
    expect((await deliveries.get(id))!.status).toBe('delivered');
    expect(reported.map((e) => (e as Error).message)).toEqual([
      'a broken subscriber',
      'a broken async subscriber',
      'a broken subscriber',
      'a broken async subscriber',
    ]);
    stop();
    await deliveries.replay(id);
    await deliveries.idle();
    expect(seen).toHaveLength(2);
  });
});
