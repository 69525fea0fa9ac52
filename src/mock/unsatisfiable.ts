import { escapePointerToken, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { followed } from '../schemas/document-schemas.js';
import { formatWithin } from './format-values.js';
import { matchesPattern } from './pattern-values.js';
import { formatted } from './realistic-values.js';
import { flatten, type Part } from './schema-parts.js';
import { seededFaker } from './seeded-faker.js';

/**
 * Schemas no value satisfies, found before anything is generated from them: an answer in such a
 * schema always breaks the contract, so the start can say why instead of serving one. Only what can
 * be decided from a schema's own keywords (and its `allOf` members) is reported; a schema reported
 * here is certainly empty, one not reported may still be.
 */
export interface UnsatisfiableSchema {
  /** Where the schema is, `$ref`s followed: `#/components/schemas/Stamp`. */
  readonly pointer: string;
  /** Why no value satisfies it: `minLength 10 is more than maxLength 5`. */
  readonly reason: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLES = ['items', 'additionalProperties', 'contains', 'additionalItems'];
const MAPS = ['properties', 'patternProperties'];

/**
 * The schemas reachable from the operations' responses (their content and headers), each with the
 * first reason it admits no value, in the order they are reached; each schema once.
 */
export function unsatisfiableSchemas(document: unknown): readonly UnsatisfiableSchema[] {
  const out: UnsatisfiableSchema[] = [];
  const seen = new Set<string>();
  const visit = (pointer: string): void => {
    const located = locate(document, pointer);
    if (located === undefined || seen.has(located.at)) return;
    seen.add(located.at);
    const { schema, at } = located;
    const reason = whyEmpty(document, schema, at);
    if (reason !== undefined) out.push({ pointer: at, reason });
    for (const key of LISTS) if (Array.isArray(schema[key])) schema[key].forEach((_, i) => visit(`${at}/${key}/${i}`));
    for (const key of SINGLES) if (isObject(schema[key])) visit(`${at}/${key}`);
    for (const key of MAPS) {
      const map = schema[key];
      if (isObject(map)) for (const name of Object.keys(map)) visit(`${at}/${key}/${escapePointerToken(name)}`);
    }
  };
  for (const pointer of responseSchemas(document)) visit(pointer);
  return out;
}

function locate(document: unknown, pointer: string): { schema: JsonObject; at: string } | undefined {
  try {
    const { value, pointer: at } = followed(document, pointer);
    return isObject(value) ? { schema: value, at } : undefined;
  } catch {
    return undefined; // An unresolvable reference is the loader's to report.
  }
}

/** The pointers of every response's content and header schemas, operation by operation. */
function responseSchemas(document: unknown): string[] {
  const out: string[] = [];
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const status of Object.keys(operation.responses)) {
        const where = `#/paths/${escapePointerToken(path)}/${method}/responses/${escapePointerToken(status)}`;
        const response = locate(document, where);
        if (response === undefined) continue;
        for (const key of ['content', 'headers']) {
          const entries = response.schema[key];
          if (!isObject(entries)) continue;
          for (const name of Object.keys(entries)) {
            const entry = locate(document, `${response.at}/${key}/${escapePointerToken(name)}`);
            if (entry?.schema.schema !== undefined) out.push(`${entry.at}/schema`);
          }
        }
      }
    }
  }
  return out;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Why no value satisfies the schema, from its own keywords and its `allOf` members; undefined when one may. */
function whyEmpty(document: unknown, schema: JsonObject, at: string): string | undefined {
  for (const [low, high] of [
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
    ['minProperties', 'maxProperties'],
  ] as const) {
    const [a, b] = [num(schema[low]), num(schema[high])];
    if (a !== undefined && b !== undefined && a > b) return `${low} ${a} is more than ${high} ${b}`;
  }
  return numberRange(schema) ?? listed(schema) ?? formatLength(schema) ?? closed(flatten(document, schema, at));
}

/** `minimum` above `maximum` (either exclusive, as a number in 3.1 or a flag in 3.0), or no multiple between them. */
function numberRange(schema: JsonObject): string | undefined {
  const low = num(schema.exclusiveMinimum) ?? num(schema.minimum);
  const high = num(schema.exclusiveMaximum) ?? num(schema.maximum);
  if (low === undefined || high === undefined) return undefined;
  const exclusive = (value: unknown): boolean => typeof value === 'number' || value === true;
  const open = exclusive(schema.exclusiveMinimum) || exclusive(schema.exclusiveMaximum);
  if (low > high || (open && low === high)) return `the range from ${low} to ${high} holds no number`;
  const step = num(schema.multipleOf);
  if (step !== undefined && step > 0 && !open && Math.ceil(low / step) * step > high)
    return `no multiple of ${step} lies from ${low} to ${high}`;
  return undefined;
}

/** An `enum` or `const` none of whose values has the schema's `type`. */
function listed(schema: JsonObject): string | undefined {
  const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (values === undefined || types === undefined) return undefined;
  if (schema.nullable === true && values.includes(null)) return undefined;
  if (values.some((value) => types.some((type) => ofType(value, type)))) return undefined;
  return `no value of its ${schema.const !== undefined ? 'const' : 'enum'} is of type ${types.join(' or ')}`;
}

function ofType(value: unknown, type: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'object') return isObject(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

/** A format whose values never have a length within the bounds (`format: date`, `maxLength: 8`). */
function formatLength(schema: JsonObject): string | undefined {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? Infinity;
  if (typeof schema.format !== 'string' || (min === 0 && max === Infinity)) return undefined;
  const faker = seededFaker(1, new Date(0));
  const natural = formatted(schema.format, faker);
  if (natural === undefined || formatWithin(schema.format, natural, faker, min, max, () => true) !== undefined) return undefined;
  return `no ${schema.format} is from ${min} to ${max} characters long`;
}

/** A required member that a part closed with `additionalProperties: false` does not allow. */
function closed(parts: readonly Part[]): string | undefined {
  const required = parts.flatMap(({ schema }) =>
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
  for (const { schema } of parts) {
    if (schema.additionalProperties !== false) continue;
    const names = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const patterns = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
    const missing = required.find((name) => !names.includes(name) && !patterns.some((p) => matchesPattern(p, name)));
    if (missing !== undefined) return `it requires ${missing}, which additionalProperties: false forbids`;
  }
  return undefined;
}
