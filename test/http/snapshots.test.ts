import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  ADMIN,
  type Actor,
  type Seen,
  before,
  call,
  issuePro,
  json,
  KEY,
  meanwhile,
  probe,
  serve,
  shown,
  SNAPSHOT_LIMITS,
  type Served,
} from '../support/snapshot-scenario.js';
import { testSandbox } from '../support/sandbox.js';

async function served(overrides: Parameters<typeof testSandbox>[0] = {}): Promise<Served> {
  const running = await serve(await testSandbox({ ...SNAPSHOT_LIMITS, ...overrides }));
  onTestFinished(() => running.stop());
  return running;
}

const snapshots = (workspace: string) => `/__sandbox/workspaces/${workspace}/snapshots`;

describe('workspace snapshots, in memory', () => {
  it('restores a snapshot taken mid-scenario: the same requests get the same answers, byte for byte', async () => {
    const { url } = await served();
    const actor = await issuePro(url);
    const deleted = await before(url, actor);
    const taken = await call(url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'mid' });
    expect(taken.status, taken.body).toBe(201);
    const first = await probe(url, actor, deleted);
    // The probe saw what it is meant to: a new id, a rule, the limit, refusals and a ban.
    expect(first.map((s) => s.status)).toEqual([201, 200, 404, 503, 503, 200, 429, 429, 429, 200, 200, 200]);
    await meanwhile(url, actor);
    const restored = await call(url, 'POST', `${snapshots(actor.workspace)}/mid/restore`, ADMIN);
    expect(restored.status, restored.body).toBe(200);
    expect(shown(await probe(url, actor, deleted))).toEqual(shown(first));
  });

  it('restores as often as asked, and keeps the snapshot through a reset of its workspace', async () => {
    const { url } = await served();
    const actor = await issuePro(url);
    const deleted = await before(url, actor);
    expect((await call(url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'mid' })).status).toBe(201);
    const first = await probe(url, actor, deleted);
    expect((await call(url, 'POST', `/__sandbox/workspaces/${actor.workspace}/reset`, ADMIN)).status).toBe(200);
    for (let round = 0; round < 2; round++) {
      expect((await call(url, 'POST', `${snapshots(actor.workspace)}/mid/restore`, ADMIN)).status).toBe(200);
      expect(shown(await probe(url, actor, deleted))).toEqual(shown(first));
    }
  });

  it('holds no records for a workspace that never wrote one, and restoring it takes the records back to the seed', async () => {
    const { url } = await served();
    const actor = await issuePro(url);
    expect((await call(url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'untouched' })).status).toBe(201);
    const exported = json<{ parts: Record<string, unknown> }>(await call(url, 'GET', `${snapshots(actor.workspace)}/untouched`, ADMIN));
    expect(exported.parts.records).toEqual({});
    expect(exported.parts.counters).toEqual({});
    expect(exported.parts.rules).toEqual([]);
    expect(exported.parts.transitions).toEqual([]);
    const seed = await call(url, 'GET', '/v1/pets?limit=100', KEY(actor.key));
    expect((await call(url, 'POST', '/v1/pets', KEY(actor.key), { name: 'Gone', categoryId: 1 })).status).toBe(201);
    expect((await call(url, 'POST', `${snapshots(actor.workspace)}/untouched/restore`, ADMIN)).status).toBe(200);
    expect((await call(url, 'GET', '/v1/pets?limit=100', KEY(actor.key))).body).toBe(seed.body);
  });

  it('leaves out what decision 0026 leaves out: keys issued since, the journal and webhook subscriptions stay as they are', async () => {
    const { url } = await served();
    const actor = await issuePro(url);
    expect((await call(url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'early' })).status).toBe(201);
    const later = await call(url, 'POST', '/__sandbox/keys', ADMIN, { plan: 'pro', workspace: actor.workspace });
    expect(later.status).toBe(201);
    const subscribed = await call(url, 'POST', '/__sandbox/webhooks', ADMIN, {
      event: 'pets.created',
      url: 'http://127.0.0.1:9/hooks',
      workspace: actor.workspace,
    });
    expect(subscribed.status, subscribed.body).toBe(201);
    expect((await call(url, 'GET', '/v1/pets?limit=1', KEY(actor.key))).status).toBe(200);
    const journal = (await call(url, 'GET', `/__sandbox/requests?workspace=${actor.workspace}`, ADMIN)).body;
    expect((await call(url, 'POST', `${snapshots(actor.workspace)}/early/restore`, ADMIN)).status).toBe(200);
    expect((await call(url, 'GET', `/__sandbox/requests?workspace=${actor.workspace}`, ADMIN)).body).toBe(journal);
    expect((await call(url, 'GET', '/v1/pets?limit=1', KEY(json<Actor>(later).key))).status).toBe(200);
    expect(
      json<{ webhooks: unknown[] }>(await call(url, 'GET', `/__sandbox/webhooks?workspace=${actor.workspace}`, ADMIN)).webhooks,
    ).toHaveLength(1);
  });

  it('follows a restored record that moves on the clock from where the snapshot left it (timed transitions)', async () => {
    const running = await serve(
      await testSandbox({ transitions: [{ collection: 'pets', field: 'status', from: 'available', to: 'pending', after: '1h' }] }),
    );
    onTestFinished(() => running.stop());
    const { url } = running;
    const actor = await issuePro(url);
    const created = await call(url, 'POST', '/v1/pets', KEY(actor.key), { name: 'Rex', categoryId: 1, status: 'available' });
    expect(created.status, created.body).toBe(201);
    const pet = `/v1/pets/${json<{ id: number }>(created).id}`;
    const clock = `/__sandbox/workspaces/${actor.workspace}/clock`;
    expect((await call(url, 'POST', clock, ADMIN, { advanceSeconds: 1_800 })).status).toBe(200);
    expect((await call(url, 'POST', snapshots(actor.workspace), ADMIN, { name: 'half-way' })).status).toBe(201);
    expect((await call(url, 'POST', clock, ADMIN, { advanceSeconds: 7_200 })).status).toBe(200);
    expect(json<{ status: string }>(await call(url, 'GET', pet, KEY(actor.key))).status).toBe('pending');
    expect((await call(url, 'POST', `${snapshots(actor.workspace)}/half-way/restore`, ADMIN)).status).toBe(200);
    expect(json<{ status: string }>(await call(url, 'GET', pet, KEY(actor.key))).status).toBe('available');
    // Half an hour was left before the snapshot: it moves at its time, not an hour after the restore.
    expect((await call(url, 'POST', clock, ADMIN, { advanceSeconds: 1_800 })).status).toBe(200);
    expect(json<{ status: string }>(await call(url, 'GET', pet, KEY(actor.key))).status).toBe('pending');
  });

  it('lists, refuses a name taken unless replaced, deletes, and answers 404 for what is not there', async () => {
    const { url } = await served();
    const base = snapshots('default');
    const rows = [
      { method: 'POST', path: base, body: { name: 'one' }, status: 201 },
      { method: 'POST', path: base, body: { name: 'one' }, status: 409, code: 'resource_exists' },
      { method: 'POST', path: base, body: { name: 'one', replace: true }, status: 200 },
      { method: 'POST', path: base, body: { name: '../x' }, status: 400, code: 'validation_failed' },
      { method: 'GET', path: `${base}/two`, status: 404, code: 'resource_not_found' },
      { method: 'POST', path: `${base}/two/restore`, status: 404, code: 'resource_not_found' },
      { method: 'GET', path: '/__sandbox/workspaces/ws_nope/snapshots', status: 404, code: 'resource_not_found' },
      { method: 'DELETE', path: `${base}/one`, status: 204 },
      { method: 'DELETE', path: `${base}/one`, status: 404, code: 'resource_not_found' },
    ] as const;
    for (const row of rows) {
      const seen = await call(url, row.method, row.path, ADMIN, 'body' in row ? row.body : undefined);
      expect(seen.status, `${row.method} ${row.path} ${seen.body}`).toBe(row.status);
      if ('code' in row) expect(json<{ code: string }>(seen).code).toBe(row.code);
    }
    expect((await call(url, 'POST', base, ADMIN, { name: 'b' })).status).toBe(201);
    expect((await call(url, 'POST', base, ADMIN, { name: 'a' })).status).toBe(201);
    const listed = json<{ snapshots: { name: string; takenIn: string; sizes: { bytes: number } }[] }>(await call(url, 'GET', base, ADMIN));
    expect(listed.snapshots.map((s) => [s.name, s.takenIn])).toEqual([
      ['a', 'default'],
      ['b', 'default'],
    ]);
    expect(listed.snapshots[0]?.sizes.bytes).toBeGreaterThan(0);
  });

  it('refuses an imported document that does not read, naming each field at fault', async () => {
    const { url } = await served();
    const path = `${snapshots('default')}/broken`;
    const rows = [
      { body: { format: 'other', version: 1, workspace: 'default', takenAt: '2026-11-22T10:00:30Z', parts: {} }, at: 'body.format' },
      {
        body: {
          format: 'understudy-snapshot',
          version: 1,
          workspace: 'default',
          takenAt: '2026-11-22T10:00:30Z',
          parts: {
            records: { pets: { next: 2, rows: [{ id: 2 }, { id: 1 }] } },
            counters: {},
            clocks: { now: 0, follows: true },
            rules: [],
          },
        },
        at: 'body.parts.records.pets.rows[1].id',
      },
      {
        body: {
          format: 'understudy-snapshot',
          version: 1,
          workspace: 'default',
          takenAt: '2026-11-22T10:00:30Z',
          parts: { records: {}, counters: { key_x: { windows: [], refusals: {}, bannedUntil: 0 } }, clocks: { now: 0 }, rules: [] },
        },
        at: 'body.parts.counters.key_x.refusals',
      },
    ];
    for (const row of rows) {
      const seen = await call(url, 'PUT', path, ADMIN, row.body);
      expect(seen.status, seen.body).toBe(400);
      const error = json<{ code: string; details: { location: string }[] }>(seen);
      expect(error.code).toBe('validation_failed');
      expect(error.details.map((d) => d.location)).toContain(row.at);
    }
    expect((await call(url, 'GET', path, ADMIN)).status).toBe(404);
  });
});

