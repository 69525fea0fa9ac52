import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { copyCheckout, type CheckoutCopy } from '../support/checkout-copy.js';
import { BIN_FLAGS } from '../support/cli.js';
import { childrenOf, exitOf, freePort, pollFor, statusOf, stopGroup } from '../support/processes.js';

/** A user's environment: none of the sandbox's own settings the test run may carry. */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('SANDBOX_') && name !== 'PORT' && name !== 'HOST'),
);

/** How a duration is written on the `understudy:` lines (scripts/build.mjs, src/cli/startup-report.ts). */
const DURATION = String.raw`\d+(?: ms|\.\d s)`;

interface Run {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly output: () => string;
}

/** Starts a command in the copy, in a process group of its own, stopped with all it started when the test ends. */
function run(dir: string, command: string, args: readonly string[], env: Record<string, string | undefined> = {}): Run {
  const child = spawn(command, args, { cwd: dir, env: { ...ENV, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  onTestFinished(() => stopGroup(child));
  return { child, output: () => output };
}

/**
 * Resolves once the sandbox on `port` answers GET /v1/pets (polled), with a demo key as the Pet
 * Store takes it (its security scheme is a bearer token); fails on any answer but a 200, or if the
 * start exited first.
 */
const firstAnswer = (port: number, started: Run): Promise<true> =>
  pollFor(
    async () => {
      const status = await statusOf(`http://127.0.0.1:${port}/v1/pets`, { Authorization: 'Bearer demo-free' });
      if (status !== undefined && status !== 200) throw new Error(`GET /v1/pets answered ${status}:\n${started.output()}`);
      return status && true;
    },
    {
      gone: () =>
        started.child.exitCode === null ? undefined : `it exited with ${started.child.exitCode} before answering:\n${started.output()}`,
    },
  );

/**
 * A checkout as a user has it after `git clone` and `npm ci`: ready to start (issue 35). `npm ci`
 * installs the packages of the lockfile and then runs the package's `prepare` script, and nothing
 * else of ours; here the packages are the checkout's own, linked (test/support/checkout-copy.ts says
 * why links stand in for a second install of the same lockfile: the network and some 50 s), and
 * `npm run prepare` runs what `npm ci` would run after installing them.
 */
describe('a fresh copy of the checkout, after npm ci', () => {
  let copy: CheckoutCopy;
  let prepared: string;

  beforeAll(async () => {
    copy = copyCheckout({ dist: false });
    const prepare = spawn('npm', ['run', 'prepare'], { cwd: copy.dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    prepared = '';
    prepare.stdout.on('data', (chunk: Buffer) => (prepared += chunk.toString()));
    prepare.stderr.on('data', (chunk: Buffer) => (prepared += chunk.toString()));
    expect(await exitOf(prepare), prepared).toBe(0);
  }, 300_000);
  afterAll(() => copy?.remove());

  it('was built by prepare, which said what it built and how long each step took', () => {
    expect(prepared).toMatch(
      new RegExp(
        [
          'understudy: building \\(there is no build yet\\)…',
          `understudy: compiled TypeScript in ${DURATION}`,
          `understudy: wrote the config validator in ${DURATION}`,
          `understudy: bundled the CLI in ${DURATION}`,
          `understudy: made its code cache in ${DURATION}`,
          `understudy: built in ${DURATION}\n`,
        ].join('\n'),
      ),
    );
  });

  it('answers its first npm start’s GET /v1/pets within 2 s, without building', async () => {
    const port = await freePort();
    const started = performance.now();
    const start = run(copy.dir, 'npm', ['start'], { PORT: String(port) });
    await firstAnswer(port, start);
    const ms = performance.now() - started;
    // npm's own start (some 300 to 900 ms) included. Measured on the 2-core test machine: 0.55 to
    // 0.9 s when this file ran alone, 1.2 to 1.4 s beside other test files; the sandbox's own part
    // is its ready line (0.3 to 0.8 s, with the cold cache of a fresh install).
    console.info(`first answer of a fresh copy's npm start in ${Math.round(ms)} ms; ${/ready in [^:]*/.exec(start.output())?.[0]}`);
    expect(start.output()).not.toMatch(/building/);
    expect(start.output()).toMatch(new RegExp(`understudy: ready in ${DURATION}: `));
    expect(ms, start.output()).toBeLessThan(2_000);
  }, 60_000);

  it('builds at npm start after an edit, step by step, then serves with no child process left', async () => {
    const now = new Date();
    utimesSync(join(copy.dir, 'src/cli/main.ts'), now, now);
    const port = await freePort();
    // start.mjs itself, as `npm start` runs it (the flags are the bin's), so that its children are the server's.
    const start = run(copy.dir, process.execPath, [...BIN_FLAGS, 'scripts/start.mjs', '--watch'], { PORT: String(port) });
    await firstAnswer(port, start);
    const output = start.output();
    expect(output).toContain('understudy: building (src/cli/main.ts changed since the last build)…\n');
    for (const step of ['compiled TypeScript', 'wrote the config validator', 'bundled the CLI', 'made its code cache']) {
      expect(output).toMatch(new RegExp(`understudy: ${step} in ${DURATION}\n`));
    }
    // The ready line leaves the build out, and names the build's own time.
    const built = new RegExp(`understudy: built in (${DURATION})\n`).exec(output)?.[1];
    expect(output).toMatch(new RegExp(`understudy: ready in ${DURATION} \\(after a ${built} build\\): `));
    // Neither esbuild's service nor the code cache's warm-up start, nor anything else, is left.
    expect(childrenOf(start.child.pid!)).toEqual([]);
  }, 120_000);
});
