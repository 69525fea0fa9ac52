import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN_FLAGS, CLI, startCli } from '../support/cli.js';

/**
 * The request log as the CLI writes it: JSON lines to a pipe, the pretty lines to a terminal (or when
 * asked), coloured only on a terminal and never under NO_COLOR. The terminal is a real pseudo-terminal,
 * util-linux `script`'s.
 */

/** Variables that would decide the format or the colours for the test rather than the test itself (empty counts as unset). */
const NEUTRAL = { SANDBOX_LOG_FORMAT: '', NO_COLOR: '', FORCE_COLOR: '' };

const ESC = '\x1b';
const AUTH = { headers: { Authorization: 'Bearer demo-free' } };
/** The key column: the demo key's id, and its name beside it once the pipeline names the key. */
const KEY = String.raw`(?:demo-free \()?key_[\w-]{12}\)?`;
const TIME = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
/** The pretty line of `GET /v1/pets?limit=2` answered 200, without colours. */
const PLAIN_LINE = new RegExp(String.raw`^${TIME} {2}GET {5}/v1/pets\?limit=2 {18}200 +\d+(?:\.\d)? ms {2}listPets {10}${KEY}$`, 'm');
/** The same, coloured: the exact codes are pinned by the unit test; here, that they reach the terminal. */
const COLORED_LINE = new RegExp(
  String.raw`^\x1b\[2m${TIME}\x1b\[22m {2}\x1b\[1mGET\x1b\[22m {5}/v1/pets\?limit=2 {18}\x1b\[32m200\x1b\[39m +\d+(?:\.\d)? ms {2}listPets {10}`,
  'm',
);

/**
 * Resolves once what the child printed (`read()`) matches, checked at each chunk it prints; rejects
 * with what it printed if that takes over 10 s.
 */
function shown(child: ChildProcessWithoutNullStreams, read: () => string, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      child.stdout.off('data', check);
      child.stderr.off('data', check);
    };
    // Added after the listeners that collect the output: `read()` already holds the chunk.
    const check = (): void => {
      if (!pattern.test(read())) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`never shown ${String(pattern)}:\n${read().slice(-2_000)}`));
    }, 10_000);
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    check();
  });
}

const quoted = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
const hasScript = spawnSync('script', ['--version']).status === 0;

/**
 * Starts the CLI on a pseudo-terminal (`script -qfec`), on a free port. The shell `script` runs
 * prints its own pid, then execs the CLI in its place: the test stops the server by that pid, not
 * through `script` (a pseudo-terminal closed under the server would be a SIGHUP, which reloads).
 */
async function startOnTerminal(
  env: Record<string, string>,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string; stop: () => Promise<number | null> }> {
  const command = `echo "pid $$"; exec ${[process.execPath, ...BIN_FLAGS, CLI, '--port', '0', '--no-watch'].map(quoted).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...process.env, ...NEUTRAL, SHELL: '/bin/sh', ...env } });
  let out = '';
  // The terminal ends its lines with \r\n.
  const collect = (chunk: Buffer): void => void (out = (out + chunk.toString()).replace(/\r\n/g, '\n'));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // A test that fails before it stops the server must not leave it running: the server first, for
  // `script` gone first would leave it a SIGHUP, which reloads and serves on.
  const server: { pid?: number } = {};
  onTestFinished(() => {
    if (child.exitCode !== null) return;
    if (server.pid !== undefined) process.kill(server.pid, 'SIGKILL');
    child.kill('SIGKILL');
  });
  await shown(child, () => out, /^pid \d+$/m);
  const pid = Number(/^pid (\d+)$/m.exec(out)?.[1]);
  server.pid = pid;
  await shown(child, () => out, /serving .* at http:\S+/);
  const url = /serving .* at (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  const stop = (): Promise<number | null> => {
    process.kill(pid, 'SIGTERM');
    return exited;
  };
  return { child, url, output: () => out, stop };
}

describe('the request log’s format', () => {
  it('writes JSON lines to a pipe, with no escape codes', async () => {
    const cli = await startCli([], NEUTRAL);
    expect((await fetch(`${cli.url}/pets?limit=2`, AUTH)).status).toBe(200);
    // The JSON log is written in batches, at least once a second.
    await cli.waitFor('"msg":"request"');
    const line = cli
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"request"'));
    expect(JSON.parse(line!)).toMatchObject({
      level: 30,
      method: 'GET',
      path: '/v1/pets',
      status: 200,
      key: expect.stringMatching(/^key_/),
      op: 'listPets',
    });
    expect(cli.output()).not.toContain(ESC);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('writes the pretty lines to a pipe with --log-format pretty, without colours, the log’s other messages too', async () => {
    const cli = await startCli(['--log-format', 'pretty', '--no-watch'], NEUTRAL);
    expect((await fetch(`${cli.url}/pets?limit=2`, AUTH)).status).toBe(200);
    await shown(cli.child, cli.output, PLAIN_LINE);
    cli.child.kill('SIGHUP');
    await shown(cli.child, cli.output, /^\d\d:\d\d:\d\d\.\d{3} {2}info {4}reloaded: generation 2/m);
    expect(cli.output()).toMatch(new RegExp(`^${TIME} {2}info {4}reloading: SIGHUP$`, 'm'));
    const output = cli.output();
    expect(output).not.toContain(ESC);
    expect(output).not.toContain('"level"');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('colours the pretty lines of a pipe under FORCE_COLOR=1', async () => {
    const cli = await startCli(['--log-format', 'pretty', '--no-watch'], { ...NEUTRAL, FORCE_COLOR: '1' });
    expect((await fetch(`${cli.url}/pets?limit=2`, AUTH)).status).toBe(200);
    await shown(cli.child, cli.output, COLORED_LINE);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it.runIf(hasScript)('writes coloured pretty lines to a terminal, by default', async () => {
    const cli = await startOnTerminal({});
    expect((await fetch(`${cli.url}/pets?limit=2`, AUTH)).status).toBe(200);
    await shown(cli.child, cli.output, COLORED_LINE);
    expect(cli.output()).not.toContain('"msg"');
    expect(await cli.stop()).toBe(0);
  });

  it.runIf(hasScript)('writes pretty lines without a single escape code to a terminal under NO_COLOR=1', async () => {
    const cli = await startOnTerminal({ NO_COLOR: '1' });
    expect((await fetch(`${cli.url}/pets?limit=2`, AUTH)).status).toBe(200);
    await shown(cli.child, cli.output, PLAIN_LINE);
    expect(cli.output()).not.toContain(ESC);
    expect(await cli.stop()).toBe(0);
  });
});
