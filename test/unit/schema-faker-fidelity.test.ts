import { describe, expect, it } from 'vitest';
import { stringMatching } from '../../src/mock/pattern-values.js';
import { fakeFromSchema } from '../../src/mock/schema-faker.js';
import { seededFaker } from '../../src/mock/seeded-faker.js';
import { expectValidForEverySeed, REFERENCE, SEEDS } from '../support/generated-values.js';

/**
 * Generated values are judged the way the real-world corpus judges answers (support/generated-values.ts).
 * The schemas are the shapes that broke on real documents (named in each row).
 */

/** Every format ajv-formats checks on strings, each as a property of that name. */
const FORMATS: readonly [string, string][] = [
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'binary',
  'password',
].map((format) => [`f_${format}`, format]);

const se = { type: 'string', pattern: '^se(-[a-z0-9]+)+$' };

const SCENARIOS: readonly [string, Record<string, object>][] = [
  [
    'a pattern with a repeated group (ShipEngine ids)',
    { Subject: { type: 'object', required: ['label_id'], properties: { label_id: se } } },
  ],
  ['a date pattern on a property named like a date (Redo)', { Subject: { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' } }],
  [
    'a date-time format that also has a pattern (ShipEngine ship_date)',
    {
      Subject: {
        type: 'string',
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[-+]\\d{2}:\\d{2})$',
      },
    },
  ],
  ['a pattern under length bounds', { Subject: { type: 'string', pattern: '^[a-z0-9]+$', minLength: 20, maxLength: 24 } }],
  ['a pattern with a back-reference', { Subject: { type: 'string', pattern: '^(?<q>["\']).+\\k<q>$' } }],
  ['a version pattern not anchored (GitHub Enterprise)', { Subject: { type: 'string', pattern: '[0-9]\\.[0-9]{2}\\.[0-9]' } }],
  ['a number in int32 format (Ideal Postcodes)', { Subject: { type: 'number', format: 'int32', minimum: 0 } }],
  ['an int64 integer without bounds', { Subject: { type: 'integer', format: 'int64' } }],
  ['a multiple of a decimal step', { Subject: { type: 'number', multipleOf: 0.1, minimum: 0, maximum: 5 } }],
  ['a narrow exclusive range', { Subject: { type: 'number', exclusiveMinimum: 0, maximum: 0.005 } }],
  [
    'every string format the validator checks',
    {
      Subject: {
        type: 'object',
        required: FORMATS.map(([name]) => name),
        properties: Object.fromEntries(FORMATS.map(([name, format]) => [name, { type: 'string', format }])),
      },
    },
  ],
  [
    'a required member the properties do not declare (Lix, Catalyst, Redo)',
    {
      Subject: {
        type: 'object',
        required: ['vector_clock', 'externalId id', 'name'],
        properties: { urn: { type: 'string' } },
        additionalProperties: { type: 'array', items: { type: 'integer' } },
      },
    },
  ],
  [
    'a property declared by two allOf members, each requiring its own members (Ideal Postcodes)',
    {
      Editable: { type: 'object', properties: { daily: { type: 'object', properties: { limit: { type: 'integer' } } } } },
      Subject: {
        allOf: [
          { $ref: '#/components/schemas/Editable' },
          {
            type: 'object',
            required: ['daily'],
            properties: { daily: { type: 'object', required: ['count'], properties: { count: { type: 'number', format: 'int32' } } } },
          },
        ],
      },
    },
  ],
  [
    'an anyOf of required sets (Redo webhooks)',
    {
      Subject: {
        type: 'object',
        properties: { id: { type: 'string' }, externalId: { type: 'string' } },
        anyOf: [{ required: ['id'] }, { required: ['externalId'] }],
      },
    },
  ],
  [
    'a oneOf whose branches differ by their required members',
    {
      Subject: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, phone: { type: 'string', pattern: '^\\+\\d{6,12}$' } },
        oneOf: [
          { required: ['email'], not: { required: ['phone'] } },
          { required: ['phone'], not: { required: ['email'] } },
        ],
      },
    },
  ],
  [
    'additionalProperties: false next to allOf members that add optional properties',
    {
      Base: { type: 'object', properties: { extra: { type: 'string' }, id: { type: 'string' } } },
      Subject: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          { type: 'object', additionalProperties: false, properties: { id: { type: 'string' } } },
        ],
      },
    },
  ],
  [
    'an optional property whose enum has no value of its type (Okta scope)',
    {
      Subject: {
        type: 'object',
        required: ['title'],
        properties: { title: { type: 'string' }, scope: { type: 'object', enum: ['SELF', 'NONE'] } },
      },
    },
  ],
  [
    'unique items drawn from a small enum (GitHub runtime_risks)',
    { Subject: { type: 'array', uniqueItems: true, minItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } } },
  ],
  [
    'a property literally named __proto__',
    { Subject: { type: 'object', required: ['__proto__'], properties: { ['__proto__']: { type: 'string' } } } },
  ],
];

