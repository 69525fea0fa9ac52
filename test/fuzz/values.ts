/**
 * fast-check arbitraries for values valid against a normalized schema, and the single mistakes
 * that can be planted in a valid JSON value, each with the location the sandbox must name.
 */
import fc from 'fast-check';
import { isObject } from '../../src/openapi/json-pointer.js';
import { canonicalJson, equalJson, jsonTypeOf, typeAllowed, typesToGenerate, Unsupported, type JsonType, type Schema } from './schema.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Where a value travels: a JSON body, or the text of a path, query or header parameter. */
export type Carrier = 'body' | 'path' | 'query' | 'header';

// ─── Valid values ──────────────────────────────────────────────────────────────────────────────

/** Integer range a schema allows (formats included), within the safe integers. */
export function integerRange(schema: Schema): { min: number; max: number } {
  let min = -MAX_SAFE;
  let max = MAX_SAFE;
  if (schema.format === 'int32') ({ min, max } = INT32);
  if (schema.minimum)
    min = Math.max(min, schema.minimum.exclusive ? Math.floor(schema.minimum.value) + 1 : Math.ceil(schema.minimum.value));
  if (schema.maximum)
    max = Math.min(max, schema.maximum.exclusive ? Math.ceil(schema.maximum.value) - 1 : Math.floor(schema.maximum.value));
  if (min > max) throw new Unsupported(`${schema.where}: no integer between the bounds`);
  return { min, max };
}

/** Any integer in [min, max], including ranges past 32 bits (fc.integer stops at 2^31). */
const wideInteger = (min: number, max: number): fc.Arbitrary<number> =>
  min >= INT32.min && max <= INT32.max ? fc.integer({ min, max }) : fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);

export function integerArb(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = integerRange(schema);
  const m = schema.multipleOf ?? 1;
  const kMin = Math.ceil(min / m);
  const kMax = Math.floor(max / m);
  if (kMin > kMax) throw new Unsupported(`${schema.where}: no multiple of ${m} between the bounds`);
  const small = { min: Math.max(kMin, -200), max: Math.min(kMax, 200) };
  const choices: fc.WeightedArbitrary<number>[] = [
    { weight: 2, arbitrary: wideInteger(kMin, kMax) },
    { weight: 1, arbitrary: fc.constantFrom(kMin, kMax) },
  ];
  if (small.min <= small.max) choices.push({ weight: 3, arbitrary: fc.integer(small) });
  // Small non-negative values: the ids records are seeded with, so reads and deletes find some.
  const seeded = { min: Math.max(kMin, 0), max: Math.min(kMax, 24) };
  if (seeded.min <= seeded.max) choices.push({ weight: 3, arbitrary: fc.integer(seeded) });
  return fc.oneof(...choices).map((k) => k * m + 0); // + 0: never -0
}

export function numberArb(schema: Schema): fc.Arbitrary<number> {
  if (schema.multipleOf !== undefined || (schema.format !== undefined && schema.format.startsWith('int'))) return integerArb(schema);
  const min = schema.minimum?.value ?? -Number.MAX_VALUE;
  const max = schema.maximum?.value ?? Number.MAX_VALUE;
  const doubles = fc.double({
    min,
    max,
    minExcluded: schema.minimum?.exclusive ?? false,
    maxExcluded: schema.maximum?.exclusive ?? false,
    noNaN: true,
    noDefaultInfinity: true,
  });
  const inRange = (n: number) =>
    (schema.minimum ? (schema.minimum.exclusive ? n > schema.minimum.value : n >= schema.minimum.value) : true) &&
    (schema.maximum ? (schema.maximum.exclusive ? n < schema.maximum.value : n <= schema.maximum.value) : true);
  const friendly = fc
    .oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.integer({ min: -100000, max: 100000 }).map((n) => n / 100),
    )
    .filter(inRange);
  return fc.oneof({ weight: 2, arbitrary: doubles }, { weight: 3, arbitrary: friendly }).map((n) => n + 0);
}

const codePoints = (text: string): number => [...text].length;

/** One code point per unit (so fast-check's lengths are JSON Schema's), mostly printable ASCII. */
function unitArb(carrier: Carrier): fc.Arbitrary<string> {
  const ascii = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
  if (carrier === 'header') return fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
  const anyCodePoint = fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((c) => c < 0xd800 || c > 0xdfff)
    .map((c) => String.fromCodePoint(c));
  return fc.oneof({ weight: 6, arbitrary: ascii }, { weight: 1, arbitrary: anyCodePoint });
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const DATES = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
const LOWER_ALNUM = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 1, maxLength: 10 });