describe('workspace snapshots, exported and imported', () => {
  /** A configured key in a configured workspace: the same key, id and workspace in every sandbox started so. */
  const QA = { keys: [{ key: 'qa-pro-key', plan: 'pro', workspace: 'qa' }] };
  const actorOf = async (url: string): Promise<Actor> => {
    const listed = json<{ keys: { id: string }[] }>(await call(url, 'GET', '/__sandbox/keys?workspace=qa', ADMIN));
    return { key: 'qa-pro-key', id: listed.keys[0]?.id ?? '', workspace: 'qa' };
  };

  /** Sandbox A up to its snapshot, the probe's answers right after it, and the exported document. */
  async function taken(): Promise<{ first: Seen[]; document: string; deleted: number; actor: Actor }> {
    const { url } = await served(QA);
    const actor = await actorOf(url);
    const deleted = await before(url, actor);
    expect((await call(url, 'POST', snapshots('qa'), ADMIN, { name: 'mid' })).status).toBe(201);
    const document = (await call(url, 'GET', `${snapshots('qa')}/mid`, ADMIN)).body;
    return { first: await probe(url, actor, deleted), document, deleted, actor };
  }

  it('imports an exported snapshot into another sandbox, whose restore gives the same answers', async () => {
    const { first, document, deleted, actor } = await taken();
    const { url } = await served(QA);
    const imported = await call(url, 'PUT', `${snapshots('qa')}/shipped`, ADMIN, JSON.parse(document));
    expect(imported.status, imported.body).toBe(201);
    expect(json<{ name: string; takenIn: string }>(imported)).toMatchObject({ name: 'shipped', takenIn: 'qa' });
    expect((await call(url, 'POST', `${snapshots('qa')}/shipped/restore`, ADMIN)).status).toBe(200);
    expect(shown(await probe(url, actor, deleted))).toEqual(shown(first));
  });

  it('restores a snapshot file given at start (--snapshot) before the first answer, and again on request after a reset', async () => {
    const { first, document, deleted, actor } = await taken();
    const file = join(await mkdtemp(join(tmpdir(), 'understudy-snapshot-')), 'mid.json');
    onTestFinished(() => rm(dirname(file), { recursive: true, force: true }));
    await writeFile(file, document);
    const { url } = await served({ ...QA, snapshot: file });
    expect(shown(await probe(url, actor, deleted))).toEqual(shown(first));
    expect((await call(url, 'POST', '/__sandbox/reset', ADMIN)).status).toBe(200);
    expect(json<{ snapshots: { name: string }[] }>(await call(url, 'GET', snapshots('qa'), ADMIN)).snapshots.map((s) => s.name)).toEqual([
      'mid',
    ]);
    expect((await call(url, 'POST', `${snapshots('qa')}/mid/restore`, ADMIN)).status).toBe(200);
    expect(shown(await probe(url, actor, deleted))).toEqual(shown(first));
  });

  it('stops the start on a snapshot file that does not read, or names a workspace that is not there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-snapshot-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const rows = [
      { text: '{"format":', error: /cannot be read/ },
      { text: JSON.stringify({ format: 'understudy-snapshot', name: 'x', workspace: 'elsewhere' }), error: /workspace "elsewhere"/ },
      { text: JSON.stringify({ format: 'understudy-snapshot', version: 2, name: 'x', workspace: 'qa' }), error: /body\.version/ },
    ];
    for (const [i, row] of rows.entries()) {
      const file = join(dir, `${i}.json`);
      await writeFile(file, row.text);
      await expect(testSandbox({ ...SNAPSHOT_LIMITS, ...QA, snapshot: file })).rejects.toThrow(row.error);
    }
  });
});
