import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';

/** What a user sees when the built CLI starts, or cannot. */
describe('start-up through the CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'understudy-startup-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints a summary before the ready line', async () => {
    const cli = await startCli();
    expect(cli.output()).toMatch(
      /understudy: ready in \d+(?: ms|\.\d s): \d+ operations, \d+ security schemes?, 0 warnings\nunderstudy: state: 2 collections keep records \(pets, orders\); 0 operations answered from the document \(understudy explain says which and why\)\n.*serving Pet Store/,
    );
    // Not a terminal: no progress lines.
    expect(cli.output()).not.toMatch(/compiling|loading/);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('serves a Swagger 2.0 document, says so, and prints its warnings', async () => {
    const cli = await startCli(['--spec', 'test/documents/swagger2-shop.yaml', '--fixtures', '']);
    expect(cli.output()).toContain('understudy: warning: #/paths/~1items/get/parameters/2: collectionFormat:tsv is no longer supported');
    expect(cli.output()).toMatch(/6 operations, 2 security schemes, 1 warning; converted from Swagger 2\.0/);
    expect(cli.url).toMatch(/\/api\/v2$/);
    const res = await fetch(`${cli.url}/items?ids=500`, { headers: { 'X-Api-Key': 'demo-free' } });
    expect(res.status).toBe(400);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it.each([
    ['invalid YAML', 'broken.yaml', 'openapi: 3.0.3\ninfo: [\n', /^understudy: cannot start: .*broken\.yaml:3:1: not valid YAML: /],
    [
      'an unresolvable $ref',
      'ref.yaml',
      "swagger: '2.0'\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200': { description: ok, schema: { $ref: '#/definitions/Gone' } }\n",
      /^understudy: cannot start: .*ref\.yaml: 1 unresolvable reference:\n {2}#\/paths\/~1a\/get\/responses\/200\/schema: \$ref #\/definitions\/Gone resolves nowhere\n$/,
    ],
  ])('%s stops the start: a located message, exit code 1, no stack trace', async (_name, file, text, message) => {
    const path = join(dir, file);
    await writeFile(path, text);
    const { code, stdout, stderr } = await runCli(['--spec', path, '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).not.toContain('serving');
  });
});
