import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { fakeFromSchema } from '../../src/mock/schema-faker.js';
import { seededFaker } from '../../src/mock/seeded-faker.js';

/**
 * Generated values judged the way the real-world corpus judges answers: an Ajv of their own with
 * ajv-formats, every seed in a range, and the same seed always giving the same value.
 */

export const REFERENCE = new Date('2026-01-01T00:00:00Z');
export const SEEDS = Array.from({ length: 25 }, (_, i) => i + 1);

export function validator(schema: object, dialect: '3.0' | '3.1' = '3.0') {
  const options = { strict: false, allErrors: true, allowUnionTypes: true } as const;
  const ajv = dialect === '3.1' ? new Ajv2020(options) : new Ajv(options);
  addFormats.default(ajv);
  return ajv.compile(schema);
}

/** Every seed's value for `#/components/schemas/Subject`, checked against it. */
export function expectValidForEverySeed(schemas: Record<string, object>, dialect: '3.0' | '3.1' = '3.0'): unknown[] {
  const document = { components: { schemas } };
  const validate = validator({ ...document, $ref: '#/components/schemas/Subject' }, dialect);
  return SEEDS.map((seed) => {
    const value = fakeFromSchema(document, '#/components/schemas/Subject', seededFaker(seed, REFERENCE));
    expect(validate(value), `seed ${seed}: ${JSON.stringify(value)} ${JSON.stringify(validate.errors)}`).toBe(true);
    return value;
  });
}
