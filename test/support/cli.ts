import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
// @ts-expect-error: the build scripts are plain JavaScript, outside the TypeScript project
import { binFlags } from '../../scripts/build-state.mjs';

export const CLI = fileURLToPath(new URL('../../dist/cli/bin.cjs', import.meta.url));
/** The V8 flags of the bin's own shebang: under other flags V8 would refuse the bundle's code cache. */
export const BIN_FLAGS = (binFlags as (root: string) => string[])(fileURLToPath(new URL('../../', import.meta.url)));

export interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly output: () => string;
  /** Resolves when the CLI has printed `text` (on stdout or stderr). */
  readonly waitFor: (text: string) => Promise<void>;
  readonly exited: Promise<number | null>;
}

/** Starts the built CLI on a free port and resolves once it prints its ready line. */
export function startCli(args: readonly string[] = [], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [...BIN_FLAGS, CLI, '--port', '0', ...args], { env: { ...process.env, ...env } });
  // A test that fails before it stops its server must not leave the server running: killed when the
  // test ends, or (started in a beforeAll) when the test process does.
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    onTestFinished(kill);
  } catch {
    process.once('exit', kill);
  }
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (text: string): Promise<void> =>
    new Promise((resolve) => {
      const check = () => {
        if (!out.includes(text)) return;
        child.stdout.off('data', check);
        child.stderr.off('data', check);
        resolve();
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      check();
    });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /serving .* at (http:\/\/\S+)/.exec(out);
      if (ready?.[1]) resolve({ child, url: ready[1], output: () => out, waitFor, exited });
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => reject(new Error(`the CLI exited with ${code} before it was ready:\n${out}`)));
  });
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...BIN_FLAGS, CLI, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // A CLI that should have stopped but serves instead must not outlive the test.
  const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** API requests the running sandbox is answering right now, from the admin API's metrics. */
export async function inFlight(url: string, adminToken: string): Promise<number> {
  const res = await fetch(`${url.replace(/\/v1$/, '')}/__sandbox/metrics`, { headers: { Authorization: `Bearer ${adminToken}` } });
  return ((await res.json()) as { inFlight: number }).inFlight;
}

/** Polls until `condition` holds (bounded: a server that never gets there fails the test). */
export async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 5_000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the condition never held');
}
