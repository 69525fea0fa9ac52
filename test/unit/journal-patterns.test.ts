import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/journal/entry.js';
import { compilePattern, jsonEqual, pointerValue, type CompiledPattern, type RequestPattern } from '../../src/journal/patterns.js';

const entry = (more: Partial<JournalEntry> & { body?: string; truncated?: boolean } = {}): JournalEntry => {
  const { body, truncated = false, ...rest } = more;
  return {
    id: 'r1',
    time: 0,
    wallTime: 0,
    method: 'POST',
    path: '/v1/pets',
    query: 'tag=good%20boy&tag=fluffy&limit=2',
    operationId: 'createPet',
    keyId: 'key_pro',
    workspace: 'default',
    status: 201,
    durationMs: 1,
    request: {
      headers: { authorization: 'Bearer [redacted]', 'x-trace-id': '0123456789abcdef', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: { mimeType: 'application/json', size: body.length, text: body, truncated } }),
    },
    response: { headers: {} },
    ...rest,
  };
};

const compiled = (pattern: RequestPattern): CompiledPattern => {
  const result = compilePattern(pattern);
  if (!result.ok) throw new Error(JSON.stringify(result.violations));
  return result.pattern;
};

const REX = '{"name":"Rex","categoryId":1,"tags":["a","b"],"owner":{"id":7,"a/b":true}}';

// One row per pattern: whether it matches the entry above (with REX as its body).
// prettier-ignore
const rows: readonly (readonly [string, RequestPattern, boolean])[] = [
  ['the empty pattern', {}, true],
  ['the method, in any case', { method: 'post' }, true],
  ['another method', { method: 'GET' }, false],
  ['the exact path', { path: '/v1/pets' }, true],
  ['a path with a trailing slash', { path: '/v1/pets/' }, false],
  ['a path pattern over the whole path', { pathPattern: '/v1/pe.s' }, true],
  ['a path pattern over a part only', { pathPattern: 'pets' }, false],
  ['the operation', { operationId: 'createPet' }, true],
  ['the key id', { key: 'key_pro' }, true],
  ['another key id', { key: 'key_free' }, false],
  ['the status', { status: 201 }, true],
  ['a query value equal to a decoded value', { query: { tag: { equalTo: 'good boy' } } }, true],
  ['a query value equal to another of its values', { query: { tag: { equalTo: 'fluffy' } } }, true],
  ['a query value containing', { query: { limit: { contains: '2' } } }, true],
  ['a query value matching the whole value', { query: { limit: { matches: '\\d' } } }, true],
  ['a query parameter that is absent', { query: { page: { matches: '.*' } } }, false],
  ['a header, named in any case', { headers: { 'X-Trace-Id': { matches: '[0-9a-f]{16}' } } }, true],
  ['a header as journaled (redacted)', { headers: { authorization: { equalTo: 'Bearer [redacted]' } } }, true],
  ['a header that is absent', { headers: { 'x-other': { contains: '' } } }, false],
  ['the whole body as JSON, members in any order', { body: { equalToJson: { categoryId: 1, name: 'Rex', tags: ['a', 'b'], owner: { 'a/b': true, id: 7 } } } }, true],
  ['the whole body with an array out of order', { body: { equalToJson: { categoryId: 1, name: 'Rex', tags: ['b', 'a'], owner: { id: 7, 'a/b': true } } } }, false],
  ['a value at a pointer', { body: { pointer: '/name', equalTo: 'Rex' } }, true],
  ['an array item at a pointer', { body: { pointer: '/tags/1', equalTo: 'b' } }, true],
  ['an escaped pointer (RFC 6901 ~1)', { body: { pointer: '/owner/a~1b', equalTo: true } }, true],
  ['an object at a pointer', { body: { pointer: '/owner', equalTo: { id: 7, 'a/b': true } } }, true],
  ['a pointer to nothing', { body: { pointer: '/nope', equalTo: null } }, false],
  ['several body matchers, all holding', { body: [{ pointer: '/name', equalTo: 'Rex' }, { pointer: '/categoryId', equalTo: 1 }] }, true],
  ['several body matchers, one failing', { body: [{ pointer: '/name', equalTo: 'Rex' }, { pointer: '/categoryId', equalTo: 2 }] }, false],
  ['everything at once', { method: 'POST', path: '/v1/pets', operationId: 'createPet', key: 'key_pro', status: 201, query: { limit: { equalTo: '2' } }, body: { pointer: '/name', equalTo: 'Rex' } }, true],
];

describe('request patterns', () => {
  it.each(rows)('%s → %s', (_, pattern, expected) => {
    expect(compiled(pattern).matches(entry({ body: REX }))).toBe(expected);
  });

  it('never match a body that is absent, cut or not JSON', () => {
    const pattern = compiled({ body: { pointer: '', equalTo: 'x' } });
    expect(pattern.matches(entry())).toBe(false);
    expect(pattern.matches(entry({ body: '"x"', truncated: true }))).toBe(false);
    expect(pattern.matches(entry({ body: 'x' }))).toBe(false);
    expect(pattern.matches(entry({ body: '"x"' }))).toBe(true);
  });

  it('say where an entry differs, with what was expected and what it has', () => {
    const pattern = compiled({
      method: 'GET',
      path: '/v1/pets',
      key: 'key_free',
      query: { limit: { equalTo: '5' }, page: { equalTo: '1' } },
      headers: { 'X-Trace-Id': { contains: 'zz' } },
      body: { pointer: '/name', equalTo: 'Max' },
    });
    expect(pattern.differences(entry({ body: REX }))).toEqual([
      { field: 'method', expected: 'GET', actual: 'POST' },
      { field: 'key', expected: 'key_free', actual: 'key_pro' },
      { field: 'query.limit', expected: { equalTo: '5' }, actual: '2' },
      { field: 'query.page', expected: { equalTo: '1' } },
      { field: 'headers.x-trace-id', expected: { contains: 'zz' }, actual: '0123456789abcdef' },
      { field: 'body/name', expected: 'Max', actual: 'Rex' },
    ]);
    expect(compiled({ key: 'key_pro' }).differences(entry({ keyId: undefined }))).toEqual([{ field: 'key', expected: 'key_pro' }]);
  });

  it('refuse regular expressions that do not compile and pointers without a leading slash, naming where', () => {
    const result = compilePattern(
      { pathPattern: '(', query: { a: { matches: '[' } }, headers: { B: { matches: '*' } }, body: [{ pointer: 'x', equalTo: 1 }] },
      'body.pattern',
    );
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.violations.map((v) => v.location)).toEqual([
      'body.pattern.pathPattern',
      'body.pattern.query.a.matches',
      'body.pattern.headers.B.matches',
      'body.pattern.body.0.pointer',
    ]);
  });
});

describe('JSON helpers', () => {
  it('read JSON pointers as RFC 6901 says', () => {
    const doc = { a: [{ 'm~n': 1 }], '': 2 };
    expect(pointerValue(doc, '')).toBe(doc);
    expect(pointerValue(doc, '/a/0/m~0n')).toBe(1);
    expect(pointerValue(doc, '/')).toBe(2);
    expect(pointerValue(doc, '/a/01')).toBeUndefined();
    expect(pointerValue(doc, '/a/-')).toBeUndefined();
  });

  it('compare JSON values by content', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });
});
