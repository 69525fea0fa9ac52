import { describe, expect, it } from 'vitest';
import { follow, valueAt } from '../../src/openapi/json-pointer.js';

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
});
