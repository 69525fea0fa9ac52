import { readdir, readFile } from 'node:fs/promises';
import { load as parseYaml } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { escapePointerToken, isArray, isObject, valueAt } from '../../src/openapi/json-pointer.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { convertSwagger2 } from '../../src/openapi/swagger2.js';

const LOCATED = 'test/documents/swagger2-located.yaml';
const NETLIFY = 'node_modules/@netlify/open-api/dist/swagger.json';
const ZOO = 'node_modules/swagger-zoo/fixtures';
/** Swagger 2.0 documents written to exercise one feature each (swagger-zoo, a dev dependency). */
const FEATURES = (await readdir(`${ZOO}/features/swagger`))
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => `${ZOO}/features/swagger/${name}`);

interface Conversion {
  readonly original: unknown;
  readonly document: unknown;
  readonly locate: (pointer: string) => string;
}

const conversions = new Map<string, Promise<Conversion>>();
const converted = (file: string): Promise<Conversion> => {
  let conversion = conversions.get(file);
  if (!conversion) {
    conversion = (async () => {
      const text = await readFile(file, 'utf8');
      const original: unknown = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
      return { original, ...(await convertSwagger2(original)) };
    })();
    conversions.set(file, conversion);
  }
  return conversion;
};

/** Every pointer into a document, the document's own first. */
function* pointersOf(node: unknown, at = '#'): Generator<string> {
  yield at;
  if (isArray(node)) for (const [i, value] of node.entries()) yield* pointersOf(value, `${at}/${i}`);
  else if (isObject(node)) for (const [key, value] of Object.entries(node)) yield* pointersOf(value, `${at}/${escapePointerToken(key)}`);
}

