import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';

const OK_PATHS = `paths:
  /a:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Missing' }
`;

/** A broken document stops the start with a message that says where, in the user's own file. */
describe('located load errors', () => {
  let dir: string;
  const file = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'understudy-load-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [
      'invalid YAML names the line and column',
      'bad.yaml',
      'openapi: 3.0.3\ninfo: { title: x\npaths: {}\n',
      /bad\.yaml:3:\d+: not valid YAML: /,
    ],
    [
      'invalid JSON names the line',
      'bad.json',
      '{\n  "openapi": "3.0.3",\n  "info": {}\n  "paths": {}\n}',
      /bad\.json:4:\d+: not valid JSON/,
    ],
    [
      'invalid JSON without a position names the line',
      'bad2.json',
      '{\n  "openapi": "3.0.3",\n  "paths": }\n',
      /bad2\.json:3:\d+: not valid JSON/,
    ],
    [
      'an unresolvable $ref names where it stands and what it points at',
      'ref.yaml',
      `openapi: 3.0.3\ninfo: { title: x, version: '1' }\n${OK_PATHS}`,
      /ref\.yaml: 1 unresolvable reference:\n {2}#\/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema: \$ref #\/components\/schemas\/Missing resolves nowhere/,
    ],
    [
      'a Swagger 2.0 $ref is located in the 2.0 document, before conversion',
      'ref2.yaml',
      "swagger: '2.0'\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200': { description: ok, schema: { $ref: '#/definitions/Nope' } }\n",
      /#\/paths\/~1a\/get\/responses\/200\/schema: \$ref #\/definitions\/Nope resolves nowhere/,
    ],
    [
      'Swagger 1.2 is refused by name',
      'old.yaml',
      "swagger: '1.2'\n",
      /Swagger 1\.2; the sandbox reads Swagger 2\.0 and OpenAPI 3\.0, 3\.1 and 3\.2/,
    ],
    ['OpenAPI 4 is refused by name', 'new.yaml', 'openapi: 4.0.0\n', /OpenAPI 4\.0\.0;/],
    ['OpenAPI 3.3 is refused by name', 'next.yaml', 'openapi: 3.3.0\n', /OpenAPI 3\.3\.0; the sandbox reads .* 3\.2/],
    ['no version field', 'none.yaml', 'paths: {}\n', /no "openapi" or "swagger" version field/],
  ])('%s', async (_name, name, text, message) => {
    await expect(readDocument(await file(name, text))).rejects.toThrow(message);
  });

  it('a $ref inside an example is data, not a reference', async () => {
    const path = await file(
      'example.yaml',
      `openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: { $ref: '#/nowhere' }\n`,
    );
    await expect(readDocument(path)).resolves.toMatchObject({ sourceVersion: '3.0.3', warnings: [] });
  });

  it('an unquoted `swagger: 2.0` (a YAML number) is Swagger 2.0', async () => {
    const path = await file('number.yaml', "swagger: 2.0\ninfo: { title: x, version: '1' }\npaths: {}\n");
    await expect(readDocument(path)).resolves.toMatchObject({ sourceVersion: '2.0' });
  });

  it('reports its phases: loading, then converting for Swagger 2.0', async () => {
    const events: string[] = [];
    await readDocument('test/documents/swagger2-shop.yaml', { onProgress: (e) => events.push(e.phase) });
    expect(events).toEqual(['loading', 'converting', 'warning']);
  });

  it('an OpenAPI 3.1 operation without responses is modelled as a 204 with no content', async () => {
    const model = buildApiModel((await readDocument('test/documents/openapi31-no-responses.yaml')).document);
    expect(model.operations.find((o) => o.id === 'ping')?.responses).toEqual([{ status: '204', headers: [], content: [] }]);
  });
});

/** What published documents do that the specification does not quite allow, read rather than refused. */
describe('tolerated quirks of published documents', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'understudy-quirks-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a JSON document that starts with a byte-order mark', async () => {
    const path = join(dir, 'bom.json');
    await writeFile(path, '\uFEFF' + JSON.stringify({ openapi: '3.0.3', info: { title: 'bom', version: '1' }, paths: {} }));
    const { document } = await readDocument(path);
    expect(buildApiModel(document).title).toBe('bom');
  });

  it('reads `schema: null` as no schema: any value is accepted', async () => {
    const path = join(dir, 'null-schema.yaml');
    await writeFile(
      path,
      'openapi: 3.0.3\ninfo: { title: t, version: 1 }\npaths:\n  /items:\n    post:\n      parameters:\n' +
        '        - { name: q, in: query, schema: null }\n      requestBody:\n        content:\n          application/json: { schema: null }\n' +
        '      responses: { "204": { description: done } }\n',
    );
    const [op] = buildApiModel((await readDocument(path)).document).operations;
    expect(op?.requestBody?.content[0]?.schemaPointer).toBeUndefined();
    expect(op?.parameters[0]?.schemaPointer).toBeUndefined();
  });
});
