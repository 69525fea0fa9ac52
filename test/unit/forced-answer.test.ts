import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { forcedAnswer, type Force, type ForcedAnswer } from '../../src/mock/forced-answer.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { loadDocument } from '../../src/openapi/load-document.js';
import { preferenceApplied } from '../../src/pipeline/preferences.js';
import type { ApiModel, OperationSpec, ResponseSpec } from '../../src/vocabulary/operation.js';

const PETSTORE = fileURLToPath(new URL('../../openapi/petstore.yaml', import.meta.url));
const FORCED = fileURLToPath(new URL('../documents/forced-answers.yaml', import.meta.url));
const REFERENCE = new Date('2026-01-01T00:00:00Z');
const DOCUMENT_ID = 'urn:test:document';

let petstore: ApiModel;
let forced: ApiModel;
const checkers = new Map<ApiModel, Ajv2020>();

beforeAll(async () => {
  petstore = buildApiModel(await loadDocument(PETSTORE));
  forced = buildApiModel(await loadDocument(FORCED));
  for (const model of [petstore, forced]) {
    // The test's own Ajv, not the sandbox's compiler: an independent judge of "valid against its schema".
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats.default(ajv);
    ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    ajv.addSchema(model.document as object, DOCUMENT_ID);
    checkers.set(model, ajv);
  }
});