function formatArb(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'date-time':
      return fc.tuple(DATES, fc.boolean()).map(([d, millis]) => (millis ? d.toISOString() : d.toISOString().replace(/\.\d{3}Z$/, 'Z')));
    case 'date':
      return DATES.map((d) => d.toISOString().slice(0, 10));
    case 'time':
      return fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }))
        .map(([h, m, s]) => `${pad2(h)}:${pad2(m)}:${pad2(s)}Z`);
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.tuple(LOWER_ALNUM, LOWER_ALNUM).map(([user, host]) => `${user}@${host}.example`);
    case 'uri':
    case 'url':
      return fc.tuple(LOWER_ALNUM, LOWER_ALNUM).map(([host, path]) => `https://${host}.example/${path}`);
    case 'hostname':
      return LOWER_ALNUM.map((label) => `${label}.example`);
    case 'ipv4':
      return fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.'));
    case 'byte':
      return fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64'));
    default:
      return undefined; // password, binary: any string
  }
}

export function stringArb(schema: Schema, carrier: Carrier): fc.Arbitrary<string> {
  // Parameter text is never empty: an empty value is refused on purpose (docs/decisions/README.md), and an
  // empty path segment is another route.
  const minLength = carrier === 'body' ? schema.minLength : Math.max(1, schema.minLength);
  const maxLength = schema.maxLength;
  if (maxLength !== undefined && maxLength < minLength)
    throw new Unsupported(`${schema.where}: no string of a length the ${carrier} can carry`);
  const lengthOk = (s: string) => codePoints(s) >= minLength && (maxLength === undefined || codePoints(s) <= maxLength);
  const carrierOk = (s: string) =>
    carrier === 'body' ||
    (carrier === 'header' ? /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s) : carrier === 'path' ? s !== '.' && s !== '..' : true);
  let base: fc.Arbitrary<string>;
  const formatted = schema.format ? formatArb(schema.format) : undefined;
  if (schema.pattern !== undefined) {
    if (formatted) throw new Unsupported(`${schema.where}: both a pattern and a format`);
    const re = new RegExp(schema.pattern, 'u');
    base = fc.stringMatching(re).filter((s) => re.test(s));
  } else if (formatted) {
    base = formatted;
  } else {
    base = fc.string({ unit: unitArb(carrier), minLength, maxLength: Math.min(maxLength ?? minLength + 24, minLength + 24) });
  }
  return base.filter((s) => lengthOk(s) && carrierOk(s));
}

export interface ValueOptions {
  readonly carrier: Carrier;
  /** Leave readOnly properties out (a request), per OpenAPI's readOnly. */
  readonly request: boolean;
}

/** Names that have tripped up JavaScript servers: tried as unknown body properties. */
const TRICKY_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'id'];

/** Values valid against `schema`. */
export function valueArb(schema: Schema, options: ValueOptions, depth = 0): fc.Arbitrary<unknown> {
  if (schema.enumValues) {
    const usable = schema.enumValues.filter((v) => typeAllowed(schema, v));
    if (usable.length === 0) throw new Unsupported(`${schema.where}: no enum value of an allowed type`);
    return fc.constantFrom(...usable);
  }
  const types = typesToGenerate(schema);
  const arbitraries = types.map((type) => ({ weight: type === 'null' ? 1 : 4, arbitrary: typedArb(schema, type, options, depth) }));
  return arbitraries.length === 1 ? (arbitraries[0]?.arbitrary as fc.Arbitrary<unknown>) : fc.oneof(...arbitraries);
}

function typedArb(schema: Schema, type: JsonType, options: ValueOptions, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(schema);
    case 'number':
      return numberArb(schema);
    case 'string':
      return stringArb(schema, options.carrier);
    case 'array':
      return arrayArb(schema, options, depth);
    case 'object':
      return objectArb(schema, options, depth);
  }
}

function arrayArb(schema: Schema, options: ValueOptions, depth: number): fc.Arbitrary<unknown[]> {
  const items = schema.items ? valueArb(schema.items, options, depth + 1) : fc.jsonValue({ maxDepth: 1 });
  const minLength = schema.minItems;
  const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
  if (maxLength < minLength) throw new Unsupported(`${schema.where}: maxItems below minItems`);
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: canonicalJson })
    : fc.array(items, { minLength, maxLength });
}

