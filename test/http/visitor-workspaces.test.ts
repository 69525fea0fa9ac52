import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Notice, Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, auth, EDGES, testSandbox } from '../support/sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * `POST /docs/visitor` needs no token: what anonymous visitors mint must never evict a workspace a
 * suite was issued and is using (docs/decisions/0008-workspaces.md).
 */
describe.each(EDGES)('visitor workspaces through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  let notices: Notice[];
  const start = async (overrides: Parameters<typeof testSandbox>[0]): Promise<void> => {
    sandbox = await testSandbox(overrides);
    app = make(sandbox);
    notices = [];
    sandbox.onNotice((notice) => notices.push(notice));
  };
  beforeEach(() => start({ maxWorkspaces: 8, workspaceIdleSeconds: 300, pages: { visitorWorkspaces: 4 } }));

  /** A new visitor, with no key yet (all from one address: at most ten minted a minute, the per-address limit). */
  const visit = () => request(app).post('/docs/visitor').send({});
  const advance = (seconds: number) => request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: seconds }).expect(200);

  it('never evicts an admin-issued workspace that was just used, however many visitors come', async () => {
    const issued = (await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' }).expect(201)).body as { key: string };
    const pet = await request(app).post('/v1/pets').set(auth(issued.key)).send({ name: 'Kept', categoryId: 1 }).expect(201);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await visit()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 503, 503, 503, 503, 503, 503]);
    const read = await request(app)
      .get(`/v1/pets/${(pet.body as { id: number }).id}`)
      .set(auth(issued.key));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ name: 'Kept' });
    const listed = (await request(app).get('/__sandbox/workspaces').set(admin)).body as { evicted: unknown[] };
    expect(listed.evicted).toEqual([]);
  });

  it('with the default visitor settings and maxWorkspaces 8 (the outside check), ten visitors evict nothing', async () => {
    await start({ maxWorkspaces: 8 });
    const issued = (await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' }).expect(201)).body as { key: string };
    const pet = (await request(app).post('/v1/pets').set(auth(issued.key)).send({ name: 'Kept', categoryId: 1 }).expect(201)).body as {
      id: number;
    };
    await advance(1);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await visit()).status);
    const read = await request(app).get(`/v1/pets/${pet.id}`).set(auth(issued.key));
    expect([read.status, read.body.name]).toEqual([200, 'Kept']);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 503, 503, 503, 503]);
  });

  it('answers a visitor 503 with Retry-After when every visitor workspace is busy, and tells the operator', async () => {
    for (let i = 0; i < 4; i++) expect((await visit()).status).toBe(200);
    await advance(100);
    const refused = await visit();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(refused.headers['retry-after']).toBe('200');
    expect((await visit()).status).toBe(503);
    // Told once a minute, however many visitors are refused.
    expect(notices.filter((n) => n.level === 'warn' && n.message.includes('visitor'))).toHaveLength(1);
  });

  it('gives a new visitor the place of an idle visitor’s workspace, whose key then stops working', async () => {
    const first = (await visit()).body as { key: string; workspace: string };
    for (let i = 1; i < 4; i++) await visit();
    await advance(300);
    const next = await visit();
    expect(next.status).toBe(200);
    expect((await request(app).get('/v1/pets').set(auth(first.key))).status).toBe(401);
    const listed = (await request(app).get('/__sandbox/workspaces').set(admin)).body as { evicted: { id: string }[] };
    expect(listed.evicted.map((e) => e.id)).toEqual([first.workspace]);
  });

  it('keeps a visitor’s workspace that is in use, and evicts the idle ones first', async () => {
    const used = (await visit()).body as { key: string };
    for (let i = 1; i < 4; i++) await visit();
    await advance(300);
    await request(app).get('/v1/pets').set(auth(used.key)).expect(200);
    for (let i = 4; i < 7; i++) expect((await visit()).status).toBe(200);
    expect((await visit()).status).toBe(503);
    expect((await request(app).get('/v1/pets').set(auth(used.key))).status).toBe(200);
  });

  it('mints at most the configured number of visitor keys a minute across all addresses', async () => {
    await start({ pages: { visitorKeysPerMinute: 3 } });
    for (let i = 0; i < 3; i++) expect((await visit()).status).toBe(200);
    const limited = await visit();
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await advance(60);
    expect((await visit()).status).toBe(200);
  });
});
