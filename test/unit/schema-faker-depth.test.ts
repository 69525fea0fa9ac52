import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { fakeFromSchema } from '../../src/mock/schema-faker.js';
import { seededFaker } from '../../src/mock/seeded-faker.js';

/** `levels` objects nested in one another, each requiring the next and one array of two items. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, note: { type: 'string' } },
  };
  for (let i = 0; i < levels; i++) {
    schema = {
      type: 'object',
      required: ['child', 'pair'],
      properties: {
        child: schema,
        pair: { type: 'array', minItems: 2, items: { type: 'integer' } },
        optional: { type: 'array', items: { type: 'string' } },
      },
    };
  }
  return schema;
}

describe('generation of deeply nested schemas', () => {
  it.each([3, 8, 14])('fills what %i levels of nesting require, so the value validates', (levels) => {
    const document = { components: { schemas: { Deep: nested(levels) } } };
    const value = fakeFromSchema(document, '#/components/schemas/Deep', seededFaker(1, new Date('2026-01-01T00:00:00Z')));
    const validate = new Ajv({ strict: false }).compile(document.components.schemas.Deep);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  });

  it('stops at a schema that requires itself without end', () => {
    const document = {
      components: {
        schemas: { Loop: { type: 'object', required: ['next'], properties: { next: { $ref: '#/components/schemas/Loop' } } } },
      },
    };
    expect(() => fakeFromSchema(document, '#/components/schemas/Loop', seededFaker(1, new Date('2026-01-01T00:00:00Z')))).not.toThrow();
  });
});

describe('generation for oneOf', () => {
  it('makes a value that matches exactly one branch, when values of the first branches match several', () => {
    const schema = {
      oneOf: [{ type: 'object' }, { type: 'object', properties: { kind: { type: 'string' } } }, { type: 'string' }],
    };
    const document = { components: { schemas: { Event: schema } } };
    const validate = new Ajv({ strict: false }).compile(schema);
    for (let seed = 1; seed <= 20; seed++) {
      const value = fakeFromSchema(document, '#/components/schemas/Event', seededFaker(seed, new Date('2026-01-01T00:00:00Z')));
      expect(validate(value), `seed ${seed}: ${JSON.stringify(value)}`).toBe(true);
    }
  });
});
