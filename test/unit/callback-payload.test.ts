import { describe, expect, it } from 'vitest';
import { fakeFromSchema } from '../../src/mock/schema-faker.js';
import { seededFaker } from '../../src/mock/seeded-faker.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { callbacksOf } from '../../src/openapi/callbacks.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { satisfies } from '../../src/schemas/document-schemas.js';
import { fillCallbackPayload, type GenerateCallbackBody } from '../../src/webhooks/callback-payload.js';

/** A created order, as the store keeps it, the answer shows it and the request asked for it. */
const RECORD = { id: 'ord_1', item: 'lamp', status: 'placed', quantity: 2, created_at: '2026-01-05T10:00:00Z', tags: ['red', 'new'] };
const RESPONSE = { ...RECORD, total: 19.5, links: { self: '/orders/ord_1' } };
const REQUEST = { item: 'lamp', quantity: 2, callbackUrl: 'http://127.0.0.1:4000/hooks', note: 'ring twice' };
const SOURCES = { record: RECORD, response: RESPONSE, request: REQUEST };

describe('fillCallbackPayload: the generated body, filled by name', () => {
  it('takes each top-level property from the record, then the answer, then the request', () => {
    const generated = { id: 'x9', status: 'q', total: 3.25, note: 'lorem', callbackUrl: 'http://gen.test', unknown: 'kept' };
    const { payload, filled } = fillCallbackPayload(generated, SOURCES);
    expect(payload).toEqual({
      id: 'ord_1',
      status: 'placed',
      total: 19.5,
      note: 'ring twice',
      callbackUrl: 'http://127.0.0.1:4000/hooks',
      unknown: 'kept',
    });
    expect(filled).toEqual([
      { path: 'id', from: 'record', as: 'id' },
      { path: 'status', from: 'record', as: 'status' },
      { path: 'total', from: 'response', as: 'total' },
      { path: 'note', from: 'request', as: 'note' },
      { path: 'callbackUrl', from: 'request', as: 'callbackUrl' },
    ]);
    expect(generated).toEqual({ id: 'x9', status: 'q', total: 3.25, note: 'lorem', callbackUrl: 'http://gen.test', unknown: 'kept' });
  });

  it('matches the same name first, then the same but for case, then for snake_case and camelCase', () => {
    // Among names equally near, the source's first wins.
    const record = { ORDERID: 'caseless', orderId: 'exact', order_id: 'snake', Created_At: 'x' };
    const { payload, filled } = fillCallbackPayload({ orderId: 'g', orderid: 'g', createdAt: 'g', Order_Id: 'g' }, { record });
    expect(payload).toEqual({ orderId: 'exact', orderid: 'caseless', createdAt: 'x', Order_Id: 'snake' });
    expect(filled.map((f) => f.as)).toEqual(['orderId', 'ORDERID', 'Created_At', 'order_id']);
    expect(fillCallbackPayload({ createdAt: 'g' }, SOURCES).payload).toEqual({ createdAt: '2026-01-05T10:00:00Z' });
  });

  it('takes a value only of the generated one’s JSON type, trying the next source otherwise', () => {
    const { payload } = fillCallbackPayload(
      { quantity: 7, status: true, item: 5, ratio: 0.5, price: 4 },
      { record: { quantity: '2', status: 'placed', item: 'lamp', ratio: 2, price: 4.5 }, request: { quantity: 3, item: 8 } },
    );
    // An integer stands where a number was generated; a fraction never where an integer was.
    expect(payload).toEqual({ quantity: 3, status: true, item: 8, ratio: 2, price: 4 });
    expect(fillCallbackPayload({ gone: null, here: null }, { record: { gone: 'x', here: null } }).filled).toEqual([
      { path: 'here', from: 'record', as: 'here' },
    ]);
  });

  it('takes an array of scalars whose items are of the generated items’ types, and leaves arrays of objects', () => {
    const generated = { tags: ['a'], sizes: [1], lines: [{ sku: 'g' }], empty: [] as unknown[] };
    const record = { tags: ['red', 'new'], sizes: ['s'], lines: [{ sku: 'lamp' }], empty: ['x'] };
    expect(fillCallbackPayload(generated, { record }).payload).toEqual({
      tags: ['red', 'new'],
      sizes: [1],
      lines: [{ sku: 'g' }],
      empty: [],
    });
  });

  it('fills one level down, from the same-named objects first, then the sources themselves', () => {
    const generated = { event: 'e', data: { id: 'g', status: 'g', self: 'g', deep: { id: 'g' }, list: ['g'] }, links: { self: 'g' } };
    const { payload, filled } = fillCallbackPayload(generated, SOURCES);
    expect(payload).toEqual({
      event: 'e',
      data: { id: 'ord_1', status: 'placed', self: 'g', deep: { id: 'g' }, list: ['g'] },
      links: { self: '/orders/ord_1' },
    });
    expect(filled).toEqual([
      { path: 'data.id', from: 'record', as: 'id' },
      { path: 'data.status', from: 'record', as: 'status' },
      { path: 'links.self', from: 'response', as: 'links.self' },
    ]);
  });

  it('keeps a value only when the payload still fits the callback’s schema, trying the next otherwise', () => {
    // The callback's schema allows `shipped` only, and an id of the form `ord_…`.
    const fits = (payload: unknown): boolean => {
      const { status, id } = payload as { status: string; id: string };
      return ['shipped', 'g'].includes(status) && id.startsWith('ord_');
    };
    const { payload, filled } = fillCallbackPayload(
      { id: 'ord_g', status: 'g' },
      { record: { id: 'not-an-order', status: 'placed' }, response: { id: 'ord_7', status: 'shipped' } },
      { fits },
    );
    expect(payload).toEqual({ id: 'ord_7', status: 'shipped' });
    expect(filled.map((f) => f.from)).toEqual(['response', 'response']);
  });

  it('leaves a body that is not an object, and passes over sources that are not objects', () => {
    expect(fillCallbackPayload(['a'], SOURCES)).toEqual({ payload: ['a'], filled: [] });
    expect(fillCallbackPayload('text', SOURCES)).toEqual({ payload: 'text', filled: [] });
    expect(fillCallbackPayload({ id: 'g' }, { record: undefined, response: ['x'], request: 'id' })).toEqual({
      payload: { id: 'g' },
      filled: [],
    });
  });

  it('keeps a property named __proto__ an own property, and never reaches into a source’s prototype', () => {
    const generated = JSON.parse('{"__proto__": "g", "constructor": "g", "toString": "g"}') as unknown;
    const record = JSON.parse('{"__proto__": "own"}') as unknown;
    const { payload } = fillCallbackPayload(generated, { record });
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(payload, '__proto__')?.value).toBe('own');
    expect((payload as Record<string, unknown>).constructor).toBe('g');
    expect((payload as Record<string, unknown>).toString).toBe('g');
  });
});