/** A place in the OpenAPI 3.0 conversion of a Swagger 2.0 document, named in the 2.0 original. */
describe('original locations of a converted Swagger 2.0 document', () => {
  it.each([
    // definitions, under the name the converter had to change
    ['#/components/schemas/Pet_Item/properties/name/example', '#/definitions/Pet Item/properties/name/example'],
    ['#/components/schemas', '#/definitions'],
    ['#/components/securitySchemes/client_cert', '#/securityDefinitions/client cert'],
    // shared responses: one schema for every media type, headers typed inline
    ['#/components/responses/Problem/content/application~1json/schema', '#/responses/Problem/schema'],
    ['#/components/responses/Problem/headers/X-Codes/schema/items/type', '#/responses/Problem/headers/X-Codes/items/type'],
    // shared parameters: no schema in 2.0, x-nullable where 3.0 says nullable
    ['#/components/parameters/Limit/schema/maximum', '#/parameters/Limit/maximum'],
    ['#/components/parameters/Limit/schema/nullable', '#/parameters/Limit/x-nullable'],
    // operation parameters, matched by name and location (the body parameter came first)
    ['#/paths/~1pets/post/parameters/0', '#/paths/~1pets/post/parameters/1'],
    ['#/paths/~1pets/post/parameters/0/schema/items/type', '#/paths/~1pets/post/parameters/1/items/type'],
    ['#/paths/~1pets/post/parameters/0/style', '#/paths/~1pets/post/parameters/1/collectionFormat'],
    ['#/paths/~1pets/get/parameters/1/schema/maxLength', '#/paths/~1pets/get/parameters/1/maxLength'],
    ['#/paths/~1pets/parameters/0/schema/maxLength', '#/paths/~1pets/parameters/0/maxLength'],
    // request bodies: the in: body parameter (a shared one where it is written), or one formData parameter per property
    ['#/paths/~1pets/post/requestBody', '#/paths/~1pets/post/parameters/0'],
    ['#/paths/~1pets/post/requestBody/content/application~1json/schema', '#/parameters/PetBody/schema'],
    [
      '#/paths/~1pets~1{petId}~1photo/post/requestBody/content/multipart~1form-data/schema/properties/caption/maxLength',
      '#/paths/~1pets~1{petId}~1photo/post/parameters/2/maxLength',
    ],
    // type: file has no format in 2.0: the nearest place that exists
    [
      '#/paths/~1pets~1{petId}~1photo/post/requestBody/content/multipart~1form-data/schema/properties/photo/format',
      '#/paths/~1pets~1{petId}~1photo/post/parameters/1',
    ],
    [
      '#/paths/~1pets~1{petId}~1photo/post/requestBody/content/multipart~1form-data/schema/required',
      '#/paths/~1pets~1{petId}~1photo/post/parameters',
    ],
    // responses: the one schema, examples keyed by media type
    ['#/paths/~1pets/get/responses/200/content/application~1json/schema/items', '#/paths/~1pets/get/responses/200/schema/items'],
    [
      '#/paths/~1pets/get/responses/200/content/application~1json/examples/response/value/0/id',
      '#/paths/~1pets/get/responses/200/examples/application~1json/0/id',
    ],
    ['#/paths/~1pets/get/responses/200/content/application~1json/example', '#/paths/~1pets/get/responses/200/examples/application~1json'],
    // what 3.0 invented: the nearest ancestor the original has
    ['#/servers/0/url', '#/basePath'],
    ['#/openapi', '#/swagger'],
    ['#/paths/~1ping/get/responses/default/description', '#/paths/~1ping/get'],
    ['#/paths/~1nowhere/get', '#/paths'],
    ['#/components/requestBodies/nowhere', '#'],
  ])('%s → %s', async (pointer, original) => {
    const { locate } = await converted(LOCATED);
    expect(locate(pointer)).toBe(original);
  });

  it.each([
    // a request body the converter hoisted into components: the first operation that sends it
    [
      '#/components/requestBodies/createSiteSnippetSnippet/content/application~1json/schema/properties/title',
      '#/paths/~1sites~1{site_id}~1snippets/post/parameters/0/schema/properties/title',
    ],
    [
      '#/components/responses/error/content/application~1json/schema/properties/message/nullable',
      '#/responses/error/schema/properties/message/x-nullable',
    ],
    ['#/components/parameters/perPage/schema/format', '#/parameters/perPage/format'],
    ['#/components/securitySchemes/netlifyAuth/flows/implicit/authorizationUrl', '#/securityDefinitions/netlifyAuth/authorizationUrl'],
    [
      '#/paths/~1sites~1{site_id}~1builds/post/requestBody/content/multipart~1form-data/schema/properties/zip/description',
      '#/paths/~1sites~1{site_id}~1builds/post/parameters/5/description',
    ],
    [
      '#/paths/~1deploys~1{deploy_id}~1files~1{path}/put/parameters/2/schema/type',
      '#/paths/~1deploys~1{deploy_id}~1files~1{path}/put/parameters/2/type',
    ],
    ['#/components/schemas/site/properties/name', '#/definitions/site/properties/name'],
  ])('in a published document (Netlify): %s → %s', async (pointer, original) => {
    const { locate } = await converted(NETLIFY);
    expect(locate(pointer)).toBe(original);
  });

  it('follows a $ref target the converter moved into components back to where it is written', async () => {
    const original = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      paths: {
        '/a': {
          get: {
            parameters: [{ name: 'q', in: 'query', type: 'string', maxLength: 3 }],
            responses: { 200: { description: 'ok', schema: { type: 'object', properties: { n: { type: 'integer' } } } } },
          },
        },
        '/b': {
          get: {
            parameters: [{ $ref: '#/paths/~1a/get/parameters/0' }],
            responses: { 200: { description: 'ok', schema: { $ref: '#/paths/~1a/get/responses/200/schema' } } },
          },
        },
      },
    };
    const { document, locate } = await convertSwagger2(original);
    // What the converter did (swagger2openapi 7): both targets moved into components.
    expect(valueAt(document, '#/paths/~1b/get/parameters/0')).toEqual({ $ref: '#/components/parameters/q1' });
    expect(locate('#/components/parameters/q1/schema/maxLength')).toBe('#/paths/~1a/get/parameters/0/maxLength');
    expect(locate('#/components/schemas/schema1/properties/n/type')).toBe('#/paths/~1a/get/responses/200/schema/properties/n/type');
    expect(locate('#/paths/~1b/get/parameters/0')).toBe('#/paths/~1b/get/parameters/0');
  });

  it.each([
    LOCATED,
    'test/documents/swagger2-shop.yaml',
    'test/documents/swagger2-auth.yaml',
    NETLIFY,
    ...['instagram', 'petstore', 'simple-api', 'uber'].map((name) => `${ZOO}/examples/swagger/${name}.yaml`),
    ...FEATURES,
  ])('maps every pointer of the conversion of %s to a place the original has', async (file) => {
    const { original, document, locate } = await converted(file);
    const nowhere: string[] = [];
    for (const pointer of pointersOf(document)) {
      const located = locate(pointer);
      if (valueAt(original, located) === undefined) nowhere.push(`${pointer} → ${located}`);
    }
    expect(nowhere).toEqual([]);
  });

  it('leaves pointers into an OpenAPI 3.x document as they are', async () => {
    const { locate } = await readDocument('test/documents/openapi31-no-responses.yaml');
    expect(locate('#/paths/~1ping/post')).toBe('#/paths/~1ping/post');
  });
});
