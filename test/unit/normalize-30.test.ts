import { describe, expect, it } from 'vitest';
import { normalize30 } from '../../src/openapi/normalize-30.js';

describe('normalize30 (OpenAPI 3.0 schemas to draft-07)', () => {
  it('turns nullable into a null type, and into the enum', () => {
    expect(normalize30({ type: 'string', nullable: true, enum: ['a'] })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(normalize30({ type: ['integer'], nullable: true })).toEqual({ type: ['integer', 'null'] });
    expect(normalize30({ type: 'string', nullable: false })).toEqual({ type: 'string' });
  });

  it('drops nullable without a type: such a schema allows null already', () => {
    expect(normalize30({ nullable: true, allOf: [{ $ref: '#/x' }] })).toEqual({ allOf: [{ $ref: '#/x' }] });
  });

  it('turns boolean exclusive bounds into numeric ones', () => {
    expect(normalize30({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false })).toEqual({
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 9,
    });
  });

  it('works at any depth and leaves its input alone', () => {
    const input = { paths: { '/x': { get: { parameters: [{ schema: { type: 'integer', nullable: true } }] } } } };
    const copy = structuredClone(input);
    expect(normalize30(input)).toEqual({ paths: { '/x': { get: { parameters: [{ schema: { type: ['integer', 'null'] } }] } } } });
    expect(input).toEqual(copy);
  });
});
