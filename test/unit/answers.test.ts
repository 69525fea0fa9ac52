import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch } from '../../src/dispatch/patch.js';
import { exampleWarnings } from '../../src/mock/example-check.js';
import { mockAnswer } from '../../src/mock/mock-answer.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { loadDocument } from '../../src/openapi/load-document.js';

const CONTRACT = fileURLToPath(new URL('../documents/answers-contract.yaml', import.meta.url));
const COLLECTIONS = fileURLToPath(new URL('../documents/answers-collections.yaml', import.meta.url));
const REFERENCE = new Date('2026-01-01T00:00:00Z');

describe('JSON merge patch (RFC 7396 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  ])('%j + %j = %j', (target, patch, result) => {
    const frozen = structuredClone(target);
    expect(mergePatch(target, patch)).toEqual(result);
    expect(target).toEqual(frozen);
  });
});

describe('JSON Patch (RFC 6902 appendix A)', () => {
  it.each([
    { doc: { foo: 'bar' }, ops: [{ op: 'add', path: '/baz', value: 'qux' }], result: { foo: 'bar', baz: 'qux' } },
    { doc: { foo: ['bar', 'baz'] }, ops: [{ op: 'add', path: '/foo/1', value: 'qux' }], result: { foo: ['bar', 'qux', 'baz'] } },
    { doc: { baz: 'qux', foo: 'bar' }, ops: [{ op: 'remove', path: '/baz' }], result: { foo: 'bar' } },
    { doc: { baz: 'qux' }, ops: [{ op: 'replace', path: '/baz', value: 'boo' }], result: { baz: 'boo' } },
    {
      doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      ops: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      result: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    },
    { doc: { foo: ['bar'] }, ops: [{ op: 'add', path: '/foo/-', value: ['abc'] }], result: { foo: ['bar', ['abc']] } },
    { doc: { 'a/b': 1 }, ops: [{ op: 'copy', from: '/a~1b', path: '/c' }], result: { 'a/b': 1, c: 1 } },
  ])('$ops.0.op', ({ doc, ops, result }) => {
    expect(jsonPatch(doc, ops)).toEqual({ ok: true, value: result });
  });

  it.each([
    { ops: [{ op: 'test', path: '/baz', value: 'bar' }], at: 0 },
    { ops: [{ op: 'add', path: '/baz/bat', value: 'qux' }], at: 0 },
    {
      ops: [
        { op: 'replace', path: '/foo', value: 1 },
        { op: 'remove', path: '/nothing' },
      ],
      at: 1,
    },
    { ops: [{ op: 'frobnicate', path: '/foo' }], at: 0 },
  ])('refuses the whole patch at operation $at', ({ ops, at }) => {
    const doc = { foo: 'bar' };
    expect(jsonPatch(doc, ops)).toMatchObject({ ok: false, at });
    expect(doc).toEqual({ foo: 'bar' });
  });
});

describe('examples', () => {
  it('reports an example that breaks its schema with its JSON pointer', async () => {
    const model = buildApiModel(await loadDocument(CONTRACT));
    expect(exampleWarnings(model)).toEqual([
      expect.stringMatching(
        /^#\/paths\/~1broken-example\/get\/responses\/200\/content\/application~1json\/example: the example breaks its schema \(example\.count must be integer\)/,
      ),
    ]);
    expect(exampleWarnings(buildApiModel(await loadDocument(COLLECTIONS)))).toEqual([]);
  });

  it('serves an invalid example only when asked to (negative tests)', async () => {
    const model = buildApiModel(await loadDocument(CONTRACT));
    const op = model.operations.find((o) => o.id === 'brokenExample');
    if (!op) throw new Error('no brokenExample');
    expect(mockAnswer(model.document, op, 1, REFERENCE).body).toEqual({ count: expect.any(Number) });
    expect(mockAnswer(model.document, op, 1, REFERENCE, { serveInvalidExamples: true }).body).toEqual({ count: 'many' });
  });
});

describe('bindings by convention', () => {
  it.each([
    ['listNotes', 'list', 'notes', 'id'],
    ['createNote', 'create', 'notes', 'id'],
    ['patchNote', 'patch', 'notes', 'id'],
    ['listOrders', 'list', 'users/orders', 'orderId'],
    ['getOrder', 'read', 'users/orders', 'orderId'],
  ])('%s: %s on %s, id property %s', async (id, action, resource, idProperty) => {
    const model = buildApiModel(await loadDocument(COLLECTIONS));
    expect(model.operations.find((o) => o.id === id)?.binding).toMatchObject({ action, resource, idProperty, origin: 'convention' });
  });

  it.each(['listTags', 'addTag', 'search'])('%s is answered from the document', async (id) => {
    const model = buildApiModel(await loadDocument(CONTRACT));
    expect(model.operations.find((o) => o.id === id)?.binding.action).toBe('mock');
  });

  it.each([
    ['createJob', 'create'],
    ['getJob', 'read'],
  ])('%s (UUID ids) is bound by convention: %s', async (id, action) => {
    const model = buildApiModel(await loadDocument(CONTRACT));
    const binding = model.operations.find((o) => o.id === id)?.binding;
    expect(binding).toMatchObject({ action, resource: 'jobs', idProperty: 'jobId', idKind: { kind: 'uuid', clientNamed: false } });
  });
});
