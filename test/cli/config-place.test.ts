import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { CONFIG, FIXTURES, TOKEN, admin, start, stop, until, writeSplitPetStore, type Cli } from '../support/reload-cli.js';

/** A config that parses but is refused names the file, and the line and column of the value. */

/** `plans.free.perMinute: 0` on line 3, its value at column 22. */
const ZERO = `plans:\n  unlimited: { perMinute: 1000000, perDay: 1000000 }\n  free: { perMinute: 0, perDay: 10 }\n`;

describe('a config refused by its schema', () => {
  let dir: string;
  let spec: string;
  let configFile: string;
  let cli: Cli | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'understudy-config-place-'));
    ({ spec } = await writeSplitPetStore(dir));
    configFile = join(dir, 'sandbox.yaml');
  });
  afterEach(async () => {
    await stop(cli);
    cli = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('names file:line:column at start', async () => {
    await writeFile(configFile, ZERO);
    const { code, stderr } = await runCli(['--spec', spec, '--config', configFile], { SANDBOX_CONFIG: '' });
    expect(code).toBe(1);
    expect(stderr).toContain(`invalid configuration: ${configFile}:3:22: plans.free.perMinute must be >= 1`);
  });

  it('names an unknown field at its key, in a JSON config too', async () => {
    const json = join(dir, 'sandbox.json');
    await writeFile(json, '{\n  "port": 0,\n  "colour": "blue"\n}\n');
    const { code, stderr } = await runCli(['--spec', spec, '--config', json], { SANDBOX_CONFIG: '' });
    expect(code).toBe(1);
    expect(stderr).toContain(`${json}:3:4: (top level) must NOT have additional properties (colour)`);
  });

  it('names file:line:column on reload: in the 422 and in the log', async () => {
    await writeFile(configFile, CONFIG);
    cli = await start(['--no-watch', '--admin-token', TOKEN, '--spec', spec, '--fixtures', FIXTURES, '--config', configFile], /serving/);
    await writeFile(configFile, ZERO);
    const res = await fetch(`${cli.origin}/__sandbox/reload`, { method: 'POST', headers: admin });
    expect(res.status).toBe(422);
    const place = `${configFile}:3:22: plans.free.perMinute must be >= 1`;
    expect(JSON.stringify(await res.json())).toContain(place);
    const failed = await until(cli, (s) => s.lastReload?.ok === false);
    expect(failed.lastReload?.errors.join('\n')).toContain(place);
    const deadline = Date.now() + 10_000;
    while (!cli.output().includes(place) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cli.output()).toMatch(/"level":50,.*"msg":"reload failed; generation 1 still serves: .*sandbox\.yaml:3:22: plans\.free/);
  });
});
