import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/defaults.js';
import type { SandboxStatus } from '../../src/vocabulary/reload.js';
import { CLI } from './cli.js';
import { pingOperation } from './ping-operation.js';

/** What the hot reload tests share: the built CLI started on real files, its status, and edits to those files. */

export const TOKEN = 'reload-cli-admin-token';
export const KEY = 'reload-key';
/** A key whose quota the request loop cannot exhaust. */
export const CONFIG = `plans:\n  unlimited: { perMinute: 1000000, perDay: 1000000 }\nkeys:\n  - { key: ${KEY}, plan: unlimited }\n`;
export const PING = pingOperation();
export const FIXTURES = join(PACKAGE_ROOT, 'fixtures/petstore.yaml');
export const auth = { Authorization: `Bearer ${KEY}` };
export const admin = { Authorization: `Bearer ${TOKEN}` };

export interface Cli {
  readonly child: ChildProcessWithoutNullStreams;
  /** The API's base address (…/v1). */
  readonly url: string;
  readonly origin: string;
  readonly output: () => string;
  readonly exited: Promise<unknown>;
}

/** Starts the built CLI and resolves once it prints `ready` (it lives past one test, so it is stopped by the suite). */
export function start(args: readonly string[], ready: RegExp): Promise<Cli> {
  const child = spawn(process.execPath, [CLI, '--port', '0', ...args], { env: { ...process.env, SANDBOX_CONFIG: '' } });
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /serving .* at (http:\/\/\S+)/.exec(out)?.[1];
      if (url && ready.test(out)) resolve({ child, url, origin: new URL(url).origin, output: () => out, exited });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      check();
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => reject(new Error(`the CLI exited with ${String(code)} before it was ready:\n${out}`)));
  });
}

export async function stop(cli: Cli | undefined): Promise<void> {
  if (!cli || cli.child.exitCode !== null || cli.child.signalCode !== null) return;
  cli.child.kill('SIGTERM');
  const killer = setTimeout(() => cli.child.kill('SIGKILL'), 5_000);
  await cli.exited;
  clearTimeout(killer);
}

export async function status(cli: Cli): Promise<SandboxStatus> {
  const res = await fetch(`${cli.origin}/__sandbox/status`, { headers: admin });
  expect(res.status).toBe(200);
  return (await res.json()) as SandboxStatus;
}

/** Polls the status every 50 ms, up to 10 s, until `holds`. */
export async function until(cli: Cli, holds: (s: SandboxStatus) => boolean): Promise<SandboxStatus> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const now = await status(cli);
    if (holds(now)) return now;
    if (Date.now() > deadline) throw new Error(`the status never got there: ${JSON.stringify(now)}\n${cli.output().slice(-2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const edit = async (file: string, change: (text: string) => string): Promise<void> => {
  const before = await readFile(file, 'utf8');
  const after = change(before);
  expect(after).not.toBe(before);
  await writeFile(file, after);
};

/** The Pet Store split in two: its Order schema lives in order.yaml, reached by `$ref`. */
export async function writeSplitPetStore(dir: string): Promise<{ spec: string; orderFile: string }> {
  const original = await readFile(join(PACKAGE_ROOT, 'openapi/petstore.yaml'), 'utf8');
  const order = /^ {4}Order:\n((?: {6}.*\n)+)/m.exec(original);
  expect(order).not.toBeNull();
  const spec = join(dir, 'petstore.yaml');
  const orderFile = join(dir, 'order.yaml');
  await writeFile(orderFile, order![1]!.replace(/^ {6}/gm, ''));
  await writeFile(spec, original.replace(order![0], "    Order:\n      $ref: './order.yaml'\n"));
  return { spec, orderFile };
}

/** A watched split Pet Store in a folder of its own, with its config, and the CLI serving it. */
export interface WatchedPetStore {
  readonly dir: string;
  readonly spec: string;
  readonly orderFile: string;
  readonly configFile: string;
  readonly cli: Cli;
}

/** Writes the split Pet Store and its config into a new folder and starts the CLI watching them. */
export async function startWatchedPetStore(prefix: string): Promise<WatchedPetStore> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const { spec, orderFile } = await writeSplitPetStore(dir);
  const configFile = join(dir, 'sandbox.yaml');
  await writeFile(configFile, CONFIG);
  const cli = await start(
    ['--watch', '--admin-token', TOKEN, '--spec', spec, '--fixtures', FIXTURES, '--config', configFile],
    /watching \d+ files? for changes/,
  );
  return { dir, spec, orderFile, configFile, cli };
}

/** Stops the CLI and removes the folder. */
export async function stopWatchedPetStore(store: WatchedPetStore | undefined): Promise<void> {
  if (store === undefined) return;
  await stop(store.cli);
  await rm(store.dir, { recursive: true, force: true });
}
