import { describe, expect, it } from 'vitest';
import { expectValidForEverySeed } from '../support/generated-values.js';

/**
 * A value satisfies every keyword of its schema at once: a format under length bounds or a pattern,
 * an enum or const of any type, a oneOf matched by one branch alone, closed objects wherever their
 * properties come from. Each row is a shape that broke on a real document.
 */

const str = (extra: object): Record<string, object> => ({ Subject: { type: 'string', ...extra } });

const FORMAT_ROWS: readonly [string, Record<string, object>][] = [
  ['a date-time of exactly 25 characters (a +00:00 offset)', str({ format: 'date-time', minLength: 25, maxLength: 25 })],
  ['a date-time of 22 to 24 characters (fractional seconds)', str({ format: 'date-time', minLength: 22, maxLength: 24 })],
  ['a date-time of at most 20 characters', str({ format: 'date-time', maxLength: 20 })],
  ['a long date-time', str({ format: 'date-time', minLength: 32 })],
  [
    'a date-time whose pattern asks for milliseconds',
    str({ format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' }),
  ],
  ['a time with an offset', str({ format: 'time', minLength: 14, maxLength: 14 })],
  ['a date of exactly 10 characters', str({ format: 'date', minLength: 10, maxLength: 10 })],
  ['a uuid of 45 characters (a urn)', str({ format: 'uuid', minLength: 40 })],
  ['a uuid in capitals by its pattern', str({ format: 'uuid', pattern: '^[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}$' })],
  ['a short email', str({ format: 'email', maxLength: 8 })],
  ['a long email', str({ format: 'email', minLength: 60, maxLength: 64 })],
  ['a short uri', str({ format: 'uri', maxLength: 14 })],
  ['a long uri', str({ format: 'uri', minLength: 90 })],
  ['a short url', str({ format: 'url', maxLength: 12 })],
  ['a long hostname', str({ format: 'hostname', minLength: 80 })],
  ['a long ipv4', str({ format: 'ipv4', minLength: 15 })],
  ['a short ipv6', str({ format: 'ipv6', maxLength: 8 })],
  ['base64 of 16 characters', str({ format: 'byte', minLength: 16, maxLength: 16 })],
  ['a long duration', str({ format: 'duration', minLength: 8 })],
  ['a uri-reference of 30 characters', str({ format: 'uri-reference', minLength: 30 })],
  ['a long json-pointer', str({ format: 'json-pointer', minLength: 20 })],
  ['a password of exactly 30 characters', str({ format: 'password', minLength: 30, maxLength: 30 })],
  ['a pattern and lengths (no format)', str({ pattern: '^[A-Z]{2}-\\d+$', minLength: 9, maxLength: 9 })],
];

const ENUM_ROWS: readonly [string, Record<string, object>, readonly unknown[]][] = [
  [
    'an enum of objects behind an allOf with a description',
    {
      Shape: { type: 'object', enum: [{ kind: 'circle', r: 1 }, { kind: 'square' }] },
      Subject: { description: 'The shape.', allOf: [{ $ref: '#/components/schemas/Shape' }] },
    },
    [{ kind: 'circle', r: 1 }, { kind: 'square' }],
  ],
  [
    'an enum of arrays behind an allOf',
    { Pair: { type: 'array', enum: [[1, 2], [3]] }, Subject: { allOf: [{ $ref: '#/components/schemas/Pair' }] } },
    [[1, 2], [3]],
  ],
  ['an enum of mixed types', { Subject: { enum: ['a', 1, { x: 1 }, [2], null] } }, ['a', 1, { x: 1 }, [2], null]],
  ['an enum of objects and strings under a type list', { Subject: { type: ['object', 'string'], enum: [{ x: 1 }, 'y'] } }, [{ x: 1 }, 'y']],
  ['a const object under allOf', { Subject: { allOf: [{ type: 'object' }, { const: { on: true } }] } }, [{ on: true }]],
];

/** `levels` objects, each requiring the next, around `inner`: past the full-generation depth. */
function deep(levels: number, inner: object): object {
  let schema = inner;
  for (let i = 0; i < levels; i++) schema = { type: 'object', required: ['child'], properties: { child: schema } };
  return schema;
}

const CHOICE_ROWS: readonly [string, Record<string, object>][] = [
  [
    'a oneOf of open objects that accept each other (a discriminator on a shared property)',
    {
      Cat: { type: 'object', required: ['petType'], properties: { petType: { type: 'string' }, name: { type: 'string' } } },
      Dog: { type: 'object', required: ['petType'], properties: { petType: { type: 'string' }, bark: { type: 'boolean' } } },
      Subject: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'petType' },
      },
    },
  ],
  [
    'a oneOf told apart by optional consts, nested past the full-generation depth',
    {
      Subject: deep(8, {
        type: 'object',
        oneOf: [
          { properties: { kind: { const: 'a' }, size: { type: 'integer' } } },
          { properties: { kind: { const: 'b' }, size: { type: 'integer' } } },
        ],
      }),
    },
  ],
  [
    'a oneOf of an integer and a multiple of a half',
    {
      Subject: {
        oneOf: [
          { type: 'integer', minimum: 0, maximum: 10 },
          { type: 'number', minimum: 0, maximum: 10, multipleOf: 0.5 },
        ],
      },
    },
  ],
  [
    'an anyOf whose first branch is closed to a property the parent requires',
    {
      Subject: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' } },
        anyOf: [
          { additionalProperties: false, properties: { name: { type: 'string' } } },
          { required: ['code'], properties: { code: { type: 'string' } } },
        ],
      },
    },
  ],
];

const CLOSED_ROWS: readonly [string, Record<string, object>][] = [
  [
    'a closed allOf member beside one that requires what it declares',
    {
      Base: { type: 'object', additionalProperties: false, properties: { id: { type: 'string' }, note: { type: 'string' } } },
      Subject: {
        allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', required: ['id'], properties: { id: { minLength: 3 } } }],
      },
    },
  ],
  [
    'a closed object with properties from its allOf, its own and a oneOf branch',
    {
      Subject: {
        type: 'object',
        additionalProperties: false,
        properties: { id: { type: 'string' }, kind: { type: 'string' }, a: { type: 'integer' } },
        allOf: [{ properties: { extra: { type: 'string' } } }],
        oneOf: [{ required: ['a'], properties: { b: { type: 'string' } } }, { required: ['kind'] }],
        minProperties: 2,
      },
    },
  ],
];

describe('a format keeps its length bounds and its pattern', () => {
  it.each(FORMAT_ROWS)('%s', (_, schemas) => {
    expectValidForEverySeed(schemas);
  });
});

describe('an enum or const gives one of its members, whatever their type', () => {
  it.each(ENUM_ROWS)('%s', (_, schemas, members) => {
    for (const value of expectValidForEverySeed(schemas)) expect(members).toContainEqual(value);
  });
});

describe('a oneOf value matches one branch alone; an anyOf value some branch', () => {
  it.each(CHOICE_ROWS)('%s', (_, schemas) => {
    expectValidForEverySeed(schemas);
  });
});

describe('a closed object carries only what it allows', () => {
  it.each(CLOSED_ROWS)('%s', (_, schemas) => {
    expectValidForEverySeed(schemas);
  });
});
