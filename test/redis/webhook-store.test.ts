import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceClocks } from '../../src/clock/workspace-clocks.js';
import { Deliveries, workspaceClock } from '../../src/webhooks/deliveries.js';
import type { StoredDelivery } from '../../src/webhooks/records.js';
import { RedisDeliveryStore } from '../../src/webhooks/redis-delivery-store.js';
import { MemoryDeliveryStore, type DeliveryStore } from '../../src/webhooks/store.js';
import { redisForFile } from '../support/redis.js';
import { FROZEN_AT } from '../support/webhook-engine.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

/**
 * The delivery stores behave alike (the same contract, run on the memory store and on a real
 * redis-server), and engines on separate connections to one Redis, as replicas are, send each
 * attempt once and share one queue limit.
 */

const { connect } = redisForFile();
let prefixes = 0;

const delivery = (id: string, workspace: string, status: StoredDelivery['status'], createdAt = FROZEN_AT): StoredDelivery => ({
  id,
  workspace,
  event: 'ping',
  url: 'http://127.0.0.1:9/',
  status,
  createdAt,
  attempts: [],
  body: '{}',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  headers: {},
});
const limits = { pendingLimit: 2, historyLimit: 3 };
const ids = (found: readonly StoredDelivery[]): string[] => found.map((d) => d.id).sort();

describe.each([
  ['memory', (): Promise<DeliveryStore> => Promise.resolve(new MemoryDeliveryStore())],
  ['redis', async (): Promise<DeliveryStore> => new RedisDeliveryStore(await connect(), `t${++prefixes}:`)],
])('the %s delivery store', (_name, makeStore) => {
  it('adds within the pending limit, and keeps the history limit by dropping the oldest finished', async () => {
    const store = await makeStore();
    expect(await store.add(delivery('m1', 'a', 'delivered', FROZEN_AT + 1), limits)).toBe(true);
    expect(await store.add(delivery('m2', 'a', 'pending', FROZEN_AT + 2), limits)).toBe(true);
    expect(await store.add(delivery('m3', 'a', 'pending', FROZEN_AT + 3), limits)).toBe(true);
    expect(await store.add(delivery('m4', 'a', 'pending', FROZEN_AT + 4), limits)).toBe(false);
    expect(await store.get('m4')).toBeUndefined();
    // Another workspace has its own limit; a finished delivery is never limited.
    expect(await store.add(delivery('m5', 'b', 'pending'), limits)).toBe(true);
    expect(await store.add(delivery('m6', 'a', 'refused', FROZEN_AT + 6), limits)).toBe(true);
    expect(await store.add(delivery('m7', 'a', 'failed', FROZEN_AT + 7), limits)).toBe(true);
    // Five were added to a; three are kept: the pending two, and the newest finished one.
    expect((await store.list({ workspace: 'a' })).map((d) => d.id)).toEqual(['m2', 'm3', 'm7']);
    expect(await store.get('m1')).toBeUndefined();
    expect(ids(await store.list({}))).toEqual(['m2', 'm3', 'm5', 'm7']);
    expect(ids(await store.list({ status: 'pending' }))).toEqual(['m2', 'm3', 'm5']);
    expect(ids(await store.active())).toEqual(['m2', 'm3', 'm5']);
    expect(await store.get('m5')).toEqual(delivery('m5', 'b', 'pending'));
  });

  it('updates the latest version, keeps the active set with it, and answers undefined when gone', async () => {
    const store = await makeStore();
    await store.add(delivery('m1', 'a', 'pending'), limits);
    await store.add(delivery('m2', 'a', 'delivered'), limits);
    expect(await store.update('m1', (d) => ({ ...d, status: 'delivered' }))).toMatchObject({ status: 'delivered' });
    expect(await store.update('m2', (d) => ({ ...d, replayRequested: true }))).toMatchObject({ replayRequested: true });
    expect(ids(await store.active())).toEqual(['m2']);
    expect(await store.get('m1')).toMatchObject({ status: 'delivered' });
    // m1 no longer counts towards the pending limit.
    expect(await store.add(delivery('m3', 'a', 'pending'), limits)).toBe(true);
    expect(await store.add(delivery('m4', 'a', 'pending'), limits)).toBe(true);
    expect(await store.update('nope', (d) => d)).toBeUndefined();
  });

  it('grants a claim once', async () => {
    const store = await makeStore();
    expect(await store.claim('m1', 1, 60_000)).toBe(true);
    expect(await store.claim('m1', 1, 60_000)).toBe(false);
    expect(await store.claim('m1', 2, 60_000)).toBe(true);
  });

  it('forgets one workspace, and resets all', async () => {
    const store = await makeStore();
    await store.add(delivery('m1', 'a', 'pending'), limits);
    await store.add(delivery('m2', 'b', 'pending'), limits);
    await store.forget('a');
    expect(await store.get('m1')).toBeUndefined();
    expect(ids(await store.list({}))).toEqual(['m2']);
    expect(await store.add(delivery('m3', 'a', 'pending'), limits)).toBe(true);
    await store.reset();
    expect(await store.list({})).toEqual([]);
    expect(await store.active()).toEqual([]);
    expect(await store.get('m2')).toBeUndefined();
  });
});

