import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { loadDocument } from '../../src/openapi/load-document.js';
import { ResponseCheck } from '../../src/validation/response-check.js';
import { SchemaCompiler } from '../../src/validation/schema-compiler.js';

/** The check every HTTP test relies on must itself catch a broken answer. */
describe('ResponseCheck on the Pet Store document', async () => {
  const model = buildApiModel(await loadDocument(DEFAULT_CONFIG.spec));
  const compiler = new SchemaCompiler(model.document, model.dialect);
  const check = (id: string) =>
    new ResponseCheck(
      model.operations.find((o) => o.id === id)!,
      compiler,
    );
  const limits = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1795345020' };

  it('passes a good answer', () => {
    expect(
      check('getPet').check({
        status: 200,
        headers: { ...limits, deprecation: '@1', sunset: 'x' },
        body: { id: 1, name: 'Rex', categoryId: 1 },
      }),
    ).toEqual([]);
  });

  it('names a body that breaks the schema', () => {
    expect(check('getPet').check({ status: 200, headers: limits, body: { id: 'one', name: 'Rex' } })).toEqual([
      { location: 'body.categoryId', message: 'is required' },
      { location: 'body.id', message: 'must be integer' },
    ]);
  });

  it('names a header that breaks its schema, and holds other statuses to `default`', () => {
    expect(check('listPets').check({ status: 200, headers: { ...limits, 'x-ratelimit-remaining': '-1' }, body: [] })).toEqual([
      { location: 'header.x-ratelimit-remaining', message: 'must be >= 0' },
    ]);
    expect(
      check('createPet')
        .check({ status: 202, headers: {}, body: {} })
        .map((v) => v.location),
    ).toEqual([
      'header.x-ratelimit-limit',
      'header.x-ratelimit-remaining',
      'header.x-ratelimit-reset',
      'body.code',
      'body.message',
      'body.status',
    ]);
  });

  it('holds errors to the Error schema', () => {
    expect(check('listPets').check({ status: 401, headers: limits, body: { code: 'x', status: 401 } })).toEqual([
      { location: 'body.message', message: 'is required' },
    ]);
  });
});
