/**
 * The JSON Schemas of an OpenAPI document, normalized for generation: `$ref`s followed (through
 * src/spec/json-pointer.ts), `allOf` merged, 3.0 `nullable` and 3.1 type lists read as one set of
 * JSON types. A schema that uses a keyword the fuzzer cannot generate values for is refused with
 * `Unsupported`, so the operation is reported as skipped instead of being fuzzed with values that
 * may not be valid: the suite never guesses.
 */
import { follow, isObject, type JsonObject } from '../../src/openapi/json-pointer.js';
import type { SchemaDialect } from '../../src/openapi/schema-dialect.js';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export const JSON_TYPES: readonly JsonType[] = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];

export class Unsupported extends Error {}

export interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
}

export interface Schema {
  /** Where it came from, for messages. */
  readonly where: string;
  /** The JSON types allowed; undefined: any (no `type` keyword). */
  readonly types: ReadonlySet<JsonType> | undefined;
  /** `enum`, or `[const]`. */
  readonly enumValues: readonly unknown[] | undefined;
  readonly minimum: Bound | undefined;
  readonly maximum: Bound | undefined;
  readonly multipleOf: number | undefined;
  readonly format: string | undefined;
  readonly minLength: number;
  readonly maxLength: number | undefined;
  readonly pattern: string | undefined;
  readonly items: Schema | undefined;
  readonly minItems: number;
  readonly maxItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly properties: ReadonlyMap<string, Schema>;
  readonly required: ReadonlySet<string>;
  /** false: no other property; true: anything; a schema: other properties by that schema. */
  readonly additionalProperties: boolean | Schema;
  readonly readOnly: boolean;
  /**
   * Generated from, never broken: the fuzzer does not claim to know every way a value inside an
   * `anyOf` can be wrong, so it plants no mistakes there.
   */
  readonly opaque: boolean;
}

/** Keywords that constrain nothing. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'example',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'xml',
  'externalDocs',
  '$comment',
  'nullable',
  'format',
  'contentMediaType',
  'contentEncoding',
]);

/** Keywords this module turns into generators and mistakes. */
const HANDLED = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
]);

/** Formats with a generator for valid values (ajv-formats, plus the OpenAPI numeric ones). */
export const STRING_FORMATS = new Set([
  'date-time',
  'date',
  'time',
  'uuid',
  'email',
  'uri',
  'url',
  'hostname',
  'ipv4',
  'byte',
  'password',
  'binary',
]);
export const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

const MAX_DEPTH = 12;

const any = (where: string): Schema => ({
  where,
  types: undefined,
  enumValues: undefined,
  minimum: undefined,
  maximum: undefined,
  multipleOf: undefined,
  format: undefined,
  minLength: 0,
  maxLength: undefined,
  pattern: undefined,
  items: undefined,
  minItems: 0,
  maxItems: undefined,
  uniqueItems: false,
  properties: new Map(),
  required: new Set(),
  additionalProperties: true,
  readOnly: false,
  opaque: false,
});

const num = (value: unknown, where: string, keyword: string): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Unsupported(`${where}: ${keyword} is not a number`);
  return value;
};

/**
 * The schema at `pointer` (a JSON pointer into the document, `$ref`s followed), normalized.
 * @param dialect `3.0` reads `nullable` and boolean `exclusiveMinimum`; `2020-12` (3.1, 3.2) reads type lists.
 */
export function schemaFor(document: unknown, dialect: SchemaDialect, pointer: string | undefined): Schema {
  if (pointer === undefined) return any('(no schema)');
  const { value, pointer: at } = follow(document, pointer);
  return normalize(document, dialect, value, at, 0);
}

