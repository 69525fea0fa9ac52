import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxConfig } from '../../src/config/config.js';
import { DEFAULT_CONFIG, PACKAGE_ROOT } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, START } from '../support/sandbox.js';
import { pingOperation } from '../support/ping-operation.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** The Pet Store document with its PetStatus schema moved to a second file, reached by `$ref`. */
const STATUS_INLINE = `    PetStatus:
      type: string
      description: Availability of the animal.
      enum: [available, pending, sold]
`;
const STATUS_FILE = `type: string
description: Availability of the animal.
enum: [available, pending, sold]
`;
const PING = pingOperation();

describe('reloading the document with state kept', () => {
  let dir: string;
  let spec: string;
  let statusFile: string;
  let sandbox: Sandbox;
  let app: ReturnType<typeof createNodeHandler>;
  let plans: SandboxConfig['plans'] = DEFAULT_CONFIG.plans;

  const configOf = (): SandboxConfig =>
    checkConfig({
      ...DEFAULT_CONFIG,
      spec,
      adminToken: ADMIN_TOKEN,
      log: { level: 'silent', format: 'json' },
      clock: { frozenAt: START },
      validation: { unknownQueryParameters: 'ignore', checkResponses: true },
      plans,
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reload-'));
    spec = join(dir, 'petstore.yaml');
    statusFile = join(dir, 'status.yaml');
    const original = await readFile(join(PACKAGE_ROOT, 'openapi/petstore.yaml'), 'utf8');
    expect(original).toContain(STATUS_INLINE);
    await writeFile(spec, original.replace(STATUS_INLINE, "    PetStatus:\n      $ref: './status.yaml'\n"));
    await writeFile(statusFile, STATUS_FILE);
    plans = DEFAULT_CONFIG.plans;
    sandbox = await createSandbox(configOf(), { reloadConfig: () => Promise.resolve(configOf()) });
    app = createNodeHandler(sandbox);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const edit = async (file: string, change: (text: string) => string): Promise<void> =>
    writeFile(file, change(await readFile(file, 'utf8')));
  const reload = () => request(app).post('/__sandbox/reload').set(admin);

  it('lists the files it serves: the document, each $ref’d file, the fixtures', async () => {
    const status = await request(app).get('/__sandbox/status').set(admin);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ generation: 1, files: [spec, statusFile, join(PACKAGE_ROOT, 'fixtures/petstore.yaml')] });
    expect(status.body.lastReload).toBeUndefined();
  });

  it('serves an added operation after a reload, and keeps records, keys, counters, rules and the journal', async () => {
    const created = await request(app).post('/v1/pets').set(auth('demo-pro')).send({ name: 'Kept', categoryId: 1 });
    expect(created.status).toBe(201);
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free' });
    await request(app).get('/v1/pets/1').set(auth(issued.body.key)).expect(200);
    await request(app)
      .post('/__sandbox/rules')
      .set(admin)
      .send({ match: { operationId: 'getPet', key: issued.body.id }, respond: { status: 404 } })
      .expect(201);
    expect((await request(app).get('/v1/ping')).status).toBe(404);

    await edit(spec, (text) => text.replace('paths:\n', `paths:\n${PING}`));
    const reloaded = await reload();
    expect(reloaded.status).toBe(200);
    expect(reloaded.body).toMatchObject({ ok: true, generation: 2, errors: [], operations: 5, invalidRecords: [] });

    const ping = await request(app).get('/v1/ping');
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ ok: true });
    expect(ping.headers['x-sandbox-generation']).toBe('2');
    const kept = await request(app).get(`/v1/pets/${created.body.id}`).set(auth('demo-pro'));
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe('Kept');
    const ruled = await request(app).get('/v1/pets/1').set(auth(issued.body.key));
    expect(ruled.status).toBe(404);
    expect(ruled.headers['x-ratelimit-remaining']).toBe('58');
    const journal = (await request(app).get('/__sandbox/requests?limit=100').set(admin)).body as { path: string }[];
    expect(journal.map((e) => e.path)).toContain('/v1/pets');
    const status = await request(app).get('/__sandbox/status').set(admin);
    expect(status.body).toMatchObject({ generation: 2, lastReload: { ok: true, generation: 2 } });
    // Every answer names the API's generation: the admin API's, errors, the token endpoint's.
    expect(status.headers['x-sandbox-generation']).toBe('2');
    expect((await request(app).get('/v1/nowhere').set(auth())).headers['x-sandbox-generation']).toBe('2');
    expect(
      (await request(app).post('/__sandbox/oauth/token').type('form').send('grant_type=password')).headers['x-sandbox-generation'],
    ).toBe('2');
  });

  it('answers 404 for an operation the new document removed, and 405 for a method it removed', async () => {
    await edit(spec, (text) => text.replace(/ {2}\/store\/orders:\n(?: {4}.*\n|\n)*/, ''));
    expect((await reload()).body).toMatchObject({ ok: true, generation: 2 });
    const gone = await request(app).get('/v1/store/orders').set(auth());
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 'route_not_found' });
  });

  it('keeps serving the last good generation when an edit does not load, says where, and recovers on the next good save', async () => {
    const good = await readFile(spec, 'utf8');
    await writeFile(spec, `${good}\n  broken: [unclosed\n`);
    const failed = await reload();
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ code: 'reload_failed', details: [{ location: 'files' }] });
    const message = (failed.body as { details: { message: string }[] }).details[0]?.message ?? '';
    expect(message).toContain(spec);
    expect(message).toMatch(/petstore\.yaml:\d+:\d+: not valid YAML/);
    const still = await request(app).get('/v1/pets/1').set(auth());
    expect(still.status).toBe(200);
    expect(still.headers['x-sandbox-generation']).toBe('1');
    expect((await request(app).get('/__sandbox/status').set(admin)).body).toMatchObject({
      generation: 1,
      lastReload: { ok: false, generation: 1, errors: [message] },
    });
    await writeFile(spec, good);
    expect((await reload()).body).toMatchObject({ ok: true, generation: 2 });
  });

  it('picks up an edit to a $ref’d file, and counts the stored records the new schema no longer describes', async () => {
    const sold = (await request(app).get('/v1/pets?status=sold&limit=100').set(auth())).body as unknown[];
    expect(sold.length).toBeGreaterThan(0);
    await edit(statusFile, (text) => text.replace('enum: [available, pending, sold]', 'enum: [available, pending]'));
    const reloaded = await reload();
    expect(reloaded.body).toMatchObject({ ok: true, generation: 2, invalidRecords: [{ collection: 'pets', count: sold.length }] });
    // The new schema applies to new requests; stored records are kept as they are.
    const refused = await request(app).post('/v1/pets').set(auth()).send({ name: 'Late', categoryId: 1, status: 'sold' });
    expect(refused.status).toBe(400);
  });

  it('applies changed plan limits to a key from its next minute window', async () => {
    const used = await request(app).get('/v1/pets/1').set(auth('demo-free'));
    expect(used.headers['x-ratelimit-limit']).toBe('60');
    plans = { ...DEFAULT_CONFIG.plans, free: { perMinute: 5, perDay: 1_000 } };
    expect((await reload()).body).toMatchObject({ ok: true });
    const sameWindow = await request(app).get('/v1/pets/1').set(auth('demo-free'));
    expect(sameWindow.headers['x-ratelimit-limit']).toBe('60');
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 60 }).expect(200);
    const nextWindow = await request(app).get('/v1/pets/1').set(auth('demo-free'));
    expect(nextWindow.headers['x-ratelimit-limit']).toBe('5');
    expect(nextWindow.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('says which config fields need a restart rather than pretending to apply them', async () => {
    const before = configOf;
    sandbox = await createSandbox(before(), { reloadConfig: () => Promise.resolve({ ...before(), port: 9999 }) });
    expect(await sandbox.reload()).toMatchObject({ ok: true, restartNeeded: ['port'] });
  });

  describe('under load', () => {
    let server: Server;
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('swaps generations with no refused connection and no failed request', async () => {
      server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      let running = true;
      const failures: string[] = [];
      const generations = new Set<string>();
      const client = async (): Promise<void> => {
        while (running) {
          try {
            const res = await fetch(`${base}/v1/pets/1`, { headers: auth() });
            generations.add(res.headers.get('x-sandbox-generation') ?? '');
            if (res.status !== 200) failures.push(`status ${res.status}`);
            await res.arrayBuffer();
          } catch (error) {
            failures.push((error as Error).message);
          }
        }
      };
      const clients = Array.from({ length: 8 }, client);
      for (let n = 0; n < 3; n++) {
        await edit(spec, (text) => text.replace('paths:\n', `paths:\n${pingOperation(`ping${n}`)}`));
        expect((await sandbox.reload()).ok).toBe(true);
      }
      // A few more requests on the last generation, then stop.
      const settled = Date.now();
      while (!generations.has('4') && Date.now() - settled < 5_000) await new Promise((resolve) => setImmediate(resolve));
      running = false;
      await Promise.all(clients);
      expect(failures).toEqual([]);
      expect(generations).toContain('4');
    });
  });
});