describe('a claim expires, so that an attempt a dead replica held is made again', () => {
  it('in memory, on the wall clock it is given', async () => {
    let now = FROZEN_AT;
    const store = new MemoryDeliveryStore(() => now);
    expect(await store.claim('m1', 1, 1_000)).toBe(true);
    now += 999;
    expect(await store.claim('m1', 1, 1_000)).toBe(false);
    now += 1;
    expect(await store.claim('m1', 1, 1_000)).toBe(true);
  });

  it("in Redis, by the key's own expiry", async () => {
    const redis = await connect();
    const store = new RedisDeliveryStore(redis, 'claims:');
    expect(await store.claim('m1', 3, 60_000)).toBe(true);
    const ttl = await redis.pttl('claims:webhooks:claim:m1#3');
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('engines on one Redis, as replicas', () => {
  let receiver: Receiver | undefined;
  const engines: Deliveries[] = [];
  afterEach(async () => {
    for (const engine of engines) engine.close();
    await Promise.all(engines.map((engine) => engine.idle()));
    engines.length = 0;
    await receiver?.close();
  });
  const replicas = async (prefix: string, options: { queueLimit?: number } = {}) => {
    const clocks = new WorkspaceClocks(Date.now, FROZEN_AT);
    for (let i = 0; i < 2; i++) {
      const store = new RedisDeliveryStore(await connect(), prefix);
      engines.push(new Deliveries({ clock: workspaceClock(clocks), store, ...options }));
    }
    return { clocks, one: engines[0]!, two: engines[1]! };
  };

  it('sends each attempt once, whichever replica sees it due', async () => {
    receiver = await startReceiver((n, _request, response) => response.writeHead(n === 1 ? 500 : 200).end());
    const { clocks, one, two } = await replicas('r1:');
    const { id } = await one.enqueue({ workspace: 'default', url: receiver.url, event: 'ping', payload: {} });
    two.clockMoved();
    await Promise.all([one.idle(), two.idle()]);
    expect(receiver.received).toHaveLength(1);
    clocks.advance('default', 5_000);
    one.clockMoved();
    two.clockMoved();
    await Promise.all([one.idle(), two.idle()]);
    expect(receiver.received).toHaveLength(2);
    expect((await two.get(id))!.attempts.map((a) => a.outcome)).toEqual(['failed', 'delivered']);
  });

  it('shares one queue limit: two replicas cannot both take the last place', async () => {
    const { one, two } = await replicas('r2:', { queueLimit: 1 });
    // Nothing listens on port 9 on loopback: attempts fail, so the deliveries stay pending.
    const input = { workspace: 'default', url: 'http://127.0.0.1:9/', event: 'ping', payload: {} };
    const both = await Promise.all([one.enqueue(input), two.enqueue(input)]);
    expect(both.map((q) => q.status).sort()).toEqual(['pending', 'refused']);
  });
});
