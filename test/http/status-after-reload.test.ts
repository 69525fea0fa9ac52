import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxConfig } from '../../src/config/config.js';
import { PACKAGE_ROOT } from '../../src/config/defaults.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, testConfig } from '../support/sandbox.js';
import { pingOperation } from '../support/ping-operation.js';

/**
 * `GET /__sandbox/status` after a reload (admin document, getStatus): `loadedAt` is when the serving
 * generation was loaded, and `files` lists what a reload reads again, the config file with them.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the status after a reload', () => {
  let dir: string;
  let spec: string;
  let configFile: string;
  let sandbox: Sandbox;
  let app: ReturnType<typeof createNodeHandler>;

  const configOf = (): SandboxConfig => testConfig({ spec });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'status-'));
    spec = join(dir, 'petstore.yaml');
    configFile = join(dir, 'understudy.yaml');
    await writeFile(spec, await readFile(join(PACKAGE_ROOT, 'openapi/petstore.yaml'), 'utf8'));
    await writeFile(configFile, `spec: ${spec}\n`);
    sandbox = await createSandbox(configOf(), { reloadConfig: () => Promise.resolve(configOf()), configFile });
    app = createNodeHandler(sandbox);
  });
  afterEach(async () => {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  const status = async (): Promise<{ generation: number; loadedAt: string; files: string[] }> => {
    const res = await request(app).get('/__sandbox/status').set(admin);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('lists the config file among the files a reload reads again', async () => {
    expect((await status()).files).toEqual([spec, join(PACKAGE_ROOT, 'fixtures/petstore.yaml'), configFile]);
  });

  it('shows when the serving generation was loaded: newer after a reload that loads, unchanged after one that fails', async () => {
    const before = await status();
    await writeFile(spec, (await readFile(spec, 'utf8')).replace('paths:\n', `paths:\n${pingOperation()}`));
    const reloaded = await request(app).post('/__sandbox/reload').set(admin);
    expect(reloaded.status).toBe(200);
    const after = await status();
    expect(after.generation).toBe(2);
    expect(Date.parse(after.loadedAt)).toBeGreaterThan(Date.parse(before.loadedAt));
    expect(after.files).toContain(configFile);
    await writeFile(spec, 'paths: [');
    expect((await request(app).post('/__sandbox/reload').set(admin)).status).toBe(422);
    expect(await status()).toMatchObject({ generation: 2, loadedAt: after.loadedAt });
  });
});
