import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
// @ts-expect-error: the build scripts are plain JavaScript, outside the TypeScript project
import { needsBuild } from '../../scripts/build-state.mjs';
import { CHECKOUT, copyCheckout, type CheckoutCopy } from '../support/checkout-copy.js';
import { BIN_FLAGS } from '../support/cli.js';
import { freePort, pollFor, statusOf, stopGroup } from '../support/processes.js';
import { withPort, withPortWord, type Step } from './doc-blocks.js';

/** The admin token of the page's sandboxes, exported to the blocks as TOKEN. */
export const ADMIN_TOKEN = 'doc-test-admin-token';
/** How long a block may run: the docs' commands answer in well under a second each. */
export const BLOCK_TIMEOUT_MS = 30_000;
/**
 * How long a sandbox (the default one, or a server block's) may take to answer
 * /__sandbox/health/ready, and a background block to take connections on its port.
 */
export const READY_TIMEOUT_MS = 30_000;

export interface Shell {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * The shells a reader may paste a block into. zsh is the default shell of macOS: its globbing
 * (an unquoted `?limit=2` is "no matches found") and word splitting differ from bash's.
 */
export const SHELLS: readonly Shell[] = [
  { name: 'bash', command: 'bash', args: ['-e', '-o', 'pipefail', '-c'] },
  { name: 'zsh', command: 'zsh', args: ['-e', '-c'] },
];

export const installed = (shell: Shell): boolean => spawnSync(shell.command, ['-c', 'true']).status === 0;

/** A reader's environment: none of the sandbox's settings the test run may carry. */
const USER_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('SANDBOX_') && name !== 'PORT' && name !== 'HOST'),
);

interface Started {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once the process has exited and its output is read. */
  readonly closed: Promise<number | string>;
}

/** A command in a process group of its own (stopGroup stops it with everything it started). */
function start(command: string, args: readonly string[], cwd: string, env: Record<string, string | undefined>): Started {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? String(signal))));
  return { child, stdout: () => stdout, stderr: () => stderr, closed };
}

/** Whether something takes TCP connections on loopback at `port` now (IPv4, then IPv6). */
async function listening(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '::1']) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.setTimeout(1_000);
      const done = (ok: boolean): void => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
      socket.once('timeout', () => done(false));
    });
    if (connected) return true;
  }
  return false;
}

/** The end of a long output: a failure message shows what a doc writer needs, not a whole log. */
function tail(text: string, lines = 40): string {
  const all = text.trimEnd().split('\n');
  return all.length <= lines ? all.join('\n') : [`… (${all.length - lines} lines before)`, ...all.slice(-lines)].join('\n');
}

let buildChecked = false;

/**
 * One pass over one page in one shell: a working directory of its own (a copy of the checkout),
 * the page's sandbox, and the page's steps in order. The sandbox is the default one, started
 * before the first block that runs, until a server block stops it and serves in its place; every
 * sandbox of the pass listens on the same port, so that BASE, and the files written with it, stay
 * right across a server block. A background block serves on a port of its own (its documented
 * port moved to a free one) until the pass ends.
 */
export class PagePass {
  private copy: CheckoutCopy | undefined;
  private port = 0;
  private sparePort = 0;
  private sandbox: Started | undefined;
  private sandboxStarted = false;
  /** The background blocks' documented ports, each moved to a free one. */
  private readonly moved = new Map<number, number>();
  private readonly background: Started[] = [];

  /** `documentedPorts`: the ports the page's background blocks serve on (doc-blocks.ts's backgroundPorts). */
  constructor(
    private readonly page: string,
    private readonly shell: Shell,
    private readonly documentedPorts: readonly number[] = [],
  ) {}

  async step(step: Step): Promise<void> {
    const dir = await this.workingDir();
    if (step.kind === 'file') {
      mkdirSync(dirname(join(dir, step.name)), { recursive: true });
      writeFileSync(join(dir, step.name), this.rewrite(step.content));
    } else if (step.kind === 'server') {
      await this.serve(dir, step.line, this.rewrite(step.script));
    } else if (step.kind === 'background') {
      const port = this.moved.get(step.port) ?? step.port;
      await this.startBackground(dir, step.line, port, withPortWord(this.rewrite(step.script), port, step.port));
    } else {
      await this.run(dir, step.line, this.rewrite(step.script));
    }
  }

  /** Stops the page's sandbox and background blocks, and removes its working directory. */
  async close(): Promise<void> {
    await Promise.all([...this.background, ...(this.sandbox ? [this.sandbox] : [])].map((started) => stopGroup(started.child)));
    this.copy?.remove();
  }

  /** A block's text with the documented addresses made the real ones: the sandbox's, the background blocks'. */
  private rewrite(text: string): string {
    let rewritten = withPort(text, this.port);
    for (const [documented, port] of this.moved) rewritten = withPort(rewritten, port, documented);
    return rewritten;
  }

  private async workingDir(): Promise<string> {
    if (this.copy) return this.copy.dir;
    // The pages run the checkout's build (its dist, copied): a stale one would test old code.
    if (!buildChecked && (needsBuild as (root: string) => boolean)(CHECKOUT)) {
      throw new Error('the build is not current: run `npm run build` before the doc tests (they run its dist)');
    }
    buildChecked = true;
    this.copy = copyCheckout({ dist: true });
    mkdirSync(join(this.copy.dir, '.tmp'));
    this.port = await freePort();
    this.sparePort = await freePort();
    for (const documented of this.documentedPorts) this.moved.set(documented, await freePort());
    return this.copy.dir;
  }

