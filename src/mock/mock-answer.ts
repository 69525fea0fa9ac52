import { createHash } from 'node:crypto';
import { answerMedia, answerResponse, answerStatus, sendsJson } from '../openapi/bindings.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { MediaSpec, OperationSpec, ResponseSpec } from '../vocabulary/operation.js';
import { satisfies } from '../schemas/document-schemas.js';
import { seededFaker } from './seeded-faker.js';
import { generatedItems } from './stream-items.js';
import { fakeFromSchema } from './schema-faker.js';

export interface MockOptions {
  /** Serve a document's example even when it breaks its own schema (negative tests need that). */
  readonly serveInvalidExamples?: boolean;
}

/**
 * Headers the pipeline sets itself on every answer: a generated value must never hide the real one
 * (the limiter's counts, the page's Link, the request id).
 */
const PIPELINE_HEADERS =
  /^(x-ratelimit-.*|ratelimit(-policy)?|retry-after|link|deprecation|sunset|x-request-id|content-type|content-length|access-control-.*)$/;

/** Generation tries this many seeds for a value that satisfies its schema before giving up. */
const ATTEMPTS = 8;

/**
 * The answer to an operation with no state behind it, from the document. The status is one the
 * operation declares (the lowest 2xx, else `default`, else the first), the content type a declared
 * one (the first JSON-like, else the first), the body the example when it satisfies its schema,
 * else a value generated from the schema, and required headers (`Location`) are generated too.
 * Seeded from the sandbox seed and the operation: the same request always gets the same answer.
 */
export function mockAnswer(
  document: unknown,
  op: OperationSpec,
  seed: number,
  referenceDate: Date,
  options: MockOptions = {},
): SandboxResponse {
  const response = answerResponse(op.responses);
  const status = answerStatus(response);
  const opSeed = createHash('sha256').update(`${seed}:${op.id}`).digest().readUInt32BE(0);
  const generate = (pointer: string, attempt = 0, name?: string): unknown =>
    fakeFromSchema(document, pointer, seededFaker(opSeed + attempt, referenceDate), 0, name);
  const headers = requiredHeaders(response, generate);
  const media = answerMedia(response);
  // 204 and 304 never carry content (RFC 9110 §15.3.5, §15.4.5).
  if (!media || status === 204 || status === 304) return { status, headers };
  const typed = media.mediaType.includes('*') ? headers : { ...headers, 'content-type': contentType(media) };
  const body = bodyFor(document, media, options, generate);
  return body === undefined ? { status, headers: typed } : { status, headers: typed, body };
}

function bodyFor(
  document: unknown,
  media: MediaSpec,
  options: MockOptions,
  generate: (pointer: string, attempt?: number) => unknown,
): unknown {
  // A stream (an `itemSchema`, OpenAPI 3.2): its items, which the answer step frames for the media type.
  if (media.itemSchemaPointer !== undefined) return generatedItems(document, media.itemSchemaPointer, generate);
  const json = sendsJson(media);
  const usable = (value: unknown): boolean => json || typeof value === 'string';
  if (media.example && usable(media.example.value)) {
    if (options.serveInvalidExamples || satisfies(document, media.schemaPointer, media.example.value)) return media.example.value;
  }
  if (media.schemaPointer === undefined) return json ? undefined : '';
  let value: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    value = generate(media.schemaPointer, attempt);
    if (usable(value) && satisfies(document, media.schemaPointer, value)) return value;
  }
  // Never a JSON value for a type that is not JSON: a text type gets text.
  return usable(value) ? value : '';
}

/** `application/json` keeps the sandbox's charset; any other declared type is sent as declared. */
const contentType = (media: MediaSpec): string =>
  media.mediaType === 'application/json' ? 'application/json; charset=utf-8' : media.mediaType;

/**
 * The required headers of a declared response that `present` lacks, generated from their schemas
 * (deterministically from `seedText`): an error the sandbox sends under a response that requires a
 * header (`X-Trace` on `4XX`) carries one, as the document says.
 */
export function missingRequiredHeaders(
  document: unknown,
  response: ResponseSpec,
  present: Readonly<Record<string, string>>,
  seedText: () => string,
): Record<string, string> | undefined {
  const required = ownRequiredHeaders(response);
  if (required.length === 0 || required.every((h) => present[h.name] !== undefined)) return undefined;
  const seed = createHash('sha256').update(seedText()).digest().readUInt32BE(0);
  const generate = (pointer: string, _attempt = 0, name?: string): unknown =>
    fakeFromSchema(document, pointer, seededFaker(seed, new Date(0)), 0, name);
  return requiredHeaders({ ...response, headers: response.headers.filter((h) => present[h.name] === undefined) }, generate);
}

const ownRequired = new WeakMap<ResponseSpec, readonly ResponseSpec['headers'][number][]>();

/**
 * The required headers of a response the answer must carry itself, worked out once per response:
 * the pipeline's own (rate limits on a 401, say) are added later, so they are never missing.
 */
function ownRequiredHeaders(response: ResponseSpec): readonly ResponseSpec['headers'][number][] {
  let found = ownRequired.get(response);
  if (!found) ownRequired.set(response, (found = response.headers.filter((h) => h.required && !PIPELINE_HEADERS.test(h.name))));
  return found;
}

/** Required headers of the response, generated from their schemas (a `3xx`'s `Location`). */
function requiredHeaders(
  response: ResponseSpec | undefined,
  generate: (pointer: string, attempt?: number, name?: string) => unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of response?.headers ?? []) {
    if (!header.required || PIPELINE_HEADERS.test(header.name)) continue;
    const value =
      header.schemaPointer === undefined ? 'x' : generate(header.schemaPointer, 0, header.name === 'location' ? 'url' : header.name);
    headers[header.name] = typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  }
  return headers;
}
