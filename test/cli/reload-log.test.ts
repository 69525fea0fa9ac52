import { appendFileSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { edit, startWatchedPetStore, stopWatchedPetStore, until, type Cli, type WatchedPetStore } from '../support/reload-cli.js';

/** Resolves once the CLI has logged `text`, within 10 s. */
async function logged(cli: Cli, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cli.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`never logged "${text}":\n${cli.output().slice(-2_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lines = (cli: Cli, pattern: RegExp): string[] =>
  cli
    .output()
    .split('\n')
    .filter((line) => pattern.test(line));

describe('failed reloads in the log', () => {
  let store: WatchedPetStore | undefined;
  let dir: string;
  let spec: string;
  let configFile: string;
  let cli: Cli | undefined;

  beforeEach(async () => {
    store = await startWatchedPetStore('understudy-reload-log-');
    ({ dir, spec, configFile, cli } = store);
  });
  afterEach(async () => {
    await stopWatchedPetStore(store);
    store = undefined;
    cli = undefined;
  });

  it('are set off by no file the sandbox does not read, and a repeated failure is one line and a count', async () => {
    const running = cli!;
    // The log written into the watched folder, as `understudy --watch > server.log` does: each
    // failure's line must not set off the next reload.
    const logFile = join(dir, 'server.log');
    running.child.stdout.on('data', (chunk: Buffer) => appendFileSync(logFile, chunk));
    const good = await readFile(spec, 'utf8');
    await writeFile(spec, `${good}\n  broken: [unclosed\n`);
    const failed = await until(running, (s) => s.lastReload?.ok === false);
    await logged(running, 'reload failed; generation 1 still serves');

    // A file the sandbox does not read, written again and again beside the document.
    for (const n of [1, 2, 3, 4, 5]) await appendFile(join(dir, 'notes.txt'), `note ${n}\n`);
    // Then a file it reads, changed so that the reload fails the same way: one attempt more.
    await edit(configFile, (text) => `${text}# still broken\n`);
    await until(running, (s) => s.lastReload?.at !== failed.lastReload?.at);
    // The fix: the next outcome logs how often the failure came again first.
    await writeFile(spec, good);
    await until(running, (s) => s.generation === 2);
    await logged(running, '"msg":"reloaded: generation 2,');

    expect(lines(running, /server\.log|notes\.txt/)).toEqual([]);
    expect(lines(running, /"msg":"reload failed; generation 1 still serves/)).toHaveLength(1);
    const repeated = lines(running, /the same failure/);
    expect(repeated).toHaveLength(1);
    expect(repeated[0]).toContain('"msg":"the same failure 1 more time: reload failed; generation 1 still serves');
    const output = running.output();
    expect(output.indexOf('the same failure')).toBeLessThan(output.indexOf('reloaded: generation 2'));
    // What set off the repeated failure is not logged; the first failure's cause and the fix's are.
    expect(lines(running, /"msg":"reloading: /).map((line) => /"msg":"(reloading: [^"]*)"/.exec(line)?.[1])).toEqual([
      `reloading: ${spec} changed`,
      `reloading: ${spec} changed`,
    ]);
  });
});
