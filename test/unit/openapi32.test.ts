import { describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { pathOperations } from '../../src/openapi/path-operations.js';
import { schemaDialect } from '../../src/openapi/schema-dialect.js';
import { parseQuerystring } from '../../src/validation/querystring-parameter.js';
import { encodeItems, framingOf } from '../../src/answers/stream-answer.js';
import type { ParameterSpec } from '../../src/vocabulary/operation.js';

describe('schemaDialect: one decision for every reader of schemas', () => {
  it.each([
    [{ openapi: '3.0.3' }, '3.0'],
    [{ openapi: '3.1.0' }, '2020-12'],
    [{ openapi: '3.2.0' }, '2020-12'],
    [{ openapi: '3.2.0', jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base' }, '2020-12'],
    [{ openapi: '3.2.0', jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema' }, '2020-12'],
    [{ openapi: '3.1.0', jsonSchemaDialect: 'http://json-schema.org/draft-04/schema#' }, '3.0'],
    [{ openapi: '3.1.0', jsonSchemaDialect: 'http://json-schema.org/draft-07/schema#' }, '3.0'],
    // A converted Swagger 2.0 document says 3.0.0.
    [{ openapi: '3.0.0', jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema' }, '3.0'],
    [undefined, '3.0'],
  ])('%j → %s', (document, dialect) => {
    expect(schemaDialect(document)).toBe(dialect);
  });
});

const op = (status = '204') => ({ responses: { [status]: { description: 'x' } } });

describe('pathOperations: fixed fields, QUERY and additionalOperations', () => {
  it('reads query and additionalOperations from 3.2 on, in document order after the fixed fields', () => {
    const item = { get: op(), query: op(), additionalOperations: { COPY: op(), PURGE: op() } };
    const { operations, warnings } = pathOperations(item, '#/paths/~1a', '/a', true);
    expect(operations.map((o) => [o.method, o.pointer])).toEqual([
      ['GET', '#/paths/~1a/get'],
      ['QUERY', '#/paths/~1a/query'],
      ['COPY', '#/paths/~1a/additionalOperations/COPY'],
      ['PURGE', '#/paths/~1a/additionalOperations/PURGE'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('leaves both alone in a 3.1 document, as before', () => {
    const item = { get: op(), query: op(), additionalOperations: { COPY: op() } };
    expect(pathOperations(item, '#/paths/~1a', '/a', false).operations.map((o) => o.method)).toEqual(['GET']);
  });

  it('skips an entry repeating a fixed field or naming no method, and warns of one Node refuses', () => {
    const item = { additionalOperations: { POST: op(), 'NOT A METHOD': op(), BREW: op(), copy: op() } };
    const { operations, warnings } = pathOperations(item, '#/paths/~1a', '/a', true);
    expect(operations.map((o) => o.method)).toEqual(['BREW', 'copy']);
    expect(warnings).toHaveLength(4);
    expect(warnings.filter((w) => w.includes("Node's HTTP parser refuses"))).toHaveLength(2);
  });

  it('builds QUERY and custom-method operations into the model; tags with parents change nothing', () => {
    const model = buildApiModel({
      openapi: '3.2.0',
      info: { title: 't', version: '1' },
      tags: [
        { name: 'a', kind: 'nav' },
        { name: 'b', parent: 'a' },
      ],
      paths: { '/a': { query: { tags: ['b'], ...op('200') }, additionalOperations: { LINK: op() } } },
    });
    expect(model.dialect).toBe('2020-12');
    expect(model.operations.map((o) => `${o.method} ${o.id}`)).toEqual(['QUERY QUERY /a', 'LINK LINK /a']);
  });
});

const spec = (over: Partial<ParameterSpec>): ParameterSpec => ({
  name: 'q',
  in: 'querystring',
  required: false,
  schemaPointer: undefined,
  kind: 'object',
  itemKind: 'any',
  style: 'form',
  explode: true,
  ...over,
});

describe('parseQuerystring: the whole query string as one value', () => {
  const form = spec({
    mediaType: 'application/x-www-form-urlencoded',
    propertyKinds: new Map([
      ['page', 'integer'],
      ['tag', 'array'],
    ]),
    additionalKind: 'any',
  });
  it.each([
    ['q=a+b&page=2', { ok: true, value: { q: 'a b', page: 2 } }],
    ['tag=x&tag=y', { ok: true, value: { tag: ['x', 'y'] } }],
    ['page=two', { ok: false, message: 'must be an integer', at: 'page' }],
    ['q=1&q=2', { ok: false, message: 'is given twice', at: 'q' }],
    ['q=%zz', { ok: false, message: 'has broken percent-encoding' }],
  ])('form ?%s', (raw, parsed) => {
    expect(parseQuerystring(form, raw)).toEqual(parsed);
  });

  it.each([
    ['%7B%22a%22%3A%5B1%5D%7D', { ok: true, value: { a: [1] } }],
    ['{"a":"x+y"}', { ok: true, value: { a: 'x+y' } }],
    ['%7B', { ok: false, message: 'must be application/json text' }],
  ])('JSON ?%s', (raw, parsed) => {
    expect(parseQuerystring(spec({ mediaType: 'application/json', kind: 'any' }), raw)).toEqual(parsed);
  });
});

describe('encodeItems: a sequence in its media type’s framing', () => {
  it.each([
    ['text/event-stream', 'sse'],
    ['application/jsonl', 'lines'],
    ['application/x-ndjson', 'lines'],
    ['application/json-seq', 'json-seq'],
    ['application/json', undefined],
  ])('%s is framed as %s', (type, framing) => {
    expect(framingOf(type)).toBe(framing);
  });

  it('writes SSE events: event, id and retry fields, one data line per line, other properties left out', () => {
    const text = encodeItems('sse', [{ data: 'one\ntwo', event: 'note', id: 'a1', retry: 3000, extra: true }, { data: { n: 1 } }, 'bare']);
    expect(text).toBe('event: note\nid: a1\nretry: 3000\ndata: one\ndata: two\n\ndata: {"n":1}\n\ndata: bare\n\n');
  });

  it('writes JSON Lines and RFC 7464 JSON text sequences', () => {
    expect(encodeItems('lines', [{ a: 1 }, 2])).toBe('{"a":1}\n2\n');
    expect(encodeItems('json-seq', [{ a: 1 }, 2])).toBe('\u001e{"a":1}\n\u001e2\n');
  });
});