describe('generated values validate against their schema', () => {
  it.each(SCENARIOS)('%s', (_, schemas) => {
    expectValidForEverySeed(schemas);
  });

  it('honours prefixItems (JSON Schema 2020-12)', () => {
    expectValidForEverySeed(
      { Subject: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string', format: 'date' }], items: false, minItems: 2 } },
      '3.1',
    );
  });

  it('leaves out an optional property no value can satisfy, and keeps the rest', () => {
    const [value] = expectValidForEverySeed(SCENARIOS.find(([name]) => name.includes('Okta'))?.[1] ?? {});
    expect(Object.keys(value as object)).toEqual(['title']);
  });

  it('gives a required member nobody declares a value from additionalProperties', () => {
    const [value] = expectValidForEverySeed(SCENARIOS.find(([name]) => name.includes('Lix'))?.[1] ?? {});
    expect(Array.isArray((value as Record<string, unknown>).vector_clock)).toBe(true);
  });
});

describe('generation is deterministic under a seed', () => {
  it.each(SCENARIOS)('%s', (_, schemas) => {
    const document = { components: { schemas } };
    const once = (seed: number): string =>
      JSON.stringify(fakeFromSchema(document, '#/components/schemas/Subject', seededFaker(seed, REFERENCE)));
    expect(once(7)).toBe(once(7));
  });

  it('draws different values from different seeds', () => {
    const values = new Set(expectValidForEverySeed({ Subject: se }).map((v) => JSON.stringify(v)));
    expect(values.size).toBeGreaterThan(SEEDS.length / 2);
  });
});

describe('strings drawn from a pattern', () => {
  const PATTERNS: readonly [string, number, number][] = [
    ['^se(-[a-z0-9]+)+$', 0, Infinity],
    ['^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[-+]\\d{2}:\\d{2})$', 0, Infinity],
    ['^(?:[A-Z]{2}|[0-9]{3})-[^\\s,]{2,4}$', 0, Infinity],
    ['^[\\w-.]+@[a-z]+\\.(com|org)$', 0, Infinity],
    ['^([a-f])\\1[a-f]$', 0, Infinity],
    ['^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d]{8,}$', 8, 16],
    ['^\\$\\{[A-Z_]+\\}$', 0, Infinity],
    ['^\\u00e9+$', 2, 3],
    ['^[^]+$', 5, 5],
    ['a{,3}', 0, Infinity],
    ['^[a-z]{2,}$', 30, 40],
  ];

  it.each(PATTERNS)('%s within [%i, %i] characters', (pattern, min, max) => {
    for (const seed of SEEDS) {
      const text = stringMatching(pattern, seededFaker(seed, REFERENCE), min, max);
      expect(text, `seed ${seed}`).toBeDefined();
      expect(new RegExp(pattern).test(text ?? ''), `seed ${seed}: ${text ?? ''}`).toBe(true);
      expect([...(text ?? '')].length).toBeGreaterThanOrEqual(min);
      expect([...(text ?? '')].length).toBeLessThanOrEqual(max);
    }
  });

  it.each([
    ['a pattern no value matches', '^[]$'],
    ['a PCRE inline flag, which ECMA-262 refuses', '(?i)abc'],
    ['bounds the pattern cannot meet', '^[a-z]{3}$'],
  ])('gives nothing for %s', (_, pattern) => {
    expect(stringMatching(pattern, seededFaker(1, REFERENCE), 5, 6)).toBeUndefined();
  });
});
