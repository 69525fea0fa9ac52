import { createHash } from 'node:crypto';
import { declaredResponse } from '../openapi/bindings.js';
import { escapePointerToken, follow, isArray, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { requiredOf } from '../openapi/required.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { satisfies } from './document-schemas.js';
import { missingRequiredHeaders } from './mock-answer.js';
import { fakeFromSchema } from './schema-faker.js';
import { seededFaker } from './seeded-faker.js';

/**
 * The sandbox's errors in the API's own error shape. The sandbox answers every refusal with its
 * catalogue's `{code, message, status, details}`; when the operation declares a JSON schema for that
 * status (exactly, `4XX`, or `default`) and the body does not satisfy it, the same facts are moved
 * into the document's fields: a field named like a code (`code`, `error`, `type`, `reason`) takes
 * the code, one named like a message (`message`, `detail`, `error_description`, `title`, …) the
 * message, one named like a status the status, in the type the schema gives it (GitHub's `status`
 * is a string); the catalogue's own fields stay where the schema lets them; required fields with no
 * counterpart are generated from their schemas. If even that cannot satisfy the schema, the
 * catalogue's shape is sent as it is.
 *
 * Where the response the operation declares for that status has no content at all (GitHub's bare
 * `404`, a 2.0 `default` with no schema), the error is sent with no body, as the document says, and
 * its code and message travel in an `X-Sandbox-Error` header instead (the journal keeps the request).
 */
export function inDocumentShape(document: unknown, op: OperationSpec, response: SandboxResponse): SandboxResponse {
  const body = response.body;
  if (response.status < 400 || !isObject(body) || typeof body.code !== 'string') return response;
  const declared = declaredResponse(op.responses, response.status);
  if (declared === undefined) return response;
  // Headers the declared response requires (an `X-Trace` on `4XX`), generated when the error lacks them.
  const extra = missingRequiredHeaders(document, declared, response.headers, () => `${op.id}:${declared.status}`);
  const given = extra === undefined ? response : { ...response, headers: { ...response.headers, ...extra } };
  if (declared.content.length === 0) {
    const message = typeof body.message === 'string' ? `: ${body.message}` : '';
    return { status: response.status, headers: { ...given.headers, 'x-sandbox-error': headerText(`${body.code}${message}`) } };
  }
  const media = declared.content.find((m) => m.mediaType.includes('json')) ?? declared.content[0];
  const pointer = media?.schemaPointer;
  if (pointer === undefined || satisfies(document, pointer, body)) return given;
  const shaped = reshape(document, pointer, body, response.status);
  return shaped !== undefined && satisfies(document, pointer, shaped) ? { ...given, body: shaped } : given;
}

/** Longest `X-Sandbox-Error` value sent. */
const HEADER_TEXT_LIMIT = 300;

/** Text safe in a header field: visible ASCII and spaces only (RFC 9110 §5.5), bounded. */
function headerText(text: string): string {
  const safe = text.replace(/[^\x20-\x7e]/g, '?');
  return safe.length > HEADER_TEXT_LIMIT ? `${safe.slice(0, HEADER_TEXT_LIMIT - 3)}...` : safe;
}

type Source = 'code' | 'message' | 'status' | 'details';

/** Field names (lower case, no separators) that mean one of the catalogue's fields. */
const ALIASES: Readonly<Record<string, Source>> = {
  code: 'code',
  error: 'code',
  errorcode: 'code',
  type: 'code',
  reason: 'code',
  message: 'message',
  msg: 'message',
  detail: 'message',
  details: 'details',
  description: 'message',
  errordescription: 'message',
  errormessage: 'message',
  title: 'message',
  status: 'status',
  statuscode: 'status',
  httpstatus: 'status',
  errors: 'details',
  violations: 'details',
};

function reshape(document: unknown, pointer: string, body: JsonObject, status: number): Record<string, unknown> | undefined {
  const { value: schema, pointer: at } = follow(document, pointer);
  if (!isObject(schema)) return undefined;
  const properties = propertyPointers(document, schema, at);
  const closed = schema.additionalProperties === false;
  const out: Record<string, unknown> = {};
  if (!closed) for (const [name, value] of Object.entries(body)) if (!properties.has(name)) out[name] = value;
  const faker = seededFaker(createHash('sha256').update(`${pointer}:${status}`).digest().readUInt32BE(0), new Date(0));
  for (const [name, propertyPointer] of properties) {
    const source = ALIASES[name.toLowerCase().replace(/[-_]/g, '')];
    const raw = Object.hasOwn(body, name) ? body[name] : source === undefined ? undefined : body[source];
    if (raw === undefined) continue;
    const coerced = coerce(raw, follow(document, propertyPointer).value);
    out[name] =
      coerced !== undefined && satisfies(document, propertyPointer, coerced) ? coerced : fakeFromSchema(document, propertyPointer, faker);
  }
  for (const name of requiredOf(document, pointer)) {
    const propertyPointer = properties.get(name);
    if (!Object.hasOwn(out, name) && propertyPointer !== undefined) out[name] = fakeFromSchema(document, propertyPointer, faker);
  }
  return out;
}

/** The value in the JSON type the schema asks for, when one reading of it fits. */
function coerce(raw: unknown, schema: unknown): unknown {
  const types = isObject(schema) ? (isArray(schema.type) ? schema.type : [schema.type]) : [];
  if (types.length === 0 || types[0] === undefined) return raw;
  if (types.includes(typeof raw === 'number' ? (Number.isInteger(raw) ? 'integer' : 'number') : typeof raw)) return raw;
  if (types.includes('number') && typeof raw === 'number') return raw;
  if (types.includes('string') && (typeof raw === 'number' || typeof raw === 'boolean')) return String(raw);
  if ((types.includes('integer') || types.includes('number')) && typeof raw === 'string' && /^\d+$/.test(raw)) return Number(raw);
  if (types.includes('string') && isArray(raw))
    return raw.map((d) => (isObject(d) ? `${String(d.location)}: ${String(d.message)}` : String(d))).join('; ');
  if (types.includes('array') && !isArray(raw)) return [raw];
  return undefined;
}

/** Property name → pointer of its schema, through `allOf` members. */
function propertyPointers(document: unknown, schema: JsonObject, at: string, depth = 0): Map<string, string> {
  const out = new Map<string, string>();
  if (isObject(schema.properties))
    for (const name of Object.keys(schema.properties)) out.set(name, `${at}/properties/${escapePointerToken(name)}`);
  if (isArray(schema.allOf) && depth < 8) {
    schema.allOf.forEach((_, i) => {
      const member = follow(document, `${at}/allOf/${i}`);
      if (isObject(member.value))
        for (const [name, p] of propertyPointers(document, member.value, member.pointer, depth + 1)) if (!out.has(name)) out.set(name, p);
    });
  }
  return out;
}
