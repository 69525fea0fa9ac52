import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load-config.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/error-meanings.yaml', import.meta.url).pathname;
const invalid = expect.stringContaining('query.n');

/**
 * A refusal in each of the error schemas real APIs declare, filled by what each field means: the
 * status-like fields carry the HTTP status, the sentence goes where a sentence goes, the violations
 * where violations go, and what means nothing is generated to the schema (checkResponses is on:
 * every body below also validates against the document).
 */
const ROWS: readonly { name: string; path: string; body: unknown; type?: RegExp }[] = [
  {
    name: 'petstore-expanded: an integer code is the status; the violations beside it, the schema being open',
    path: '/expanded',
    body: { code: 400, message: invalid, details: [{ location: 'query.n', message: 'must be an integer' }] },
  },
  {
    name: 'RFC 9457 problem+json: type, title, status, detail, instance, and the code and violations as extensions',
    path: '/problem',
    type: /^application\/problem\+json/,
    body: {
      type: 'tag:understudy.dev,2026:problem:validation_failed',
      title: 'Request invalid',
      status: 400,
      detail: invalid,
      instance: '/e/problem',
      code: 'validation_failed',
      violations: [{ location: 'query.n', message: 'must be an integer' }],
    },
  },
  {
    name: 'Google: a nested error, its status word the enum member closest to the code',
    path: '/google',
    body: { error: { code: 400, message: invalid, status: 'INVALID_ARGUMENT' } },
  },
  {
    name: 'FastAPI (through 4XX): detail as violations, loc as a path',
    path: '/fastapi',
    body: {
      detail: [{ loc: ['query', 'n'], msg: 'must be an integer', type: 'validation_failed' }],
      code: 'validation_failed',
      message: invalid,
      status: 400,
    },
  },
  {
    name: 'OAuth 2: error is the code beside error_description',
    path: '/oauth',
    body: { error: 'validation_failed', error_description: invalid },
  },
  {
    name: 'NestJS: statusCode, message, error; the code and violations beside them',
    path: '/nest',
    body: {
      statusCode: 400,
      message: invalid,
      error: 'validation_failed',
      code: 'validation_failed',
      details: [{ location: 'query.n', message: 'must be an integer' }],
    },
  },
  {
    name: 'JSON:API: errors with a string status',
    path: '/jsonapi',
    type: /^application\/vnd\.api\+json/,
    body: {
      errors: [{ status: '400', code: 'validation_failed', title: 'must be an integer', detail: 'must be an integer' }],
      code: 'validation_failed',
      message: invalid,
      status: 400,
    },
  },
  {
    name: 'Stripe: a nested error, its type the closest enum member',
    path: '/stripe',
    body: { error: { type: 'invalid_request_error', code: 'validation_failed', message: invalid } },
  },
  {
    name: 'closed, with an integer error_code and a required field generated to its pattern',
    path: '/closed',
    body: { error_code: 400, description: invalid, request_ref: expect.stringMatching(/^req_[a-z0-9]{8}$/) },
  },
];

describe('error schemas from real documents, filled by meaning', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null, keys: [] });
  });

  it.each(ROWS)('$name', async (row) => {
    const res = await request(EDGES[0]!.make(sandbox)).get(`/e${row.path}?n=many`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(row.type ?? /^application\/json/);
    expect(JSON.parse(res.text)).toEqual(row.body);
  });

  it("answers problem+json that RFC 9457's members validate", async () => {
    // RFC 9457 §3.1: the members' types (type and instance URI references, status an HTTP status).
    const members = {
      type: 'object',
      properties: {
        type: { type: 'string', format: 'uri-reference' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 100, maximum: 599 },
        detail: { type: 'string' },
        instance: { type: 'string', format: 'uri-reference' },
      },
      required: ['type', 'title', 'status', 'detail', 'instance'],
    };
    const ajv = new Ajv({ strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(members);
    const res = await request(EDGES[0]!.make(sandbox)).get('/e/problem?n=many');
    expect(validate(JSON.parse(res.text))).toBe(true);
    expect(JSON.parse(res.text).status).toBe(res.status);
  });

  it('answers a valid request to an operation that declares only an error with that error, saying why', async () => {
    const res = await request(EDGES[0]!.make(sandbox)).post('/e/pet').send({});
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      code: 405,
      message: 'POST /pet declares no success response (only 405), so a valid request is answered 405',
    });
  });

  it('says why in X-Sandbox-Error where that error declares no content', async () => {
    const res = await request(EDGES[0]!.make(sandbox)).put('/e/pet').send({});
    expect(res.status).toBe(400);
    expect(res.text).toBe('');
    expect(res.headers['x-sandbox-error']).toBe(
      'no_success_declared: PUT /pet declares no success response (only 400, 404), so a valid request is answered 400',
    );
  });

  it('warns at start about each operation that declares no success, and each answer schema no value satisfies', async () => {
    const warnings: string[] = [];
    const config = checkConfig({ ...DEFAULT_CONFIG, spec: SPEC, fixtures: null, log: { level: 'silent', format: 'json' } });
    await createSandbox(config, { onProgress: (e) => e.phase === 'warning' && warnings.push(e.message) });
    expect(warnings.sort()).toEqual([
      '#/paths/~1pet/post/responses: POST /pet declares no success response (only 405), so a valid request is answered 405',
      '#/paths/~1pet/put/responses: PUT /pet declares no success response (only 400, 404), so a valid request is answered 400',
      '#/paths/~1stamps/get/responses/200/content/application~1json/schema: admits no value (minLength 10 is more than maxLength 5)',
    ]);
  });
});
