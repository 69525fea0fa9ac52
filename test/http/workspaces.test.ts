import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, auth, EDGES, START, testSandbox } from '../support/sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const startSeconds = Date.parse(START) / 1000;

interface Issued {
  readonly key: string;
  readonly id: string;
  readonly workspace: string;
}

interface WorkspaceView {
  readonly id: string;
  readonly keys: readonly string[];
  readonly recordsWritten: number;
  readonly clock: { readonly now: number; readonly follows: boolean };
  readonly permanent: boolean;
}

describe.each(EDGES)('workspaces through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  const issue = async (body: object = { plan: 'pro' }): Promise<Issued> => {
    const res = await request(app).post('/__sandbox/keys').set(admin).send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Issued;
  };
  const createPet = async (key: string, name: string): Promise<number> => {
    const res = await request(app).post('/v1/pets').set(auth(key)).send({ name, categoryId: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: number }).id;
  };
  const petNames = async (key: string): Promise<string[]> => {
    const names: string[] = [];
    let path: string | undefined = '/v1/pets?limit=100';
    while (path !== undefined) {
      const res: request.Response = await request(app).get(path).set(auth(key));
      expect(res.status).toBe(200);
      names.push(...(res.body as { name: string }[]).map((p) => p.name));
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
      path = next === undefined ? undefined : next.slice(next.indexOf('/v1/'));
    }
    return names;
  };
  const workspaces = async (): Promise<{ workspaces: WorkspaceView[]; evicted: { id: string }[] }> => {
    const res = await request(app).get('/__sandbox/workspaces').set(admin);
    expect(res.status).toBe(200);
    return res.body as { workspaces: WorkspaceView[]; evicted: { id: string }[] };
  };
  const viewOf = async (id: string): Promise<WorkspaceView | undefined> => (await workspaces()).workspaces.find((w) => w.id === id);

  it('gives a key issued without a workspace a private one: what it creates no other key sees, and reading it elsewhere is a 404', async () => {
    const a = await issue();
    const b = await issue();
    expect(a.workspace).toMatch(/^ws_/);
    expect(b.workspace).not.toBe(a.workspace);
    const id = await createPet(a.key, 'Only-in-A');
    expect(await petNames(a.key)).toContain('Only-in-A');
    expect(await petNames(b.key)).not.toContain('Only-in-A');
    expect(await petNames('demo-pro')).not.toContain('Only-in-A');
    const elsewhere = await request(app).get(`/v1/pets/${id}`).set(auth(b.key));
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ code: 'resource_not_found' });
    expect((await request(app).get(`/v1/pets/${id}`).set(auth(a.key))).status).toBe(200);
  });

  it('starts every workspace from the same seed: two fresh workspaces answer byte for byte the same', async () => {
    const a = await issue();
    const b = await issue();
    const list = (key: string) => request(app).get('/v1/pets?limit=50&status=available').set(auth(key));
    const [fromA, fromB] = [await list(a.key), await list(b.key)];
    expect(fromA.status).toBe(200);
    expect(fromA.text).toBe(fromB.text);
    expect((await list('demo-pro')).text).toBe(fromA.text);
  });

  it('joins an existing workspace by id, or the shared one by "default"; an unknown id is a 400 naming the field', async () => {
    const a = await issue();
    await createPet(a.key, 'Shared-By-Two');
    const joined = await issue({ plan: 'free', workspace: a.workspace });
    expect(joined.workspace).toBe(a.workspace);
    expect(await petNames(joined.key)).toContain('Shared-By-Two');
    const shared = await issue({ plan: 'free', workspace: 'default' });
    expect(shared.workspace).toBe('default');
    await createPet('demo-pro', 'In-Default');
    expect(await petNames(shared.key)).toContain('In-Default');
    const unknown = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro', workspace: 'ws_nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'validation_failed', details: [{ location: 'body.workspace' }] });
    expect((await viewOf(a.workspace))?.keys).toEqual([a.id, joined.id]);
  });

  it('lists each workspace with its keys and the records it wrote', async () => {
    const a = await issue();
    await createPet(a.key, 'One');
    await createPet(a.key, 'Two');
    const listed = await viewOf(a.workspace);
    expect(listed).toMatchObject({
      id: a.workspace,
      keys: [a.id],
      recordsWritten: 2,
      permanent: false,
      clock: { now: startSeconds, follows: true },
    });
    expect(await viewOf('default')).toMatchObject({ permanent: true, recordsWritten: 0 });
  });

  it('resets one workspace (records, its keys’ counters, its clock, its journal entries, its rules) and touches nothing of another', async () => {
    const a = await issue();
    const b = await issue();
    await createPet(a.key, 'A-Pet');
    await createPet(b.key, 'B-Pet');
    const rule = await request(app)
      .post('/__sandbox/rules')
      .set(admin)
      .send({ match: { workspace: a.workspace, operationId: 'getPet' }, respond: { status: 404 } });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const before = await request(app).get('/v1/pets/1').set(auth(a.key));
    expect(before.status).toBe(404);
    expect(before.headers['x-ratelimit-remaining']).toBe('298');
    await request(app).post(`/__sandbox/workspaces/${a.workspace}/clock`).set(admin).send({ advanceSeconds: 3600 }).expect(200);

    const journalOf = async (id: string): Promise<{ workspace: string }[]> =>
      (await request(app).get(`/__sandbox/requests?workspace=${id}&limit=100`).set(admin)).body as { workspace: string }[];
    expect((await journalOf(a.workspace)).length).toBeGreaterThan(0);
    const ofB = (await journalOf(b.workspace)).length;

    const reset = await request(app).post(`/__sandbox/workspaces/${a.workspace}/reset`).set(admin);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ id: a.workspace, reset: true, now: startSeconds });
    expect(await journalOf(a.workspace)).toEqual([]);
    expect(await journalOf(b.workspace)).toHaveLength(ofB);
    expect((await request(app).get('/__sandbox/rules').set(admin)).body).toEqual([]);

    const after = await request(app).get('/v1/pets/1').set(auth(a.key));
    expect(after.status).toBe(200);
    // Counters start afresh: this is the key's first request since the reset.
    expect(after.headers['x-ratelimit-remaining']).toBe('299');
    expect(await petNames(a.key)).not.toContain('A-Pet');
    expect(await petNames(b.key)).toContain('B-Pet');
    expect(await viewOf(a.workspace)).toMatchObject({ recordsWritten: 0, clock: { follows: true } });
    expect(await viewOf(b.workspace)).toMatchObject({ recordsWritten: 1 });
  });

  it('moves one workspace’s clock alone; the global clock moves the others, and a workspace moved on its own keeps its offset', async () => {
    const a = await issue();
    const b = await issue();
    const clockOf = async (id: string): Promise<number> =>
      ((await request(app).get(`/__sandbox/workspaces/${id}/clock`).set(admin)).body as { now: number }).now;
    const moved = await request(app).post(`/__sandbox/workspaces/${a.workspace}/clock`).set(admin).send({ advanceSeconds: 600 });
    expect(moved.body).toEqual({ now: startSeconds + 600 });
    expect(await clockOf(b.workspace)).toBe(startSeconds);
    expect(await clockOf('default')).toBe(startSeconds);
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 60 }).expect(200);
    expect(await clockOf('default')).toBe(startSeconds + 60);
    expect(await clockOf(b.workspace)).toBe(startSeconds + 60);
    expect(await clockOf(a.workspace)).toBe(startSeconds + 600);
    expect(await viewOf(a.workspace)).toMatchObject({ clock: { now: startSeconds + 600, follows: false } });
  });

  it('reads rate windows on the key’s workspace clock: moving one workspace a minute on renews only its keys’ minute window', async () => {
    const a = await issue({ plan: 'free' });
    const b = await issue({ plan: 'free' });
    for (const key of [a.key, b.key]) for (let i = 0; i < 5; i++) await request(app).get('/v1/pets/1').set(auth(key)).expect(200);
    await request(app).post(`/__sandbox/workspaces/${a.workspace}/clock`).set(admin).send({ advanceSeconds: 60 }).expect(200);
    const inA = await request(app).get('/v1/pets/1').set(auth(a.key));
    const inB = await request(app).get('/v1/pets/1').set(auth(b.key));
    expect(inA.headers['x-ratelimit-remaining']).toBe('59');
    expect(inB.headers['x-ratelimit-remaining']).toBe('54');
    expect(Number(inA.headers['x-ratelimit-reset'])).toBe(Number(inB.headers['x-ratelimit-reset']) + 60);
  });

  it('deletes a workspace with everything it held and revokes its keys; the default workspace is refused with a 409', async () => {
    const a = await issue();
    await createPet(a.key, 'Gone');
    expect((await request(app).delete(`/__sandbox/workspaces/${a.workspace}`).set(admin)).status).toBe(204);
    const revoked = await request(app).get('/v1/pets').set(auth(a.key));
    expect(revoked.status).toBe(401);
    expect(await viewOf(a.workspace)).toBeUndefined();
    expect((await request(app).delete(`/__sandbox/workspaces/${a.workspace}`).set(admin)).status).toBe(404);
    const permanent = await request(app).delete('/__sandbox/workspaces/default').set(admin);
    expect(permanent.status).toBe(409);
    expect(permanent.body).toMatchObject({ code: 'workspace_permanent' });
    expect((await request(app).post('/__sandbox/workspaces/ws_nope/reset').set(admin)).status).toBe(404);
  });

  it('scopes a rule to a workspace: only requests from that workspace’s keys match it', async () => {
    const a = await issue();
    const b = await issue();
    const rule = await request(app)
      .post('/__sandbox/rules')
      .set(admin)
      .send({ match: { workspace: a.workspace, operationId: 'getPet' }, respond: { status: 404 } });
    expect(rule.status).toBe(201);
    expect((await request(app).get('/v1/pets/1').set(auth(a.key))).status).toBe(404);
    expect((await request(app).get('/v1/pets/1').set(auth(b.key))).status).toBe(200);
    const unknown = await request(app)
      .post('/__sandbox/rules')
      .set(admin)
      .send({ match: { workspace: 'ws_nope' }, respond: { status: 404 } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('body.match.workspace');
  });

  it('names each journal entry’s workspace, and filters and clears the journal by workspace', async () => {
    const a = await issue();
    await request(app).get('/v1/pets/2').set(auth(a.key)).expect(200);
    await request(app).get('/v1/pets/3').set(auth('demo-pro')).expect(200);
    const ofA = (await request(app).get(`/__sandbox/requests?workspace=${a.workspace}`).set(admin)).body as {
      path: string;
      workspace: string;
    }[];
    expect(ofA.map((e) => e.path)).toEqual(['/v1/pets/2']);
    expect(ofA[0]?.workspace).toBe(a.workspace);
    const count = await request(app).post('/__sandbox/requests/count').set(admin).send({ workspace: 'default', path: '/v1/pets/3' });
    expect(count.body).toEqual({ count: 1 });
    const cleared = await request(app).delete(`/__sandbox/requests?workspace=${a.workspace}`).set(admin);
    expect(cleared.body).toEqual({ removed: 1 });
  });

  it('evicts the least recently used idle workspace past the maximum, and says so in the list; its keys stop working', async () => {
    sandbox = await testSandbox({ maxWorkspaces: 3, workspaceIdleSeconds: 300 });
    app = make(sandbox);
    const first = await issue();
    const second = await issue();
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 300 }).expect(200);
    await request(app).get('/v1/pets/1').set(auth(first.key)).expect(200);
    const third = await issue();
    const listed = await workspaces();
    expect(listed.workspaces.map((w) => w.id).sort()).toEqual(['default', first.workspace, third.workspace].sort());
    expect(listed.evicted.map((e) => e.id)).toEqual([second.workspace]);
    expect((await request(app).get('/v1/pets').set(auth(second.key))).status).toBe(401);
    expect((await request(app).get('/v1/pets').set(auth(first.key))).status).toBe(200);
  });

  it('filters rules and metrics by workspace: its own rules and figures, nobody else’s', async () => {
    const a = await issue();
    const b = await issue();
    const rule = (match: object) =>
      request(app)
        .post('/__sandbox/rules')
        .set(admin)
        .send({ match, respond: { status: 404 } });
    const byWorkspace = (await rule({ workspace: a.workspace, operationId: 'getPet' })).body as { id: string };
    const byKey = (await rule({ key: a.id, operationId: 'getPet' })).body as { id: string };
    await rule({ key: b.id, operationId: 'getPet' });
    const listed = (await request(app).get(`/__sandbox/rules?workspace=${a.workspace}`).set(admin)).body as { id: string }[];
    expect(listed.map((r) => r.id).sort()).toEqual([byWorkspace.id, byKey.id].sort());

    await request(app).get('/v1/pets?limit=1').set(auth(a.key)).expect(200);
    await createPet(a.key, 'Counted');
    await request(app).get('/v1/pets?limit=1').set(auth(b.key)).expect(200);
    const metrics = await request(app).get(`/__sandbox/metrics?workspace=${a.workspace}`).set(admin);
    expect(metrics.status).toBe(200);
    expect(metrics.body.workspace).toMatchObject({ id: a.workspace, requests: 2, recordsWritten: 1 });
    expect((await request(app).get('/__sandbox/metrics?workspace=ws_nope').set(admin)).status).toBe(404);
    expect((await request(app).get('/__sandbox/metrics').set(admin)).body.workspace).toBeUndefined();
  });

  it('puts every workspace away on the sandbox reset: issued keys and their workspaces are gone', async () => {
    const a = await issue();
    await createPet(a.key, 'Before-Reset');
    await request(app).post('/__sandbox/reset').set(admin).expect(200);
    expect((await workspaces()).workspaces.map((w) => w.id)).toEqual(['default']);
    expect((await request(app).get('/v1/pets').set(auth(a.key))).status).toBe(401);
  });
});
