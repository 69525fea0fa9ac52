import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CLI, runCli, startCli } from '../support/cli.js';
import { startRedis, type TestRedis } from '../support/redis.js';

/** The bin runs the bundle with the V8 code cache the build made; V8 takes it only under the flags it was made with. */
describe('the code cache of the bundle', () => {
  it('is accepted under the bin’s own flags (NODE_DEBUG=understudy says so)', async () => {
    const { code, stdout, stderr } = await runCli(['--help'], { NODE_DEBUG: 'understudy' });
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: understudy [options]');
    expect(stderr).toMatch(/^UNDERSTUDY \d+: code cache accepted\n$/);
  });

  it('is refused under other V8 flags, and the bundle compiles and runs as usual', () => {
    const run = spawnSync(process.execPath, ['--max-semi-space-size=8', CLI, '--help'], {
      env: { ...process.env, NODE_DEBUG: 'understudy' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: understudy [options]');
    expect(run.stderr).toMatch(/^UNDERSTUDY \d+: code cache rejected\n$/);
  });
});

/**
 * What a start does not load: the built-ins that only paths it does not take need, and any package
 * from node_modules (what it runs, the bundle holds; what it knows of them, the versions its cache
 * entries are named by, too): scripts/bundle.mjs.
 */
describe('a start of the bundled CLI', () => {
  // Watching too (a start in a terminal watches by default): chokidar is in the bundle.
  it.each([['--no-watch'], ['--watch']])(
    'answers without loading worker_threads or assert, or looking a package up in node_modules (%s)',
    async (watch) => {
      const dir = mkdtempSync(join(tmpdir(), 'understudy-loaded-'));
      onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
      const preload = join(dir, 'loaded.cjs');
      const report = join(dir, 'loaded.json');
      writeFileSync(
        preload,
        [
          "const Module = require('node:module');",
          'const looked = [];',
          'const resolve = Module._resolveFilename;',
          'Module._resolveFilename = function (id, ...rest) {',
          "  if (!Module.isBuiltin(id) && !require('node:path').isAbsolute(id) && !id.startsWith('./')) looked.push(id);",
          '  return resolve.call(this, id, ...rest);',
          '};',
          `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify({ looked, modules: process.moduleLoadList })));`,
          '',
        ].join('\n'),
      );
      const cli = await startCli([watch], { NODE_OPTIONS: `--require ${JSON.stringify(preload)}` });
      if (watch === '--watch') await cli.waitFor('understudy: watching ');
      const res = await fetch(`${cli.url}/pets/1`, { headers: { Authorization: 'Bearer demo-pro' } });
      expect(res.status).toBe(200);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain('"msg":"request"');
      const { looked, modules } = JSON.parse(readFileSync(report, 'utf8')) as { looked: string[]; modules: string[] };
      expect(looked).toEqual([]);
      // The list is the process's own: it has what a start does load.
      expect(modules).toContain('NativeModule http');
      expect(modules).not.toContain('NativeModule worker_threads');
      expect(modules).not.toContain('NativeModule assert');
    },
  );
});

/**
 * Faker is a script of its own, run on first use (seeding, generated answers): a start whose seed an
 * earlier start kept in the cache directory answers without it (seeding/kept-seed.ts, scripts/bundle.mjs).
 */
describe('a start with the seed an earlier start kept', () => {
  it('answers the same records without running faker', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'understudy-kept-'));
    onTestFinished(() => rmSync(cacheDir, { recursive: true, force: true }));
    const env = { SANDBOX_CACHE_DIR: cacheDir, NODE_DEBUG: 'understudy' };
    const auth = { Authorization: 'Bearer demo-pro' };
    const pets: unknown[] = [];
    const fakerRuns: boolean[] = [];
    for (let start = 0; start < 2; start++) {
      const cli = await startCli(['--no-watch'], env);
      const res = await fetch(`${cli.url}/pets?limit=100`, { headers: auth });
      expect(res.status).toBe(200);
      pets.push(await res.json());
      fakerRuns.push(cli.output().includes('code cache of faker.cjs accepted'));
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
    expect(fakerRuns).toEqual([true, false]);
    expect(pets[1]).toEqual(pets[0]);
    expect((pets[0] as unknown[]).length).toBeGreaterThan(0);
  });

  it('checks the generators a fixtures file names without running faker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-generators-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const fixtures = join(dir, 'fixtures.yaml');
    writeFileSync(fixtures, 'collections:\n  pets:\n    fields:\n      name: { faker: animal.petNickname }\n');
    const run = await runCli(['--fixtures', fixtures, '--no-watch'], { NODE_DEBUG: 'understudy' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('collections.pets.fields.name: faker.animal.petNickname is not a faker generator');
    expect(run.stderr).not.toContain('faker.cjs');
  });
});

/**
 * The bin is one bundled file; what only some configurations use (the Redis client, the XML parser;
 * Swagger 2.0 conversion and external `$ref`s are in the CLI's other tests) is left
 * to node_modules and imported on first use. Each must still load and work from the bundle.
 */
describe('the bundled CLI, with what it imports on first use', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('shares its records on Redis: a pet created is read back', async () => {
    const cli = await startCli(['--redis', redis.url, '--no-watch']);
    const auth = { Authorization: 'Bearer demo-pro' };
    const created = await fetch(`${cli.url}/pets`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"name":"Bundled","categoryId":1}',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const read = await fetch(`${cli.url}/pets/${id}`, { headers: auth });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id, name: 'Bundled' });
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('reads an XML body and answers in XML', async () => {
    const cli = await startCli(['--spec', 'test/documents/media.yaml', '--fixtures', '', '--no-watch']);
    const res = await fetch(`${cli.url}/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/xml', Accept: 'application/xml' },
      body: '<?xml version="1.0"?><m:thing xmlns:m="https://media.example/ns" id="3"><name>Lamp</name></m:thing>',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(await res.text()).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?><m:thing xmlns:m="https:\/\/media\.example\/ns" id="\d+">/);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