const operation = (model: ApiModel, id: string): OperationSpec => {
  const op = model.operations.find((o) => o.id === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};

const force = (model: ApiModel, id: string, wanted: Force, accept?: string, serveInvalidExamples = false): ForcedAnswer =>
  forcedAnswer(model.document, operation(model, id), wanted, { seed: 1, referenceDate: REFERENCE, accept, serveInvalidExamples });

/** The response a status is declared by, found here independently of the code under test. */
function declared(op: OperationSpec, status: number): ResponseSpec | undefined {
  return (
    op.responses.find((r) => r.status === String(status)) ??
    op.responses.find((r) => r.status === `${String(status)[0]}XX`) ??
    op.responses.find((r) => r.status === 'DEFAULT')
  );
}

/** Asserts the answer's body and generated headers satisfy the schemas the document declares for them. */
function expectValid(model: ApiModel, op: OperationSpec, answer: ForcedAnswer): void {
  if (answer.kind !== 'answer') throw new Error(`unsatisfiable: ${answer.error.message}`);
  const { response } = answer;
  const spec = declared(op, response.status);
  expect(spec, `a declared response for ${response.status}`).toBeDefined();
  const ajv = checkers.get(model) as Ajv2020;
  const check = (pointer: string | undefined, value: unknown, what: string): void => {
    if (pointer === undefined) return;
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    expect(validate(value), `${what}: ${JSON.stringify(validate.errors)}`).toBe(true);
  };
  if (response.body !== undefined) {
    const type = (response.headers['content-type'] ?? 'application/json').split(';')[0];
    const media = spec?.content.find((m) => m.mediaType === type);
    expect(media, `a declared ${type}`).toBeDefined();
    check(media?.schemaPointer, response.body, `${op.id} ${response.status} body`);
  }
  for (const header of spec?.headers ?? []) {
    const value = response.headers[header.name];
    if (value === undefined) continue;
    const parsed = header.kind === 'integer' || header.kind === 'number' ? Number(value) : value;
    check(header.schemaPointer, parsed, `${op.id} ${response.status} header ${header.name}`);
  }
}

const body = (answer: ForcedAnswer): unknown => (answer.kind === 'answer' ? answer.response.body : answer.error);
const status = (answer: ForcedAnswer): number => (answer.kind === 'answer' ? answer.response.status : answer.error.status);
const applied = (answer: ForcedAnswer): string | undefined => (answer.kind === 'answer' ? preferenceApplied(answer.applied) : 'n/a');

const CAT = { id: 1, name: 'Tom', kind: 'cat' };
const DOG = { id: 2, name: 'Rex', kind: 'dog' };
const MISSING = { code: 'not_found', message: 'No animal 9' };
const GENERATED = 'generated';
/** A status answered from a range or `default`: its own error, not the example written there (default's `oops`). */
const OWN_500 = { code: 'forced_status', message: 'Internal Server Error', status: 500 };

// prettier-ignore
const SCENARIOS: readonly [string, Force, string | undefined, number, unknown, string | undefined][] = [
  // operation,     forced,                                   accept,      status, body,                         Preference-Applied
  ['getAnimal',    {},                                        undefined,   200,    CAT,                          undefined],
  ['getAnimal',    { example: 'dog' },                        undefined,   200,    DOG,                          'example=dog'],
  ['getAnimal',    { code: 200, example: 'dog' },             undefined,   200,    DOG,                          'code=200, example=dog'],
  ['getAnimal',    { example: 'dog', dynamic: true },         undefined,   200,    DOG,                          'example=dog'],
  ['getAnimal',    { example: 'broken' },                     undefined,   200,    GENERATED,                    undefined],
  ['getAnimal',    { dynamic: true },                         undefined,   200,    GENERATED,                    'dynamic=true'],
  ['getAnimal',    { dynamic: false },                        undefined,   200,    CAT,                          'dynamic=false'],
  ['getAnimal',    { dynamic: true, seed: 5 },                undefined,   200,    GENERATED,                    'dynamic=true, seed=5'],
  ['getAnimal',    { code: 404 },                             undefined,   404,    MISSING,                      'code=404'],
  ['getAnimal',    { code: 404, example: 'missing' },         undefined,   404,    MISSING,                      'code=404, example=missing'],
  ['getAnimal',    { code: 404, dynamic: true },              undefined,   404,    GENERATED,                    'code=404, dynamic=true'],
  ['getAnimal',    { code: 418 },                             undefined,   418,    GENERATED,                    'code=418'],
  ['getAnimal',    { code: 500 },                             undefined,   500,    OWN_500,                      'code=500'],
  ['getAnimal',    { code: 503, dynamic: true },              undefined,   503,    { ...OWN_500, message: 'Service Unavailable', status: 503 }, 'code=503'],
  ['getAnimal',    { code: 302 },                             undefined,   302,    { code: 'oops', message: 'Something broke' }, 'code=302'],
  ['getAnimal',    { code: 200 },                             'application/xml', 200, CAT,                         'code=200'],
  ['deleteAnimal', {},                                        undefined,   204,    undefined,                    undefined],
  ['deleteAnimal', { code: 204 },                             undefined,   204,    undefined,                    'code=204'],
  ['deleteAnimal', { code: 204, dynamic: true, seed: 1 },     undefined,   204,    undefined,                    'code=204'],
  ['deleteAnimal', { code: 409 },                             undefined,   409,    GENERATED,                    'code=409'],
  ['createAnimal', { code: 201 },                             undefined,   201,    GENERATED,                    'code=201'],
  ['createAnimal', { code: 303 },                             undefined,   303,    undefined,                    'code=303'],
  ['getNote',      {},                                        undefined,   200,    'hello',                      undefined],
  ['getNote',      { example: 'short' },                      'text/csv',  200,    'hello',                      'example=short'],
  ['getNote',      { example: 'table' },                      undefined,   200,    'a,b\n1,2\n',                 'example=table'],
  ['getNote',      { dynamic: true },                         'text/csv',  200,    GENERATED,                    'dynamic=true'],
];

describe('forcedAnswer on a document with named examples, a range, default and a 204', () => {
  it.each(SCENARIOS)('%s %j (Accept %s) → %i', (id, wanted, accept, expectedStatus, expectedBody, expectedApplied) => {
    const answer = force(forced, id, wanted, accept);
    expect(status(answer)).toBe(expectedStatus);
    if (expectedBody === GENERATED) expect(body(answer)).toBeDefined();
    else expect(body(answer)).toEqual(expectedBody);
    expect(applied(answer)).toBe(expectedApplied);
    expectValid(forced, operation(forced, id), answer);
  });

  it('serves a generated body in place of an invalid example, unless told to serve it', () => {
    const generated = force(forced, 'getAnimal', { example: 'broken' });
    expect(body(generated)).not.toEqual({ id: 'many', name: 7, kind: 'cat' });
    const served = force(forced, 'getAnimal', { example: 'broken' }, undefined, true);
    expect(body(served)).toEqual({ id: 'many', name: 7, kind: 'cat' });
    expect(applied(served)).toBe('example=broken');
  });

  it('generates required headers from their schemas, never the pipeline’s own', () => {
    const teapot = force(forced, 'getAnimal', { code: 418 });
    expect(teapot.kind === 'answer' && teapot.response.headers['x-trace']).toMatch(/^[a-f0-9]{8}$/);
    const created = force(forced, 'createAnimal', { code: 201 });
    expect(created.kind === 'answer' && created.response.headers).toMatchObject({ location: expect.any(String) });
    expect(created.kind === 'answer' && created.response.headers['x-ratelimit-limit']).toBeUndefined();
    const moved = force(forced, 'createAnimal', { code: 303 });
    expect(moved.kind === 'answer' && moved.response.headers.location).toEqual(expect.any(String));
  });

  it('answers text in the type that holds the example, or that Accept prefers when no JSON is declared', () => {
    const table = force(forced, 'getNote', { example: 'table' });
    expect(table.kind === 'answer' && table.response.headers['content-type']).toBe('text/csv');
    const csv = force(forced, 'getNote', {}, 'text/csv');
    expect(csv.kind === 'answer' && csv.response.headers['content-type']).toBe('text/csv');
    expect(body(csv)).toMatch(/^a,b/);
  });

  it('generates the same body for the same seed', () => {
    const once = body(force(forced, 'getAnimal', { dynamic: true, seed: 7 }));
    expect(body(force(forced, 'getAnimal', { dynamic: true, seed: 7 }))).toEqual(once);
    const others = [8, 9, 10, 11].map((seed) => JSON.stringify(body(force(forced, 'getAnimal', { dynamic: true, seed }))));
    expect(others.some((other) => other !== JSON.stringify(once))).toBe(true);
  });
});

// prettier-ignore
const UNSATISFIABLE: readonly [string, string, Force, RegExp][] = [
  ['an undeclared status with no range or default', 'deleteAnimal', { code: 500 },                 /No 500 response .*deleteAnimal declares 204, 409/],
  ['an undeclared example',                         'getAnimal',    { example: 'nope' },           /200 response of getAnimal has no example named "nope"/],
  ['an example of another status',                  'getAnimal',    { example: 'missing' },        /no example named "missing"/],
  ['an example of the wrong forced status',         'getAnimal',    { code: 404, example: 'dog' }, /404 response of getAnimal has no example named "dog"/],
  ['an example with only an externalValue',         'getAnimal',    { example: 'remote' },         /no example named "remote"/],
  ['a range with no named examples',                'getAnimal',    { code: 418, example: 'x' },   /4XX response of getAnimal/],
  ['an informational status',                       'getAnimal',    { code: 100 },                 /100 is informational/],
];

describe('forcedAnswer: what the operation does not declare', () => {
  it.each(UNSATISFIABLE)('%s: 422 preference_unsatisfiable', (_name, id, wanted, message) => {
    const answer = force(forced, id, wanted);
    expect(answer.kind).toBe('unsatisfiable');
    if (answer.kind !== 'unsatisfiable') return;
    expect(answer.error).toMatchObject({ code: 'preference_unsatisfiable', status: 422 });
    expect(answer.error.message).toMatch(message);
  });

  it('lists every declared status with its example names', () => {
    const answer = force(forced, 'getAnimal', { example: 'nope' });
    if (answer.kind !== 'unsatisfiable') throw new Error('expected unsatisfiable');
    expect(answer.declared).toEqual([
      { status: '200', examples: ['cat', 'dog', 'broken', 'remote'] },
      { status: '404', examples: ['missing'] },
      { status: '4XX', examples: [] },
      { status: 'default', examples: [] },
    ]);
    expect(answer.error.details).toEqual([
      { location: 'responses.200', message: 'declared, examples: cat, dog, broken, remote' },
      { location: 'responses.404', message: 'declared, examples: missing' },
      { location: 'responses.4XX', message: 'declared, with no named examples' },
      { location: 'responses.default', message: 'declared, with no named examples' },
    ]);
  });
});

describe('forcedAnswer on the Pet Store', () => {
  // prettier-ignore
  const PETS: readonly [string, Force, number, unknown, string | undefined][] = [
    ['getPet',    { code: 404 },                      404, { code: 'resource_not_found', message: 'No pets with id 999', status: 404 }, 'code=404'],
    ['getPet',    { code: 401, example: 'missing' },  401, expect.objectContaining({ code: 'missing_credentials' }),                   'code=401, example=missing'],
    ['getPet',    { example: 'pet' },                 200, { id: 1, name: 'Rex', categoryId: 1, status: 'available' },                'example=pet'],
    ['listPets',  { code: 429 },                      429, expect.objectContaining({ code: 'rate_limited' }),                         'code=429'],
    ['listPets',  { code: 503 },                      503, { code: 'forced_status', message: 'Service Unavailable', status: 503 },    'code=503'],
    ['listPets',  { code: 503, example: 'error' },    503, expect.objectContaining({ code: 'method_not_allowed', status: 503 }),      'code=503, example=error'],
    ['createPet', {},                                 201, { id: 101, name: 'Rex', categoryId: 1, status: 'available' },              undefined],
    ['createPet', { code: 201, dynamic: true },       201, expect.objectContaining({ id: expect.any(Number) }),                       'code=201, dynamic=true'],
  ];

  it.each(PETS)('%s %j → %i', (id, wanted, expectedStatus, expectedBody, expectedApplied) => {
    const answer = force(petstore, id, wanted);
    expect(status(answer)).toBe(expectedStatus);
    expect(body(answer)).toEqual(expectedBody);
    expect(applied(answer)).toBe(expectedApplied);
    expectValid(petstore, operation(petstore, id), answer);
  });

  it('answers every declared status of every operation with a valid body, from examples and generated', () => {
    for (const op of petstore.operations) {
      for (const response of op.responses) {
        const code = response.status === 'DEFAULT' ? 500 : Number(response.status.replace('XX', '50'));
        for (const dynamic of [false, true]) expectValid(petstore, op, force(petstore, op.id, { code, dynamic, seed: 3 }));
      }
    }
  });

  it('says which example names exist when one is misspelt', () => {
    const answer = force(petstore, 'getPet', { code: 404, example: 'notfound' });
    expect(answer.kind === 'unsatisfiable' && answer.error.details).toContainEqual({
      location: 'responses.404',
      message: 'declared, examples: notFound',
    });
  });
});
