import { describe, expect, it } from 'vitest';
import { follow, settled, valueAt } from '../../src/openapi/json-pointer.js';

const DOCUMENT = {
  paths: {
    '/100%': { get: { operationId: 'percent' } },
    '/a{b}': { get: { operationId: 'braces' } },
    '/x/y': { get: { operationId: 'slashes' } },
    '/t~': { get: { operationId: 'tilde' } },
  },
  list: ['zero', 'one'],
  ref: { $ref: '#/paths/~1a%7Bb%7D/get' },
};

describe('JSON pointers (RFC 6901)', () => {
  // prettier-ignore
  it.each([
    ['#', DOCUMENT],
    ['#/paths/~1x~1y/get/operationId', 'slashes'],
    ['#/paths/~1t~0/get/operationId', 'tilde'],
    ['#/paths/~1100%/get/operationId', 'percent'],
    ['#/paths/~1a{b}/get/operationId', 'braces'],
    ['#/paths/~1a%7Bb%7D/get/operationId', 'braces'],
    ['#/list/1', 'one'],
    ['#/list/2', undefined],
    ['#/nowhere/at/all', undefined],
    ['#/paths/~1100%25/get/operationId', 'percent'],
    ['no-hash', undefined],
  ])('%s', (pointer, expected) => {
    expect(valueAt(DOCUMENT, pointer)).toEqual(expected);
  });

  it('follows a percent-encoded $ref as a URI fragment', () => {
    expect(follow(DOCUMENT, '#/ref')).toEqual({ value: { operationId: 'braces' }, pointer: '#/paths/~1a%7Bb%7D/get' });
  });

  it('the same pointers answer alike in a settled document; an unsettled one is read as it is now', () => {
    // A document being read may still change (external $refs bundled in): it is walked each time.
    const reading: { a: { b: unknown } } = { a: { b: { $ref: './elsewhere.yaml' } } };
    expect(valueAt(reading, '#/a/b')).toEqual({ $ref: './elsewhere.yaml' });
    reading.a.b = { type: 'string' };
    expect(valueAt(reading, '#/a/b')).toEqual({ type: 'string' });
    // Settled, it is never changed again: what was found (a value, or nothing) is remembered.
    const document = settled({ a: { b: 1 } });
    expect(settled(document)).toBe(document);
    for (const round of [1, 2]) {
      expect(valueAt(document, '#/a/b'), `round ${round}`).toBe(1);
      expect(valueAt(document, '#/a/c'), `round ${round}`).toBeUndefined();
      expect(follow(document, '#/a').value, `round ${round}`).toEqual({ b: 1 });
    }
    for (const [pointer, expected] of [
      ['#/paths/~1x~1y/get/operationId', 'slashes'],
      ['#/list/2', undefined],
    ] as const) {
      expect(valueAt(settled(DOCUMENT), pointer)).toBe(expected);
    }
  });
});
