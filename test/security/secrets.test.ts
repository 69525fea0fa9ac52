import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { startCli } from '../support/cli.js';
import { ADMIN_TOKEN, auth, testSandbox } from '../support/sandbox.js';

const ADMIN = 'cli-secret-admin-token';

describe('secrets', () => {
  it('never writes a plan key or the admin token to the log or the data file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-secrets-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const data = join(dir, 'store.json');
    const running = await startCli(['--data', data, '--admin-token', ADMIN]);
    const admin = { Authorization: `Bearer ${ADMIN}` };
    const base = running.url.replace(/\/v1$/, '');
    const issued = (await (
      await fetch(`${base}/__sandbox/keys`, {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: '{"plan":"pro"}',
      })
    ).json()) as { key: string };
    for (const key of ['demo-free', 'demo-pro', issued.key, 'not-a-key']) {
      await fetch(`${running.url}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: '{"name":"Rex","categoryId":1}',
      });
    }
    await fetch(`${base}/__sandbox/keys/${encodeURIComponent(issued.key)}`, { headers: admin });
    await fetch(`${base}/__sandbox/reset`, { method: 'POST', headers: { Authorization: 'Bearer demo-enterprise' } });
    running.child.kill('SIGTERM');
    await running.exited;
    // The demo keys are named after their published values: the log shows them as names, and only so.
    const log = running.output().replace(/"keyName":"demo-(free|pro)"/g, '');
    const file = await readFile(data, 'utf8');
    expect(log).toContain('"status":201');
    for (const secret of ['demo-free', 'demo-pro', issued.key, ADMIN]) {
      expect(log).not.toContain(secret);
      expect(file).not.toContain(secret);
    }
  });

  it('refuses the admin API to every plan key', async () => {
    const app = createNodeHandler(await testSandbox());
    for (const key of ['demo-free', 'demo-pro', 'demo-business', 'demo-enterprise']) {
      const res = await request(app).post('/__sandbox/keys').set(auth(key)).send({ plan: 'enterprise' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('admin_unauthorized');
    }
    const good = await request(app)
      .post('/__sandbox/keys')
      .set({ Authorization: `Bearer ${ADMIN_TOKEN}` })
      .send({ plan: 'enterprise' });
    expect(good.status).toBe(201);
  });

  it('never echoes input into a response header', async () => {
    const app = createNodeHandler(await testSandbox());
    const injected = encodeURIComponent('x\r\nSet-Cookie: pwned=1');
    const answers = [
      await request(app).get(`/v1/pets?limit=1&status=available&evil=${injected}`).set(auth()),
      await request(app).get(`/v1/nope/${injected}`).set(auth()),
      await request(app).get('/v1/pets').set('Authorization', 'Bearer "><script>'),
    ];
    for (const res of answers) {
      expect(res.status).toBeLessThan(500);
      expect(res.headers['set-cookie']).toBeUndefined();
      for (const value of Object.values(res.headers)) expect(String(value)).not.toMatch(/[\r\n]|<script>|pwned=1/);
    }
  });
});
