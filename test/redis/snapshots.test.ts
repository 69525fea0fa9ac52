import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startRedis, type TestRedis } from '../support/redis.js';
import { testSandbox } from '../support/sandbox.js';
import {
  ADMIN,
  before,
  call,
  issuePro,
  json,
  meanwhile,
  probe,
  serve,
  shown,
  SNAPSHOT_LIMITS,
  type Served,
} from '../support/snapshot-scenario.js';

let redis: TestRedis;
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** `count` replicas sharing one Redis under a prefix no other test uses. */
async function replicas(count: number): Promise<Served[]> {
  const prefix = `snap${++prefixes}:`;
  const started: Served[] = [];
  for (let i = 0; i < count; i++) {
    const running = await serve(await testSandbox({ ...SNAPSHOT_LIMITS, redis: { url: redis.url, prefix, commandTimeoutMs: 500 } }));
    onTestFinished(() => running.stop());
    started.push(running);
  }
  return started;
}

const snapshots = (workspace: string) => `/__sandbox/workspaces/${workspace}/snapshots`;

describe('workspace snapshots on Redis', () => {
  it('restores a snapshot taken mid-scenario: the same requests get the same answers, byte for byte', async () => {
    const [one] = (await replicas(1)) as [Served];
    const actor = await issuePro(one.url);
    const deleted = await before(one.url, actor);
    expect((await call(one.url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'mid' })).status).toBe(201);
    const first = await probe(one.url, actor, deleted);
    await meanwhile(one.url, actor);
    expect((await call(one.url, 'POST', `${snapshots(actor.workspace)}/mid/restore`, ADMIN)).status).toBe(200);
    expect(shown(await probe(one.url, actor, deleted))).toEqual(shown(first));
  });

  it('restores on one replica a snapshot taken on another, and the restore reaches every replica', async () => {
    const [a, b] = (await replicas(2)) as [Served, Served];
    const actor = await issuePro(a.url);
    const deleted = await before(a.url, actor);
    expect((await call(a.url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'mid' })).status).toBe(201);
    // Replica B lists the snapshot A took.
    const listed = json<{ snapshots: { name: string }[] }>(await call(b.url, 'GET', snapshots(actor.workspace), ADMIN));
    expect(listed.snapshots.map((s) => s.name)).toEqual(['mid']);
    const first = await probe(a.url, actor, deleted);
    await meanwhile(b.url, actor);
    expect((await call(b.url, 'POST', `${snapshots(actor.workspace)}/mid/restore`, ADMIN)).status).toBe(200);
    // Answered on A, which took no part in the restore: records, counters, clock and rules are back there too.
    expect(shown(await probe(a.url, actor, deleted))).toEqual(shown(first));
  });

  it('holds no records for a workspace that never wrote one', async () => {
    const [one] = (await replicas(1)) as [Served];
    const actor = await issuePro(one.url);
    expect((await call(one.url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'untouched' })).status).toBe(201);
    const document = json<{ parts: { records: unknown } }>(await call(one.url, 'GET', `${snapshots(actor.workspace)}/untouched`, ADMIN));
    expect(document.parts.records).toEqual({});
  });
});
