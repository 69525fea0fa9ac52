import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { testSandbox } from '../support/sandbox.js';
import {
  ADMIN,
  before,
  call,
  json,
  KEY,
  meanwhile,
  probe,
  serve,
  shown,
  SNAPSHOT_LIMITS,
  type Actor,
  type Seen,
  type Served,
} from '../support/snapshot-scenario.js';

/** A configured key in a configured workspace: the same after a restart. */
const QA = { keys: [{ key: 'qa-pro-key', plan: 'pro', workspace: 'qa' }] };
const snapshots = '/__sandbox/workspaces/qa/snapshots';

async function dataFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'understudy-data-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'store.json');
}

/** A sandbox on the data file; stopped at the test's end unless the test stops it first. */
async function started(data: string): Promise<Served> {
  const running = await serve(await testSandbox({ ...SNAPSHOT_LIMITS, ...QA, data }));
  let stopped = false;
  onTestFinished(() => (stopped ? undefined : running.stop()));
  return {
    ...running,
    stop: async () => {
      stopped = true;
      await running.stop();
    },
  };
}

const actorOf = async (url: string): Promise<Actor> => {
  const listed = json<{ keys: { id: string }[] }>(await call(url, 'GET', '/__sandbox/keys?workspace=qa', ADMIN));
  return { key: 'qa-pro-key', id: listed.keys[0]?.id ?? '', workspace: 'qa' };
};

/** Up to the snapshot, on a data file: the probe's answers right after it. */
async function scenario(data: string): Promise<{ running: Served; actor: Actor; deleted: number; first: Seen[] }> {
  const running = await started(data);
  const actor = await actorOf(running.url);
  const deleted = await before(running.url, actor);
  expect((await call(running.url, 'POST', snapshots, ADMIN, { name: 'mid' })).status).toBe(201);
  return { running, actor, deleted, first: await probe(running.url, actor, deleted) };
}

/** What a restart keeps of a probe's answers: counters and bans start afresh after one, records, clocks and rules do not. */
const records = (seen: readonly Seen[]): string[] =>
  [seen[0], seen[1], seen[2], seen.at(-2)].map((s) => `${s?.request} → ${s?.status} ${s?.body}`);

describe('workspace snapshots with a data file', () => {
  it('restores a snapshot taken mid-scenario: the same requests get the same answers, byte for byte', async () => {
    const { running, actor, deleted, first } = await scenario(await dataFile());
    await meanwhile(running.url, actor);
    expect((await call(running.url, 'POST', `${snapshots}/mid/restore`, ADMIN)).status).toBe(200);
    expect(shown(await probe(running.url, actor, deleted))).toEqual(shown(first));
  });

  it('keeps a snapshot across a restart: restored after it, the same answers', async () => {
    const data = await dataFile();
    const { running, actor, deleted, first } = await scenario(data);
    await meanwhile(running.url, actor);
    await running.stop();
    const again = await started(data);
    expect((await call(again.url, 'POST', `${snapshots}/mid/restore`, ADMIN)).status).toBe(200);
    expect(shown(await probe(again.url, actor, deleted))).toEqual(shown(first));
  });

  it('keeps a restore across a restart: the same records, the same id next, the same clock', async () => {
    const data = await dataFile();
    const { running, actor, deleted, first } = await scenario(data);
    await meanwhile(running.url, actor);
    expect((await call(running.url, 'POST', `${snapshots}/mid/restore`, ADMIN)).status).toBe(200);
    await running.stop();
    const again = await started(data);
    expect(records(await probe(again.url, actor, deleted))).toEqual(records(first));
  });

  it('gives a deleted record’s number to no record after a restart (the data file keeps the next row number)', async () => {
    const data = await dataFile();
    const running = await started(data);
    const { key } = await actorOf(running.url);
    const created = json<{ id: number }>(await call(running.url, 'POST', '/v1/pets', KEY(key), { name: 'Last', categoryId: 1 }));
    expect((await call(running.url, 'DELETE', `/v1/pets/${created.id}`, KEY(key))).status).toBe(204);
    await running.stop();
    // Twice: the first start replays the log, the second reads the file the first one wrote afresh.
    for (let start = 0; start < 2; start++) {
      const again = await started(data);
      const next = json<{ id: number }>(await call(again.url, 'POST', '/v1/pets', KEY(key), { name: 'Next', categoryId: 1 }));
      expect(next.id).toBe(created.id + 1 + start);
      await again.stop();
    }
  });
});