describe('fillCallbackPayload with the document’s own generator', () => {
  it('fills a body generated from a callback’s schema, and the result still satisfies it', async () => {
    const loaded = await readDocument('test/documents/callbacks.yaml');
    const { document } = buildApiModel(loaded.document, loaded.locate);
    const shipped = callbacksOf(document).byOperation.get('#/paths/~1orders/post')?.[0];
    const pointer = shipped?.requestBody?.schemaPointer;
    if (pointer === undefined) throw new Error('orderShipped has no body schema');
    // The adapter the wiring writes, as src/mock/mock-answer.ts generates an answer's body.
    const generate: GenerateCallbackBody = (at, seed) => fakeFromSchema(document, at, seededFaker(seed, new Date('2026-01-05T00:00:00Z')));
    const generated = generate(pointer, 7);
    expect(satisfies(document, pointer, generated)).toBe(true);
    const record = { id: 'ord_1', item: 'lamp', status: 'placed', callbackUrl: 'http://127.0.0.1:4000/hooks' };
    const { payload, filled } = fillCallbackPayload(generated, { record }, { fits: (value) => satisfies(document, pointer, value) });
    expect(filled.map((f) => f.path)).toContain('status');
    expect(payload).toMatchObject({ status: 'placed' });
    expect(satisfies(document, pointer, payload)).toBe(true);
  });
});
