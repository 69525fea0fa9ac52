import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN_FLAGS, CLI, inFlight, runCli, startCli, until } from '../support/cli.js';

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'understudy-cli-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('the understudy CLI', () => {
  it('prints its options with --help', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const option of [
      '--spec',
      '--config',
      '--port',
      '--host',
      '--seed',
      '--admin-token',
      'PORT',
      'HOST',
      'SANDBOX_SEED',
      'SANDBOX_ADMIN_TOKEN',
      'SANDBOX_CONFIG',
    ]) {
      expect(stdout).toContain(option);
    }
  });

  it('lists in --help exactly the options docs/configuration.md lists', async () => {
    const { stdout } = await runCli(['--help']);
    const readme = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const listed = /```text\nunderstudy \[options\]\n([\s\S]*?)```/.exec(readme)?.[1];
    const options = /\nOptions:\n([\s\S]*?)\n\n/.exec(stdout)?.[1];
    expect(options).toBeDefined();
    expect(listed).toBe(`${options}\n`);
  });

  it('prints its version with --version and -v: the package.json one', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const { code, stdout } = await runCli([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`understudy ${version}\n`);
    }
  });

  it('refuses an unknown option with exit code 2', async () => {
    const { code, stderr } = await runCli(['--colour', 'blue']);
    expect(code).toBe(2);
    expect(stderr).toContain('--colour');
  });

  it('stops with a message naming the bad field of a config file', async () => {
    const config = await tempFile('bad.yaml', 'plans:\n  free: { perMinute: -1, perDay: 10 }\n');
    const { code, stderr } = await runCli(['--config', config]);
    expect(code).toBe(1);
    expect(stderr).toContain('plans.free.perMinute');
  });

  it('stops with a message naming a document that does not load', async () => {
    const spec = await tempFile(
      'broken.yaml',
      // An extension the sandbox cannot honour stops the start, naming the operation.
      'openapi: 3.1.0\ninfo: { title: t, version: 1.0.0 }\npaths:\n  /x/{id}:\n    get:\n      x-understudy: { action: frobnicate }\n      responses: { "200": { description: ok } }\n',
    );
    const { code, stderr } = await runCli(['--spec', spec]);
    expect(code).toBe(1);
    expect(stderr).toContain('GET /x/{id}');
    expect(stderr).toContain('{id}');
    const missing = await runCli(['--spec', '/nonexistent/api.yaml']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read the OpenAPI document');
  });

  it('serves the Pet Store with demo keys, logs one line per request without the key, and exits 0 on SIGTERM', async () => {
    const running = await startCli(['--seed', '5']);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await fetch(`${running.url}/pets?limit=2`, { headers: { Authorization: 'Bearer demo-free' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveLength(2);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const lines = running
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      method: 'GET',
      path: '/v1/pets',
      status: 200,
      key: expect.stringMatching(/^key_/),
      keyName: 'demo-free',
    });
    // The demo key is named after its published value: it shows as its name, and nowhere else.
    expect(running.output().replaceAll('"keyName":"demo-free"', '')).not.toContain('demo-free');
  });

  it('keeps serving, and stops with 0 and no stack trace, when whatever read its standard output has gone (understudy | head -1)', async () => {
    const running = await startCli([]);
    let stderr = '';
    running.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    running.child.stdout.destroy();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${running.url}/pets/1`, { headers: { Authorization: 'Bearer demo-pro' } });
      expect(res.status).toBe(200);
    }
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });

  // Linux's /dev/full refuses every write with ENOSPC, as a full disk would.
  it.runIf(existsSync('/dev/full'))(
    'keeps serving, says so once, and stops with 0 when its standard output cannot be written (a full disk)',
    async () => {
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as { port: number };
          probe.close(() => resolve(free));
        });
      });
      const full = openSync('/dev/full', 'w');
      const child = spawn(process.execPath, [...BIN_FLAGS, CLI, '--port', String(port), '--no-watch'], { stdio: ['ignore', full, 'pipe'] });
      closeSync(full);
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const url = `http://127.0.0.1:${port}/v1/pets/1`;
      const auth = { Authorization: 'Bearer demo-pro' };
      await until(async () => (await fetch(url, { headers: auth }).catch(() => undefined))?.status === 200);
      for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: auth })).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr.match(/standard output failed \(ENOSPC/g)).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('keeps the parsed document and fixtures, the compiled validators and the seed in SANDBOX_CACHE_DIR, and starts from them next time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-cli-cache-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const cache = join(dir, 'parsed');
    const answers: unknown[] = [];
    /** Each start's entries, with when each was last written. */
    const written: string[][] = [];
    for (let start = 0; start < 2; start++) {
      const running = await startCli([], { SANDBOX_CACHE_DIR: cache });
      const res = await fetch(`${running.url}/pets/7`, { headers: { Authorization: 'Bearer demo-pro' } });
      expect(res.status).toBe(200);
      answers.push(await res.json());
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      const entries = [...(await readdir(cache)), ...(await readdir(join(cache, 'validators'))).map((name) => join('validators', name))];
      written.push((await Promise.all(entries.map(async (name) => `${name} ${(await stat(join(cache, name))).mtimeMs}`))).sort());
    }
    // The Pet Store and its fixtures, one entry each, the seed, and a validator per schema compiled.
    expect(written[0]?.filter((entry) => /(?<!\.seed)\.json /.test(entry))).toHaveLength(2);
    expect(written[0]?.filter((entry) => /\.seed\.json /.test(entry))).toHaveLength(1);
    expect(written[0]?.filter((entry) => /\.js /.test(entry)).length).toBeGreaterThan(4);
    // The second start wrote nothing (no entry is newer): it read every entry the first one wrote.
    expect(written[1]).toEqual(written[0]);
    expect(answers[1]).toEqual(answers[0]);
  });

  it('writes every request line, batched, by the time it stops', async () => {
    const running = await startCli([]);
    const statuses = await Promise.all(
      Array.from({ length: 150 }, (_, n) =>
        fetch(`${running.url}/pets/${(n % 100) + 1}`, { headers: { Authorization: 'Bearer demo-pro' } }).then((r) => r.status),
      ),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const lines = running
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as { path: string; status: number });
    expect(lines).toHaveLength(150);
    expect(new Set(lines.map((l) => l.path)).size).toBe(100);
    // The last word comes after the last line.
    expect(running.output().trimEnd().endsWith('understudy: stopped')).toBe(true);
  });

  it('writes an operator’s line (a reload) after the request lines held before it', async () => {
    const running = await startCli([]);
    for (const id of [1, 2, 3]) {
      const res = await fetch(`${running.url}/pets/${id}`, { headers: { Authorization: 'Bearer demo-pro' } });
      expect(res.status).toBe(200);
    }
    running.child.kill('SIGHUP');
    await running.waitFor('"msg":"reloading: SIGHUP"');
    const lines = running.output().split('\n');
    const reloading = lines.findIndex((l) => l.includes('"msg":"reloading: SIGHUP"'));
    const requests = lines.flatMap((l, at) => (l.includes('"msg":"request"') ? [at] : []));
    expect(requests).toHaveLength(3);
    expect(requests.every((at) => at < reloading)).toBe(true);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('finishes a request in flight when SIGTERM arrives, then exits 0', async () => {
    const running = await startCli(['--admin-token', 'cli-admin-token']);
    const { port } = new URL(running.url);
    const [head, tail] = ['{"name":"Rex",', '"categoryId":1}'];
    const length = String(Buffer.byteLength(head + tail));
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/pets',
          headers: { Authorization: 'Bearer demo-pro', 'Content-Type': 'application/json', 'Content-Length': length },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      // Half the body goes out; once the sandbox is answering the request, SIGTERM lands; once the
      // server says it is draining, the rest of the body follows.
      req.write(head, () => {
        void until(async () => (await inFlight(running.url, 'cli-admin-token')) === 1).then(() => {
          running.child.kill('SIGTERM');
          return running.waitFor('draining').then(() => req.end(tail));
        });
      });
    });
    const { status, body } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(body)).toMatchObject({ name: 'Rex', categoryId: 1 });
    expect(await running.exited).toBe(0);
  });
});