  private env(dir: string, sandbox: boolean): Record<string, string | undefined> {
    const base = `http://127.0.0.1:${this.port}`;
    // A block's temporary files stay in its working directory, removed with it.
    const blocks = { ...USER_ENV, TOKEN: ADMIN_TOKEN, BASE: base, TMPDIR: join(dir, '.tmp') };
    // A block that serves though it is not marked as a server block listens on a port of its own
    // until its timeout stops it, not on this machine's 4010, where another checkout may serve.
    return { ...blocks, PORT: String(sandbox ? this.port : this.sparePort), ...(sandbox && { SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN }) };
  }

  /** Waits for the sandbox to answer its readiness probe, or fails with what it printed. */
  private async ready(sandbox: Started): Promise<void> {
    await pollFor(async () => ((await statusOf(`http://127.0.0.1:${this.port}/__sandbox/health/ready`)) === 200 ? true : undefined), {
      everyMs: 50,
      forMs: READY_TIMEOUT_MS,
      gone: () => (sandbox.child.exitCode === null && sandbox.child.signalCode === null ? undefined : 'it exited'),
    });
  }

  private async ensureSandbox(dir: string): Promise<void> {
    if (this.sandboxStarted) return;
    this.sandboxStarted = true;
    this.sandbox = start(process.execPath, [...BIN_FLAGS, 'dist/cli/bin.cjs', '--no-watch'], dir, this.env(dir, true));
    try {
      await this.ready(this.sandbox);
    } catch (error) {
      throw new Error(`${this.page}: the default sandbox did not start (${(error as Error).message}):\n${this.sandboxOutput()}`, {
        cause: error,
      });
    }
  }

  private sandboxOutput(): string {
    return this.sandbox ? tail(this.sandbox.stdout() + this.sandbox.stderr(), 20) : '(none started)';
  }

  private describe(line: number): string {
    return `${this.page}:${line} under \`${this.shell.command} ${this.shell.args.join(' ')}\``;
  }

  /** A block that serves: the page's sandbox from now on, in place of the one before. */
  private async serve(dir: string, line: number, script: string): Promise<void> {
    if (this.sandbox) await stopGroup(this.sandbox.child);
    this.sandboxStarted = true;
    this.sandbox = start(this.shell.command, [...this.shell.args, script], dir, this.env(dir, true));
    try {
      await this.ready(this.sandbox);
    } catch (error) {
      const failed = this.sandbox;
      await stopGroup(failed.child);
      await failed.closed;
      this.sandbox = undefined;
      throw new Error(
        [
          `${this.describe(line)}: the server block's sandbox did not answer /__sandbox/health/ready on port ${this.port} (${(error as Error).message})`,
          '── the block, as run ──',
          script.trimEnd(),
          '── its stdout ──',
          tail(failed.stdout()),
          '── its stderr ──',
          tail(failed.stderr()),
        ].join('\n'),
        { cause: error },
      );
    }
  }

  /**
   * A block that serves something besides the sandbox (a webhook receiver): started in the
   * background, for the rest of the page, once it takes connections on its port.
   */
  private async startBackground(dir: string, line: number, port: number, script: string): Promise<void> {
    const started = start(this.shell.command, [...this.shell.args, script], dir, this.env(dir, false));
    this.background.push(started);
    try {
      await pollFor(async () => ((await listening(port)) ? true : undefined), {
        everyMs: 50,
        forMs: READY_TIMEOUT_MS,
        gone: () => (started.child.exitCode === null && started.child.signalCode === null ? undefined : 'it exited'),
      });
    } catch (error) {
      await stopGroup(started.child);
      await started.closed;
      throw new Error(
        [
          `${this.describe(line)}: the background block took no connection on port ${port} (${(error as Error).message})`,
          '── the block, as run ──',
          script.trimEnd(),
          '── its stdout ──',
          tail(started.stdout()),
          '── its stderr ──',
          tail(started.stderr()),
        ].join('\n'),
        { cause: error },
      );
    }
  }

  private async run(dir: string, line: number, script: string): Promise<void> {
    await this.ensureSandbox(dir);
    const block = start(this.shell.command, [...this.shell.args, script], dir, this.env(dir, false));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopGroup(block.child);
    }, BLOCK_TIMEOUT_MS);
    const exited = await new Promise<number | string>((resolve) =>
      block.child.exitCode !== null
        ? resolve(block.child.exitCode)
        : block.child.once('exit', (code, signal) => resolve(code ?? String(signal))),
    );
    clearTimeout(timer);
    // What the block left running in the background goes with it (and closes the pipes it held).
    await stopGroup(block.child, 1_000);
    await block.closed;
    if (exited === 0 && !timedOut) return;
    const sandboxState =
      this.sandbox && (this.sandbox.child.exitCode !== null || this.sandbox.child.signalCode !== null) ? ' (it has exited)' : '';
    throw new Error(
      [
        timedOut
          ? `${this.describe(line)} did not finish within ${BLOCK_TIMEOUT_MS / 1000} s and was stopped with all it started (a block that serves needs <!-- doc-test: server -->)`
          : `${this.describe(line)} exited with ${exited}`,
        `── the block, as run (BASE=http://127.0.0.1:${this.port}) ──`,
        script.trimEnd(),
        '── stdout ──',
        tail(block.stdout()),
        '── stderr ──',
        tail(block.stderr()),
        `── the sandbox's last lines${sandboxState} ──`,
        this.sandboxOutput(),
      ].join('\n'),
    );
  }
}
