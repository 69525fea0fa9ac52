import { chooseMediaType } from '../validation/accept.js';
import { essence, isJsonType, mediaKind } from '../validation/media-type.js';
import { buildXml } from '../validation/xml-answer.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { MediaSpec } from '../vocabulary/operation.js';
import { remembered } from '../vocabulary/remembered.js';
import type { AnswerPlan } from './plan.js';
import { encodeItems, sequenceOf } from './stream-answer.js';

/** An answer ready for its headers: its body encoded where it is not JSON, and its media type. */
export interface EncodedAnswer {
  readonly response: SandboxResponse;
  /** The Content-Type to send, when the answer does not set one itself; undefined: JSON. */
  readonly contentType: string | undefined;
}

/** The media type keys of a declared content list, listed once (the same array each time: `chooseMediaType` remembers by it). */
const NO_CONTENT: readonly MediaSpec[] = [];
const keyLists = new WeakMap<readonly MediaSpec[], readonly string[]>();
function keysOf(declared: readonly MediaSpec[]): readonly string[] {
  let keys = keyLists.get(declared);
  if (keys === undefined) keyLists.set(declared, (keys = declared.map((m) => m.mediaType)));
  return keys;
}

/**
 * A 406 when `Accept` rules out every media type the operation's success response is declared in
 * (RFC 9110 §15.5.7), else undefined. An operation whose success has no content, or a request
 * with no `Accept`, is always acceptable.
 */
export function notAcceptable(plan: AnswerPlan, accept: string | undefined): ErrorBody | undefined {
  if (accept === undefined) return undefined;
  const declared = plan.success;
  if (declared.length === 0 || chooseMediaType(declared, accept) !== undefined) return undefined;
  return errorBody(
    'not_acceptable',
    `Accept ${accept.slice(0, 100)} rules out every type this operation answers in: ${declared.join(', ')}`,
  );
}

/**
 * The header value for a chosen type: JSON and text say UTF-8 unless the key names a charset. A type a
 * document declares (or, for a wildcard key, one Accept names): a handful, each worked out once.
 */
const headerValue = remembered(256, (chosen) => contentTypeOf(chosen));

function contentTypeOf(chosen: string): string {
  const kind = mediaKind(chosen);
  const named = chosen.includes(';') ? chosen.replace(/\s*;\s*/g, '; ') : chosen;
  if (/;\s*charset=/i.test(chosen)) return named;
  if (essence(chosen) === 'application/json' || kind === 'text' || kind === 'xml') return `${named}; charset=utf-8`;
  return named;
}

/** Bytes of a binary answer: a string of bytes (one character each, as request bodies are read) or, failing that, UTF-8. */
const bytesOf = (text: string): Buffer => Buffer.from(text, /[\u0100-\uffff]/.test(text) ? 'utf8' : 'latin1');

/**
 * Decides an answer's media type among those the document declares for its status, and encodes
 * its body for that type. A success is answered in the type `Accept` prefers (`chooseMediaType`);
 * a declared type the answer already names (a generated answer's) is only the default when the
 * request has no `Accept`. The sandbox's own errors stay in its JSON Error shape whatever `Accept`
 * says (RFC 9110 §12.1 lets a server answer in a type not asked for), under a JSON type the
 * document declares for that status (`application/problem+json`) when it declares one, else
 * `application/json`. An answer naming a type the document does not declare keeps it.
 */
export function encodeAnswer(plan: AnswerPlan, response: SandboxResponse, accept: string | undefined): EncodedAnswer {
  if (response.body === undefined || response.encoded !== undefined) return { response, contentType: undefined };
  const declared = plan.responseFor(response.status)?.content ?? NO_CONTENT;
  const document = plan.schemas.document;
  const own = response.headers['content-type'];
  const ownKey = own === undefined ? undefined : declared.find((m) => essence(m.mediaType) === essence(own))?.mediaType;
  if (own !== undefined && ownKey === undefined) return encode(document, declared, response, own, undefined);
  const keys = keysOf(declared);
  let chosen: string | undefined;
  if (own === undefined && response.status >= 400) chosen = keys.find((k) => isJsonType(k));
  else if (ownKey !== undefined && accept === undefined) chosen = ownKey;
  else chosen = chooseMediaType(keys, accept) ?? ownKey ?? chooseMediaType(keys, undefined);
  if (chosen === undefined) return { response, contentType: undefined };
  return encode(document, declared, own === undefined ? response : withoutContentType(response), chosen, headerValue(chosen));
}

/** The answer without the type it named, which the chosen one replaces. */
function withoutContentType(response: SandboxResponse): SandboxResponse {
  const { 'content-type': _replaced, ...headers } = response.headers;
  return { ...response, headers };
}

function encode(
  document: unknown,
  declared: readonly MediaSpec[],
  response: SandboxResponse,
  chosen: string,
  contentType: string | undefined,
): EncodedAnswer {
  const kind = mediaKind(chosen);
  const body = response.body;
  // A sequence of items (an `itemSchema`, OpenAPI 3.2) in its media type's framing: stream-answer.ts.
  const framing = Array.isArray(body) ? sequenceOf(declared, chosen) : undefined;
  if (framing !== undefined) return { response: { ...response, encoded: encodeItems(framing, body as unknown[]) }, contentType };
  if (kind === 'json') return { response, contentType };
  let encoded: string | Uint8Array;
  if (typeof body === 'string') encoded = kind === 'binary' ? bytesOf(body) : body;
  else if (body instanceof Uint8Array) encoded = body;
  else if (kind === 'xml') encoded = buildXml(document, mediaFor(declared, chosen)?.schemaPointer, body);
  else encoded = JSON.stringify(body);
  return { response: { ...response, encoded }, contentType };
}

const mediaFor = (declared: readonly MediaSpec[], chosen: string): MediaSpec | undefined =>
  declared.find((m) => essence(m.mediaType) === essence(chosen)) ?? declared.find((m) => mediaKind(m.mediaType) === 'xml');
