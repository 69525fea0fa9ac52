import { readFile } from 'node:fs/promises';
import { load as parseYaml } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { exampleWarnings } from '../../src/mock/example-check.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { valueAt } from '../../src/openapi/json-pointer.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { convertSwagger2 } from '../../src/openapi/swagger2.js';

const SHOP = 'test/documents/swagger2-shop.yaml';

/** A Swagger 2.0 document becomes the same operation model a 3.0 document gives. */
describe('Swagger 2.0, converted at load', async () => {
  const loaded = await readDocument(SHOP);
  const model = buildApiModel(loaded.document);
  const op = (id: string) => model.operations.find((o) => o.id === id)!;
  const param = (id: string, name: string) => op(id).parameters.find((p) => p.name === name)!;

  it('is read as 2.0 and served as OpenAPI 3.0', () => {
    expect(loaded.sourceVersion).toBe('2.0');
    expect(model.dialect).toBe('3.0');
    expect(model.title).toBe('Swagger Shop');
  });

  it('host + basePath + schemes give the base path', () => {
    expect(valueAt(loaded.document, '#/servers/0/url')).toBe('https://shop.example.com/api/v2');
    expect(model.basePath).toBe('/api/v2');
  });

  it('securityDefinitions become security schemes', () => {
    expect(model.securitySchemes.get('headerKey')).toMatchObject({ kind: 'apiKey', in: 'header', parameter: 'x-api-key' });
    expect(model.securitySchemes.get('queryKey')).toMatchObject({ kind: 'apiKey', in: 'query', parameter: 'api_key' });
    expect(op('listItems').security).toMatchObject([[{ scheme: 'headerKey' }], [{ scheme: 'queryKey' }]]);
  });

  it.each([
    // collectionFormat → style/explode (OpenAPI 3.0.3 §4.7.12.4)
    ['tags', 'csv', 'form', false],
    ['words', 'ssv', 'spaceDelimited', false],
    ['codes', 'pipes', 'pipeDelimited', false],
    ['ids', 'multi', 'form', true],
  ])('query %s (collectionFormat %s) is an array in style %s, explode %s', (name, _format, style, explode) => {
    expect(param('listItems', name)).toMatchObject({ in: 'query', kind: 'array', style, explode });
  });

  it('in: body becomes a required JSON request body, consumes/produces become media types', () => {
    expect(op('createItem').requestBody).toMatchObject({
      required: true,
      content: [{ mediaType: 'application/json', schemaPointer: expect.stringContaining('/requestBody/content/application~1json/schema') }],
    });
    expect(op('exportItems').responses[0]!.content.map((m) => m.mediaType)).toEqual(['text/csv']);
  });

  it('formData becomes a form body, type: file a multipart body with a binary part', () => {
    const form = op('setNote').requestBody!.content[0]!;
    expect(form.mediaType).toBe('application/x-www-form-urlencoded');
    expect(valueAt(loaded.document, form.schemaPointer!)).toEqual({
      type: 'object',
      properties: { note: { type: 'string', maxLength: 200 }, pinned: { type: 'boolean' } },
      required: ['note'],
    });
    const multipart = op('uploadPhoto').requestBody!.content[0]!;
    expect(multipart.mediaType).toBe('multipart/form-data');
    expect(valueAt(loaded.document, `${multipart.schemaPointer!}/properties/photo`)).toEqual({ type: 'string', format: 'binary' });
  });

  it('x-nullable becomes a null type once normalised', () => {
    expect(valueAt(model.document, '#/components/schemas/Item/properties/note')).toEqual({ type: ['string', 'null'] });
  });

  it('response headers and examples are carried over', () => {
    const ok = op('listItems').responses[0]!;
    expect(ok.headers).toMatchObject([{ name: 'x-total', kind: 'integer' }]);
    expect(ok.content[0]!.example?.value).toMatchObject({ items: [{ id: 1, name: 'Kettle', note: null }] });
  });

  it('what the converter cannot carry over is a located warning (collectionFormat tsv has no 3.0 style)', () => {
    expect(loaded.warnings).toEqual([expect.stringMatching(/^#\/paths\/~1items\/get\/parameters\/2: .*tsv/)]);
  });

  it('leaves its input unchanged, and a parameter-level x-nullable lands in the schema', async () => {
    const source = parseYaml(await readFile(SHOP, 'utf8'));
    const before = JSON.stringify(source);
    await convertSwagger2(source);
    expect(JSON.stringify(source)).toBe(before);
    const { document } = await convertSwagger2({
      swagger: '2.0',
      info: { title: 't', version: '1' },
      paths: {
        '/a': {
          get: { parameters: [{ name: 'n', in: 'query', type: 'string', 'x-nullable': true }], responses: { 204: { description: 'ok' } } },
        },
      },
    });
    expect(valueAt(document, '#/paths/~1a/get/parameters/0')).toEqual({
      name: 'n',
      in: 'query',
      schema: { type: 'string', nullable: true },
    });
  });

  it('basic and oauth2 definitions become http basic and oauth2 client-credentials schemes', async () => {
    const { document } = await readDocument('test/documents/swagger2-auth.yaml');
    expect(valueAt(document, '#/components/securitySchemes')).toEqual({
      basicAuth: { type: 'http', scheme: 'basic' },
      oauth: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { read: 'Read things' } } },
      },
    });
  });
});

/**
 * Start-up messages about a Swagger 2.0 document name places in the user's 2.0 file, not in its
 * OpenAPI 3.0 conversion (the file they can open and fix): converter notes, security schemes the
 * sandbox cannot check, examples that break their schemas.
 */
describe('Swagger 2.0 start warnings name the original document', async () => {
  const loaded = await readDocument('test/documents/swagger2-located.yaml');
  const model = buildApiModel(loaded.document, loaded.locate);

  it('what the converter cannot carry over, where the 2.0 file says it (the body parameter came first)', () => {
    expect(loaded.warnings).toEqual([
      '#/paths/~1pets/post/parameters/1: collectionFormat:tsv is no longer supported',
      '#/responses/Problem/headers/X-Codes: collectionFormat:ssv is no longer supported for headers',
    ]);
  });

  it('a security scheme the sandbox cannot check, under securityDefinitions by the name the file gives it', () => {
    expect(model.warnings).toEqual([
      expect.stringMatching(/^#\/securityDefinitions\/client cert: security scheme "client_cert" \(mutualTLS\) cannot be checked/),
    ]);
  });

  it('examples that break their schemas: a response example by media type, a schema example in definitions', () => {
    expect(exampleWarnings(model)).toEqual([
      expect.stringMatching(
        /^#\/paths\/~1pets\/get\/responses\/200\/examples\/application~1json: the example breaks its schema \(example\[0\]\.id must be integer\)/,
      ),
      expect.stringMatching(
        /^#\/definitions\/Pet Item\/properties\/name\/example: the example breaks its schema \(example must be string\)/,
      ),
    ]);
  });

  it('every pointer in those messages exists in the 2.0 file', async () => {
    const original = parseYaml(await readFile('test/documents/swagger2-located.yaml', 'utf8'));
    for (const message of [...loaded.warnings, ...model.warnings, ...exampleWarnings(model)]) {
      expect(valueAt(original, message.slice(0, message.indexOf(': ')))).toBeDefined();
    }
  });

  it('an operation without responses is modelled as in OpenAPI 3.1: a 204 with no content', () => {
    expect(model.operations.find((o) => o.id === 'ping')?.responses).toEqual([{ status: '204', headers: [], content: [] }]);
  });
});