function objectArb(schema: Schema, options: ValueOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredKeys: string[] = [];
  for (const [name, prop] of schema.properties) {
    if (options.request && prop.readOnly) continue;
    const required = schema.required.has(name);
    if (!required && depth >= 4) continue;
    model[name] = valueArb(prop, options, depth + 1);
    if (required) requiredKeys.push(name);
  }
  for (const name of schema.required) {
    if (!schema.properties.has(name)) {
      model[name] = fc.jsonValue({ maxDepth: 1 });
      requiredKeys.push(name);
    }
  }
  const declared = fc.record(model, { requiredKeys });
  if (schema.additionalProperties === false || depth >= 4) return declared;
  const extraValue =
    schema.additionalProperties === true ? fc.jsonValue({ maxDepth: 2 }) : valueArb(schema.additionalProperties, options, depth + 1);
  const extraName = fc
    .oneof(fc.constantFrom(...TRICKY_NAMES), fc.string({ minLength: 1, maxLength: 8 }))
    .filter((name) => !schema.properties.has(name) && !schema.required.has(name));
  const extras = fc.uniqueArray(fc.tuple(extraName, extraValue), { maxLength: 2, selector: ([name]) => name });
  return fc
    .tuple(declared, fc.oneof({ weight: 3, arbitrary: fc.constant([] as [string, unknown][]) }, { weight: 1, arbitrary: extras }))
    .map(([object, more]) => {
      const out: Record<string, unknown> = { ...object };
      // defineProperty: `out.__proto__ = v` would set the prototype, not send a property.
      for (const [name, value] of more) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

// ─── Single mistakes in a JSON value ───────────────────────────────────────────────────────────

export type BodyMistakeKind =
  | 'body-missing-required'
  | 'body-wrong-type'
  | 'body-out-of-range'
  | 'body-not-in-enum'
  | 'body-unknown-property'
  | 'body-string-length'
  | 'body-bad-format'
  | 'body-item-count';

export interface BodyMistake {
  readonly kind: BodyMistakeKind;
  /** As the sandbox names it: `body`, `body.name`, `body.tags[2]`. */
  readonly location: string;
  /** The violation's message when it is fixed by the documentation (`is required`, `is not allowed`). */
  readonly message?: string;
  /** What was done, for the report. */
  readonly what: string;
  readonly apply: (root: unknown) => unknown;
}

type Step = string | number;

const clone = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

function edit(root: unknown, path: readonly Step[], change: (parent: Record<string | number, unknown>, key: Step) => void): unknown {
  const copy = clone(root);
  if (path.length === 0) throw new Error('edit needs a path');
  let node = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  change(node, path[path.length - 1] as Step);
  return copy;
}

const setAt = (path: readonly Step[], value: unknown) => (root: unknown) =>
  path.length === 0
    ? value
    : edit(root, path, (parent, key) => {
        Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
      });

const deleteAt = (path: readonly Step[]) => (root: unknown) =>
  edit(root, path, (parent, key) => {
    delete parent[key];
  });

/** A value of a JSON type the schema does not allow, one per such type. */
function wrongTypeValues(schema: Schema, current: unknown): unknown[] {
  const samples: unknown[] = [null, true, 7, 1.5, typeof current === 'number' ? String(current) : '7', [], {}];
  return samples.filter((v) => !typeAllowed(schema, v));
}

const BAD_FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2026-02-30T10:00:00Z',
  date: '2026-13-01',
  time: '25:00:00Z',
  uuid: 'not-a-uuid',
  email: 'not-an-email',
  uri: 'no scheme here',
  url: 'no scheme here',
  hostname: '-bad-.example',
  ipv4: '256.1.1.1',
  byte: '***',
};

/**
 * Numbers just outside what the schema allows (its bounds, int32, and 2^53 for int64, which the
 * sandbox refuses on purpose), each checked to really be outside: near 2^53 a step can round away.
 */
export function outOfRange(schema: Schema, integral: boolean): { value: number; what: string }[] {
  const step = integral ? 1 : 0.5;
  const out: { value: number; what: string }[] = [];
  const min = schema.minimum;
  const max = schema.maximum;
  const below = (n: number) => (min ? (min.exclusive ? n <= min.value : n < min.value) : false);
  const above = (n: number) => (max ? (max.exclusive ? n >= max.value : n > max.value) : false);
  if (min) {
    const n = min.exclusive ? min.value : min.value - step;
    if (below(n)) out.push({ value: n, what: `below the ${min.exclusive ? 'exclusive ' : ''}minimum ${min.value}` });
  }
  if (max) {
    const n = max.exclusive ? max.value : max.value + step;
    if (above(n)) out.push({ value: n, what: `above the ${max.exclusive ? 'exclusive ' : ''}maximum ${max.value}` });
  }
  if (schema.format === 'int32' && !(max && max.value < 2 ** 31)) out.push({ value: 2 ** 31, what: 'past int32' });
  if (schema.format === 'int32' && !(min && min.value > -(2 ** 31) - 1)) out.push({ value: -(2 ** 31) - 1, what: 'past int32' });
  if (schema.format === 'int64' && !(max && max.value < 2 ** 53))
    out.push({ value: 2 ** 53, what: 'past 2^53: an int64 the sandbox refuses on purpose' });
  if (schema.format === 'int64' && !(min && min.value > -(2 ** 53)))
    out.push({ value: -(2 ** 53), what: 'past -2^53: an int64 the sandbox refuses on purpose' });
  return out;
}

/** Every single mistake that can be planted in `value` (valid against `schema`) and where it shows. */
export function bodyMistakes(
  schema: Schema,
  value: unknown,
  options: ValueOptions,
  path: readonly Step[] = [],
  location = 'body',
): BodyMistake[] {
  if (schema.opaque) return [];
  const out: BodyMistake[] = [];
  const here = (kind: BodyMistakeKind, replacement: unknown, what: string) =>
    out.push({ kind, location, what: `${location} = ${JSON.stringify(replacement)} (${what})`, apply: setAt(path, replacement) });

  if (schema.types) {
    for (const wrong of wrongTypeValues(schema, value))
      here('body-wrong-type', wrong, `a ${jsonTypeOf(wrong)}, not ${[...schema.types].join(' or ')}`);
  }
  if (schema.enumValues) {
    const candidates: unknown[] = [];
    for (const v of schema.enumValues) {
      if (typeof v === 'string') candidates.push(`${v}_x`, v.toUpperCase(), `${v} `);
      if (typeof v === 'number') candidates.push(v + 1, v - 1);
      if (typeof v === 'boolean') candidates.push(!v);
    }
    const outside = candidates.find((c) => typeAllowed(schema, c) && !schema.enumValues?.some((v) => equalJson(v, c)));
    if (outside !== undefined) here('body-not-in-enum', outside, 'not one of the enum');
    return out; // an enum value has no other constraint worth breaking
  }
  if (typeof value === 'number') {
    const integral = schema.types ? !schema.types.has('number') : false;
    for (const { value: wrong, what } of outOfRange(schema, integral)) here('body-out-of-range', wrong, what);
    if (schema.multipleOf !== undefined && schema.multipleOf > 1) {
      const shifted = value + 1 <= (schema.maximum?.value ?? Infinity) ? value + 1 : value - 1;
      here('body-out-of-range', shifted, `not a multiple of ${schema.multipleOf}`);
    }
    if (integral && !Number.isInteger(value + 0.5)) here('body-wrong-type', value + 0.5, 'not a whole number');
  }
  if (typeof value === 'string') {
    const chars = [...value];
    if (schema.minLength > 0)
      here('body-string-length', chars.slice(0, schema.minLength - 1).join(''), `shorter than minLength ${schema.minLength}`);
    if (schema.maxLength !== undefined)
      here('body-string-length', value + 'x'.repeat(schema.maxLength + 1 - chars.length), `longer than maxLength ${schema.maxLength}`);
    const bad = schema.format ? BAD_FORMATS[schema.format] : undefined;
    if (bad !== undefined) here('body-bad-format', bad, `not a ${schema.format}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems > 0) here('body-item-count', value.slice(0, schema.minItems - 1), `fewer than minItems ${schema.minItems}`);
    if (schema.maxItems !== undefined && value.length > 0) {
      here(
        'body-item-count',
        [...value, ...Array.from({ length: schema.maxItems + 1 - value.length }, () => value[0])],
        `more than maxItems ${schema.maxItems}`,
      );
    }
    if (schema.uniqueItems && value.length > 0 && (schema.maxItems === undefined || value.length < schema.maxItems)) {
      here('body-item-count', [...value, value[0]], 'a repeated item where items are unique');
    }
    if (schema.items)
      value.forEach((item, i) => out.push(...bodyMistakes(schema.items as Schema, item, options, [...path, i], `${location}[${i}]`)));
  }
  if (isObject(value) && !Array.isArray(value)) {
    for (const name of schema.required) {
      if (!Object.hasOwn(value, name)) continue;
      out.push({
        kind: 'body-missing-required',
        location: `${location}.${name}`,
        message: 'is required',
        what: `${location}.${name} left out`,
        apply: deleteAt([...path, name]),
      });
    }
    if (schema.additionalProperties === false) {
      // prettier-ignore
      const name = ['unexpected', 'extra', 'unexpected_field_1'].find((n) => !schema.properties.has(n)) as string;
      out.push({
        kind: 'body-unknown-property',
        location: `${location}.${name}`,
        message: 'is not allowed',
        what: `${location}.${name} added`,
        apply: setAt([...path, name], 1),
      });
    }
    for (const [name, prop] of schema.properties) {
      if (Object.hasOwn(value, name)) out.push(...bodyMistakes(prop, value[name], options, [...path, name], `${location}.${name}`));
    }
  }
  return out;
}