function normalize(document: unknown, dialect: SchemaDialect, raw: unknown, where: string, depth: number): Schema {
  if (depth > MAX_DEPTH) throw new Unsupported(`${where}: schema nested more than ${MAX_DEPTH} deep (recursive?)`);
  if (raw === true || raw === undefined) return any(where);
  if (!isObject(raw)) throw new Unsupported(`${where}: not a schema object`);
  if (typeof raw.$ref === 'string') {
    const { $ref: ref, ...siblings } = raw;
    for (const key of Object.keys(siblings)) {
      if (!ANNOTATIONS.has(key) && !key.startsWith('x-')) throw new Unsupported(`${where}: $ref with the sibling keyword ${key}`);
    }
    const target = follow(document, ref);
    const resolved = normalize(document, dialect, target.value, target.pointer, depth + 1);
    return siblings.readOnly === true ? { ...resolved, readOnly: true } : resolved;
  }
  for (const key of Object.keys(raw)) {
    if (!ANNOTATIONS.has(key) && !HANDLED.has(key) && !key.startsWith('x-')) throw new Unsupported(`${where}: keyword ${key}`);
  }
  const s = raw as JsonObject;
  let types: Set<JsonType> | undefined;
  if (typeof s.type === 'string' || Array.isArray(s.type)) {
    const list = (Array.isArray(s.type) ? s.type : [s.type]) as unknown[];
    types = new Set();
    for (const t of list) {
      if (!JSON_TYPES.includes(t as JsonType)) throw new Unsupported(`${where}: type ${String(t)}`);
      types.add(t as JsonType);
    }
    if (dialect === '3.0' && s.nullable === true) types.add('null');
  } else if (s.type !== undefined) throw new Unsupported(`${where}: type is neither a name nor a list`);

  const format = typeof s.format === 'string' ? s.format : undefined;
  if (format !== undefined && !STRING_FORMATS.has(format) && !NUMBER_FORMATS.has(format))
    throw new Unsupported(`${where}: format ${format}`);

  const bound = (plain: unknown, exclusive: unknown, keyword: string): Bound | undefined => {
    if (typeof exclusive === 'boolean') {
      // OpenAPI 3.0 (draft 4 style): a flag on minimum / maximum.
      const value = num(plain, where, keyword);
      return value === undefined ? undefined : { value, exclusive };
    }
    const ex = num(exclusive, where, `exclusive ${keyword}`);
    const inc = num(plain, where, keyword);
    if (ex !== undefined && inc !== undefined) throw new Unsupported(`${where}: both ${keyword} and its exclusive form`);
    if (ex !== undefined) return { value: ex, exclusive: true };
    return inc === undefined ? undefined : { value: inc, exclusive: false };
  };
  const multipleOf = num(s.multipleOf, where, 'multipleOf');
  if (multipleOf !== undefined && (!Number.isInteger(multipleOf) || multipleOf <= 0))
    throw new Unsupported(`${where}: multipleOf ${multipleOf} (only whole numbers)`);

  const properties = new Map<string, Schema>();
  if (s.properties !== undefined) {
    if (!isObject(s.properties)) throw new Unsupported(`${where}: properties is not a mapping`);
    for (const name of Object.keys(s.properties)) {
      const child = follow(document, `${where}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      properties.set(name, normalize(document, dialect, child.value, child.pointer, depth + 1));
    }
  }
  let additionalProperties: boolean | Schema = true;
  if (s.additionalProperties === false) additionalProperties = false;
  else if (isObject(s.additionalProperties)) {
    const child = follow(document, `${where}/additionalProperties`);
    additionalProperties = normalize(document, dialect, child.value, child.pointer, depth + 1);
  }
  let items: Schema | undefined;
  if (s.items !== undefined) {
    if (!isObject(s.items)) throw new Unsupported(`${where}: items is not a schema (tuple form)`);
    const child = follow(document, `${where}/items`);
    items = normalize(document, dialect, child.value, child.pointer, depth + 1);
  }
  let enumValues: unknown[] | undefined;
  if (Array.isArray(s.enum)) enumValues = [...s.enum];
  if ('const' in s) enumValues = enumValues ? enumValues.filter((v) => equalJson(v, s.const)) : [s.const];
  if (enumValues !== undefined && enumValues.length === 0) throw new Unsupported(`${where}: an enum no value satisfies`);
  const count = (value: unknown, keyword: string): number | undefined => {
    const n = num(value, where, keyword);
    if (n !== undefined && (!Number.isInteger(n) || n < 0)) throw new Unsupported(`${where}: ${keyword} ${n}`);
    return n;
  };

  let schema: Schema = {
    where,
    types,
    enumValues,
    minimum: bound(s.minimum, s.exclusiveMinimum, 'minimum'),
    maximum: bound(s.maximum, s.exclusiveMaximum, 'maximum'),
    multipleOf,
    format,
    minLength: count(s.minLength, 'minLength') ?? 0,
    maxLength: count(s.maxLength, 'maxLength'),
    pattern: typeof s.pattern === 'string' ? s.pattern : undefined,
    items,
    minItems: count(s.minItems, 'minItems') ?? 0,
    maxItems: count(s.maxItems, 'maxItems'),
    uniqueItems: s.uniqueItems === true,
    properties,
    required: new Set(Array.isArray(s.required) ? s.required.map(String) : []),
    additionalProperties,
    readOnly: s.readOnly === true,
    opaque: false,
  };
  if (Array.isArray(s.allOf)) {
    s.allOf.forEach((_, i) => {
      const member = follow(document, `${where}/allOf/${i}`);
      schema = merge(schema, normalize(document, dialect, member.value, member.pointer, depth + 1));
    });
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = s[keyword];
    if (!Array.isArray(branches)) continue;
    // A value valid for one oneOf branch may match another too, which oneOf forbids: only a single
    // branch is safe to generate from without a validator, which would make the suite agree with
    // the sandbox by construction.
    if (keyword === 'oneOf' && branches.length !== 1) throw new Unsupported(`${where}: oneOf with ${branches.length} branches`);
    if (branches.length === 0) throw new Unsupported(`${where}: empty ${keyword}`);
    const first = follow(document, `${where}/${keyword}/0`);
    schema = {
      ...merge(schema, normalize(document, dialect, first.value, first.pointer, depth + 1)),
      opaque: keyword === 'anyOf' || schema.opaque,
    };
  }
  return schema;
}

function merge(a: Schema, b: Schema): Schema {
  const where = a.where;
  let types: Set<JsonType> | undefined;
  if (a.types && b.types) {
    types = new Set([...a.types].filter((t) => b.types?.has(t) || (t === 'integer' && b.types?.has('number'))));
    if (b.types.has('integer') && a.types.has('number')) types.add('integer');
    if (types.size === 0) throw new Unsupported(`${where}: allOf members allow no common type`);
  } else types = a.types ? new Set(a.types) : b.types ? new Set(b.types) : undefined;
  let enumValues = a.enumValues ?? b.enumValues;
  if (a.enumValues && b.enumValues) {
    enumValues = a.enumValues.filter((v) => b.enumValues?.some((w) => equalJson(v, w)));
    if (enumValues.length === 0) throw new Unsupported(`${where}: allOf members share no enum value`);
  }
  const stricter = (x: Bound | undefined, y: Bound | undefined, lower: boolean): Bound | undefined => {
    if (!x) return y;
    if (!y) return x;
    if (x.value === y.value) return { value: x.value, exclusive: x.exclusive || y.exclusive };
    return (lower ? x.value > y.value : x.value < y.value) ? x : y;
  };
  const same = <T>(x: T | undefined, y: T | undefined, keyword: string): T | undefined => {
    if (x !== undefined && y !== undefined && x !== y) throw new Unsupported(`${where}: allOf members with different ${keyword}`);
    return x ?? y;
  };
  const properties = new Map(a.properties);
  for (const [name, schema] of b.properties) {
    const mine = properties.get(name);
    properties.set(name, mine ? merge(mine, schema) : schema);
  }
  let additionalProperties: boolean | Schema;
  const closed = (x: Schema, y: Schema): boolean =>
    x.additionalProperties === false && [...y.properties.keys()].some((n) => !x.properties.has(n));
  if (closed(a, b) || closed(b, a))
    throw new Unsupported(`${where}: allOf member with additionalProperties false and another member's properties`);
  if (a.additionalProperties === false || b.additionalProperties === false) additionalProperties = false;
  else if (typeof a.additionalProperties === 'object' && typeof b.additionalProperties === 'object')
    throw new Unsupported(`${where}: two additionalProperties schemas`);
  else additionalProperties = typeof a.additionalProperties === 'object' ? a.additionalProperties : b.additionalProperties;
  const maxOf = (x: number | undefined, y: number | undefined) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  return {
    where,
    types,
    enumValues,
    minimum: stricter(a.minimum, b.minimum, true),
    maximum: stricter(a.maximum, b.maximum, false),
    multipleOf: same(a.multipleOf, b.multipleOf, 'multipleOf'),
    format: same(a.format, b.format, 'format'),
    minLength: Math.max(a.minLength, b.minLength),
    maxLength: maxOf(a.maxLength, b.maxLength),
    pattern: same(a.pattern, b.pattern, 'pattern'),
    items: a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items),
    minItems: Math.max(a.minItems, b.minItems),
    maxItems: maxOf(a.maxItems, b.maxItems),
    uniqueItems: a.uniqueItems || b.uniqueItems,
    properties,
    required: new Set([...a.required, ...b.required]),
    additionalProperties,
    readOnly: a.readOnly || b.readOnly,
    opaque: a.opaque || b.opaque,
  };
}

/** JSON equality with object keys in any order (as JSON Schema's enum, const and uniqueItems judge). */
export function equalJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The JSON type of a value as JSON Schema sees it (an integral number is an integer). */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/** Whether a value's JSON type is one the schema allows (`number` admits integers). */
export function typeAllowed(schema: Schema, value: unknown): boolean {
  if (!schema.types) return true;
  const type = jsonTypeOf(value);
  return schema.types.has(type) || (type === 'integer' && schema.types.has('number'));
}

/** The types to generate values of: the declared ones, else inferred from the keywords used. */
export function typesToGenerate(schema: Schema): JsonType[] {
  if (schema.types) return [...schema.types];
  if (schema.properties.size > 0 || schema.required.size > 0 || schema.additionalProperties !== true) return ['object'];
  if (schema.items) return ['array'];
  if (schema.pattern !== undefined || schema.minLength > 0 || schema.maxLength !== undefined) return ['string'];
  if (schema.minimum || schema.maximum || schema.multipleOf) return ['number'];
  if (schema.format && STRING_FORMATS.has(schema.format)) return ['string'];
  if (schema.format && NUMBER_FORMATS.has(schema.format)) return [schema.format.startsWith('int') ? 'integer' : 'number'];
  return ['string', 'integer', 'boolean', 'null', 'object', 'array'];
}
