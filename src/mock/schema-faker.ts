import type { Faker } from '@faker-js/faker';
import { escapePointerToken, follow, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { satisfies } from './document-schemas.js';
import { byName, formatted, matching, xFakerValue } from './realistic-values.js';

/**
 * Below this depth values are generated in full; deeper, only what the schema requires (required
 * properties, `minItems` items), so a deep document (Kubernetes nests objects ten levels down)
 * still gets valid values; past HARD_DEPTH generation stops, which only a schema that requires
 * itself without end can reach.
 */
const MAX_DEPTH = 6;
const HARD_DEPTH = 32;

/**
 * Generates a value that satisfies the schema at `pointer`, using a seeded faker so the same seed
 * gives the same value. Follows `$ref`s by pointer, so recursive schemas stop at a fixed depth.
 * `name` is the property the value is for: it picks a realistic generator (`email`, `city`).
 */
export function fakeFromSchema(document: unknown, pointer: string, faker: Faker, depth = 0, name?: string): unknown {
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return null;
  const schema = value;
  if (schema.const !== undefined) return schema.const;
  const custom = xFakerValue(schema, faker);
  if (custom && satisfies(document, at, custom.value)) return custom.value;
  // A schema's own examples, only those that satisfy it (an invalid one is reported, never served).
  const examples = Array.isArray(schema.examples) ? schema.examples.filter((ex) => satisfies(document, at, ex)) : [];
  if (examples.length > 0 && depth > 0) return faker.helpers.arrayElement(examples);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return faker.helpers.arrayElement(schema.enum);
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.reduce<unknown>(
      (merged, _, i) => {
        const part = fakeFromSchema(document, `${at}/allOf/${i}`, faker, depth);
        return isObject(merged) && isObject(part) ? { ...merged, ...part } : part;
      },
      typeOf(schema) === 'object' ? fakeObject(document, schema, at, faker, depth) : {},
    );
  }
  if (Array.isArray(schema.oneOf) && schema.oneOf.length > 0) return fakeOneOf(document, at, schema.oneOf.length, faker, depth);
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) return fakeFromSchema(document, `${at}/anyOf/0`, faker, depth);
  switch (typeOf(schema)) {
    case 'object':
      return fakeObject(document, schema, at, faker, depth);
    case 'array': {
      const deep = depth >= MAX_DEPTH;
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : undefined;
      if (depth >= HARD_DEPTH || schema.items === undefined || (deep && !minItems)) return [];
      const min = minItems ?? 1;
      const max = deep ? min : Math.max(min, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, min + 3));
      return Array.from({ length: faker.number.int({ min, max }) }, () => fakeFromSchema(document, `${at}/items`, faker, depth + 1));
    }
    case 'integer':
      return fakeInteger(schema, faker);
    case 'number': {
      const min = num(schema.minimum, num(schema.exclusiveMinimum, -1) + 1);
      const max = num(schema.maximum, num(schema.exclusiveMaximum, 1001) - 1);
      const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
      if (step !== undefined)
        return faker.number.int({ min: Math.ceil(min / step), max: Math.max(Math.ceil(min / step), Math.floor(max / step)) }) * step;
      return faker.number.float({ min, max: Math.max(min, max), fractionDigits: 2 });
    }
    case 'boolean':
      return faker.datatype.boolean();
    case 'null':
      return null;
    default: {
      const realistic = schema.pattern === undefined ? (formatted(schema.format, faker) ?? byName(name, faker)) : undefined;
      if (realistic !== undefined && satisfies(document, at, realistic)) return realistic;
      return fakeString(schema, faker);
    }
  }
}

const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

function typeOf(schema: JsonObject): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') as string | undefined;
  if (typeof schema.type === 'string') return schema.type;
  if (isObject(schema.properties)) return 'object';
  return undefined;
}

function fakeObject(document: unknown, schema: JsonObject, at: string, faker: Faker, depth: number): JsonObject {
  const out: Record<string, unknown> = {};
  if (!isObject(schema.properties) || depth >= HARD_DEPTH) return out;
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of Object.keys(schema.properties)) {
    if (depth >= MAX_DEPTH && !required.includes(name)) continue;
    out[name] = fakeFromSchema(document, `${at}/properties/${escapePointerToken(name)}`, faker, depth + 1, name);
  }
  return out;
}

function fakeInteger(schema: JsonObject, faker: Faker): number {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? Math.floor(schema.exclusiveMinimum) + 1 : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? Math.ceil(schema.exclusiveMaximum) - 1 : undefined;
  const min = exclusiveMin ?? Math.ceil(num(schema.minimum, 1));
  const max = Math.max(min, exclusiveMax ?? Math.floor(num(schema.maximum, Math.max(min, 1000))));
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (step === undefined) return faker.number.int({ min, max });
  // A multiple of the step inside the bounds (or the nearest one above the minimum if none fits).
  const low = Math.ceil(min / step);
  const high = Math.max(low, Math.floor(max / step));
  return faker.number.int({ min: low, max: high }) * step;
}

function fakeString(schema: JsonObject, faker: Faker): string {
  const min = num(schema.minLength, 1);
  const max = num(schema.maxLength, Math.max(min, 24));
  if (typeof schema.pattern === 'string') {
    const text = matching(schema.pattern, faker);
    if (text !== undefined) return text;
  }
  let text = faker.lorem.words({ min: 1, max: 3 });
  while (text.length < min) text += ` ${faker.lorem.word()}`;
  return text.slice(0, max);
}

/**
 * A value for `oneOf`: it must match exactly one branch (JSON Schema 2020-12 §10.2.1.3), and a value
 * made for one branch often matches another too (an object branch without `required` matches
 * almost anything). Each branch is tried in turn until a value fits it alone; the first branch's
 * value is the fallback.
 */
function fakeOneOf(document: unknown, at: string, branches: number, faker: Faker, depth: number): unknown {
  let first: unknown;
  for (let i = 0; i < branches; i++) {
    const value = fakeFromSchema(document, `${at}/oneOf/${i}`, faker, depth);
    if (i === 0) first = value;
    let matches = 0;
    for (let j = 0; j < branches && matches < 2; j++) if (satisfies(document, `${at}/oneOf/${j}`, value)) matches++;
    if (matches === 1) return value;
  }
  return first;
}
