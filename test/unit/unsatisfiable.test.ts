import { describe, expect, it } from 'vitest';
import { unsatisfiableSchemas } from '../../src/mock/unsatisfiable.js';

/** A document whose one operation answers `Subject`, with `schemas` beside it. */
function answering(schemas: Record<string, unknown>): unknown {
  return {
    openapi: '3.1.0',
    paths: {
      '/things': {
        get: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Subject' } } } },
          },
        },
      },
    },
    components: { schemas },
  };
}

const at = (name: string): string => `#/components/schemas/${name}`;

const EMPTY: readonly [string, Record<string, unknown>, string, RegExp][] = [
  ['lengths the wrong way round', { Subject: { type: 'string', minLength: 10, maxLength: 5 } }, at('Subject'), /minLength 10.*maxLength 5/],
  ['a range the wrong way round', { Subject: { type: 'integer', minimum: 5, maximum: 1 } }, at('Subject'), /5 to 1/],
  ['an exclusive range of one number', { Subject: { type: 'number', exclusiveMinimum: 2, maximum: 2 } }, at('Subject'), /2 to 2/],
  ['no multiple in the range', { Subject: { type: 'integer', minimum: 1, maximum: 4, multipleOf: 5 } }, at('Subject'), /multiple of 5/],
  ['items the wrong way round', { Subject: { type: 'array', minItems: 3, maxItems: 1 } }, at('Subject'), /minItems/],
  [
    'an enum with no value of its type, under a property',
    { Subject: { type: 'object', properties: { scope: { $ref: at('Scope') } } }, Scope: { type: 'object', enum: ['SELF'] } },
    at('Scope'),
    /enum is of type object/,
  ],
  ['a const of another type', { Subject: { type: 'integer', const: 'one' } }, at('Subject'), /const is of type integer/],
  [
    'a required member a closed allOf member forbids',
    {
      Subject: { allOf: [{ $ref: at('Closed') }, { required: ['id'] }] },
      Closed: { type: 'object', additionalProperties: false, properties: { name: { type: 'string' } } },
    },
    at('Subject'),
    /requires id, which additionalProperties: false forbids/,
  ],
  ['a date too short', { Subject: { type: 'string', format: 'date', maxLength: 8 } }, at('Subject'), /no date is from 0 to 8/],
  [
    'a date-time of 21 characters',
    { Subject: { type: 'string', format: 'date-time', minLength: 21, maxLength: 21 } },
    at('Subject'),
    /date-time/,
  ],
  ['a uuid of 40 characters', { Subject: { type: 'string', format: 'uuid', minLength: 40, maxLength: 40 } }, at('Subject'), /uuid/],
];

const POSSIBLE: readonly [string, Record<string, unknown>][] = [
  ['a date-time of 25 characters', { Subject: { type: 'string', format: 'date-time', minLength: 25, maxLength: 25 } }],
  ['an enum of objects', { Subject: { type: 'object', enum: [{ a: 1 }] } }],
  ['a nullable enum (OpenAPI 3.0)', { Subject: { type: 'string', nullable: true, enum: [null] } }],
  ['a 3.0 exclusive flag left off', { Subject: { type: 'number', minimum: 2, maximum: 2, exclusiveMinimum: false } }],
  [
    'a required member a closed schema declares',
    { Subject: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string' } } } },
  ],
  ['a required member a pattern allows', { Subject: { additionalProperties: false, required: ['x-a'], patternProperties: { '^x-': {} } } }],
];

describe('schemas that admit no value, reachable from the answers', () => {
  it.each(EMPTY)('%s', (_, schemas, pointer, reason) => {
    const found = unsatisfiableSchemas(answering(schemas));
    expect(found).toEqual([{ pointer, reason: expect.stringMatching(reason) }]);
  });

  it.each(POSSIBLE)('reports nothing for %s', (_, schemas) => {
    expect(unsatisfiableSchemas(answering(schemas))).toEqual([]);
  });

  it('reports a schema no answer reaches not at all, and a shared one once', () => {
    const document = answering({
      Subject: { type: 'object', properties: { a: { $ref: at('Bad') }, b: { type: 'array', items: { $ref: at('Bad') } } } },
      Bad: { type: 'string', minLength: 3, maxLength: 1 },
      Unused: { minimum: 3, maximum: 1 },
    });
    expect(unsatisfiableSchemas(document).map((s) => s.pointer)).toEqual([at('Bad')]);
  });
});
