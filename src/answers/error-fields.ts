import { escapePointerToken, isArray, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { followed } from '../schemas/document-schemas.js';
import type { Violation } from '../vocabulary/errors.js';

/** What a field of an error schema means, read from its name and type. */
export type Meaning = 'code' | 'status' | 'message' | 'title' | 'type' | 'instance' | 'violations' | 'location' | 'nested';

/** One property of a schema: its name, where its schema is, and that schema (`$ref`s followed). */
export interface Field {
  readonly name: string;
  readonly pointer: string;
  readonly schema: JsonObject;
}

/** Normalised names (lower case, no `-`/`_`) by meaning. */
const STATUS = new Set(['status', 'statuscode', 'httpstatus', 'httpcode', 'httpstatuscode', 'statusnumber', 'errorstatus']);
const CODE = new Set(['code', 'errorcode', 'errortype', 'reason', 'errorkey', 'kind', 'errorid']);
const MESSAGE = new Set([
  'message',
  'msg',
  'detail',
  'description',
  'errordescription',
  'errormessage',
  'errordetail',
  'text',
  'summary',
  'explanation',
  'reasonphrase',
]);
const VIOLATIONS = new Set([
  'errors',
  'detail',
  'details',
  'violations',
  'invalidparams',
  'fielderrors',
  'validationerrors',
  'issues',
  'problems',
  'causes',
  'suberrors',
  'errordetails',
  'params',
]);
const LOCATION = new Set([
  'field',
  'path',
  'location',
  'loc',
  'param',
  'parameter',
  'name',
  'pointer',
  'property',
  'propertypath',
  'source',
  'key',
  'attribute',
  'target',
  'jsonpath',
]);
const NESTED = new Set(['error', 'fault', 'problem', 'err']);

const normal = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, '');

/** The JSON types a schema admits (`type`, or `object` for one with properties). */
export function typesOf(schema: JsonObject): readonly string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if (isObject(schema.properties) || isArray(schema.allOf)) return ['object'];
  if (isObject(schema.items)) return ['array'];
  return [];
}

const numeric = (types: readonly string[]): boolean => types.includes('integer') || types.includes('number');

/**
 * What each field of an error schema means. A name says it (`message`, `statusCode`, `errors`),
 * refined by the type: an integer `code` or `error_code` is the HTTP status, an object `error` a
 * nested error to fill the same way, an array `details` the violations. `error` as a string is the
 * code when a sibling carries the message (OAuth's `error` and `error_description`), else the
 * message. In an RFC 9457 body `type`, `title` and `instance` have the RFC's meaning.
 */
export function meanings(fields: readonly Field[], problem: boolean): Map<string, Meaning> {
  const out = new Map<string, Meaning>();
  for (const field of fields) {
    const meaning = meaningOf(field, problem);
    if (meaning !== undefined) out.set(field.name, meaning);
  }
  const hasMessage = [...out.values()].includes('message');
  for (const field of fields) {
    const name = normal(field.name);
    const types = typesOf(field.schema);
    if (out.has(field.name)) continue;
    if (name === 'error' && (types.length === 0 || types.includes('string'))) out.set(field.name, hasMessage ? 'code' : 'message');
    else if (name === 'title') out.set(field.name, hasMessage ? 'title' : 'message');
  }
  return out;
}

function meaningOf(field: Field, problem: boolean): Meaning | undefined {
  const name = normal(field.name);
  const types = typesOf(field.schema);
  if (problem && (name === 'type' || name === 'title' || name === 'instance')) return name;
  if (problem && name === 'detail') return 'message';
  if (STATUS.has(name)) return 'status';
  if (CODE.has(name) || name === 'type') return numeric(types) ? 'status' : 'code';
  if (NESTED.has(name) && types.includes('object')) return 'nested';
  if (MESSAGE.has(name) && !types.includes('array') && !types.includes('object')) return 'message';
  if (VIOLATIONS.has(name) && types.includes('array')) return 'violations';
  if (name === 'details' && types.includes('string')) return 'message';
  return undefined;
}

/** What a field of a violation (an item of `errors`) means: where, what, or a code. */
export function violationMeaning(field: Field): Meaning | undefined {
  const name = normal(field.name);
  const types = typesOf(field.schema);
  if (LOCATION.has(name)) return 'location';
  if (MESSAGE.has(name) || name === 'error' || name === 'title') return types.includes('object') ? undefined : 'message';
  if (STATUS.has(name)) return 'status';
  if (CODE.has(name) || name === 'type') return numeric(types) ? 'status' : 'code';
  return undefined;
}

/** A violation's location as a field of the given types: a string, or the path as a list (FastAPI's `loc`). */
export function locationValue(violation: Violation, types: readonly string[]): unknown {
  if (types.includes('array')) return violation.location.split('.');
  return violation.location;
}

/** The properties of a schema, through `allOf` members, each with its pointer and schema. */
export function fieldsOf(document: unknown, pointer: string, depth = 0): Field[] {
  const { value: schema, pointer: at } = followed(document, pointer);
  if (!isObject(schema)) return [];
  const out: Field[] = [];
  const seen = new Set<string>();
  if (isObject(schema.properties)) {
    for (const name of Object.keys(schema.properties)) {
      const propertyPointer = `${at}/properties/${escapePointerToken(name)}`;
      const resolved = followed(document, propertyPointer).value;
      seen.add(name);
      out.push({ name, pointer: propertyPointer, schema: isObject(resolved) ? resolved : {} });
    }
  }
  if (isArray(schema.allOf) && depth < 8) {
    schema.allOf.forEach((_, i) => {
      for (const field of fieldsOf(document, `${at}/allOf/${i}`, depth + 1)) {
        if (!seen.has(field.name)) {
          seen.add(field.name);
          out.push(field);
        }
      }
    });
  }
  return out;
}

/** Whether a schema is closed to properties it does not name. */
export function isClosed(document: unknown, pointer: string): boolean {
  const schema = followed(document, pointer).value;
  return isObject(schema) && schema.additionalProperties === false;
}

/** Whether the schema looks like RFC 9457's: at least three of its five members. */
export function looksLikeProblem(fields: readonly Field[]): boolean {
  const names = new Set(fields.map((f) => f.name));
  return ['type', 'title', 'status', 'detail', 'instance'].filter((n) => names.has(n)).length >= 3;
}

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2);

/**
 * The member of a string enum that shares most words with what the error says (`NOT_FOUND` for
 * `resource_not_found`, `invalid_request_error` for a refused request), or undefined when none shares one.
 */
export function closestMember(members: readonly unknown[], said: readonly string[]): string | undefined {
  const wanted = new Set(said.flatMap(words));
  let best: string | undefined;
  let score = 0;
  for (const member of members) {
    if (typeof member !== 'string') continue;
    const shared = words(member).filter((w) => wanted.has(w)).length;
    if (shared > score) [best, score] = [member, shared];
  }
  return best;
}
