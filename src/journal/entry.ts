/** The journal's view of one request: redacted, bodies capped, built only when it is read. */

import { receivedOf, type Received } from '../faults/received.js';
import type { Violation } from '../vocabulary/errors.js';
import type { Applied, LimitDecision, SandboxResponse } from '../vocabulary/exchange.js';
import { jsonText } from '../vocabulary/json-text.js';
import { describeChange } from '../vocabulary/record.js';
import type { JournalRecord } from './record.js';
import { redactHeaders, redactJson, redactPairs, scrub, type Redaction } from './redaction.js';

/** Most bytes of a body an entry shows; longer ones are cut and marked `truncated`. */
export const BODY_CAP = 64 * 1024;

export interface BodyView {
  /** The body's media type (its Content-Type), when one was sent. */
  readonly mimeType?: string;
  /** The whole body's size in bytes, whatever `text` holds of it. */
  readonly size: number;
  /** The body as UTF-8 text, or in base64 when `encoding` says so: at most `BODY_CAP` bytes of it, credentials redacted. */
  readonly text: string;
  readonly encoding?: 'base64';
  readonly truncated: boolean;
}

export interface MessageView {
  /** Header names in lower case, credentials redacted. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: BodyView;
}

export interface JournalEntry {
  /** The request's id, as its answer's `X-Request-Id` says. */
  readonly id: string;
  /** Sandbox clock when it was answered, Unix milliseconds. */
  readonly time: number;
  /** Wall clock when it was answered, Unix milliseconds. */
  readonly wallTime: number;
  readonly method: string;
  readonly path: string;
  /** The raw query, without `?`, credentials redacted. */
  readonly query: string;
  readonly operationId?: string;
  /** The key's safe id, never the key. */
  readonly keyId?: string;
  /** The key's name (`demo-free`), when it has one. */
  readonly keyName?: string;
  /** The caller's workspace. */
  readonly workspace: string;
  readonly status: number;
  /** The Error code answered (status 400 or more). */
  readonly code?: string;
  readonly durationMs: number;
  readonly request: MessageView;
  readonly response: MessageView;
  /** Every violation of a `validation_failed` answer. */
  readonly violations?: readonly Violation[];
  readonly limit?: LimitDecision;
  readonly applied?: Applied;
  /** What reached the client when a wire fault withheld, cut or spread the answer (`status` and `response` say what was meant). */
  readonly received?: Received;
  /** The store change the request made (`created pets/17`). */
  readonly change?: string;
  /** Present on a request the sandbox sent (a webhook or callback attempt), not one it answered. */
  readonly outbound?: OutboundView;
}

/** What an outbound entry adds: which delivery it is an attempt of, and how it ended. */
export interface OutboundView {
  /** `webhook` for a subscription's delivery, `callback` for an OpenAPI callback's. */
  readonly kind: 'webhook' | 'callback';
  /** The delivery's id (its `webhook-id`): `GET /__sandbox/webhooks/deliveries/{id}` has every attempt. */
  readonly delivery: string;
  readonly event: string;
  readonly url: string;
  /** 1 for the first attempt, counting retries and replays. */
  readonly attempt: number;
  readonly outcome: 'delivered' | 'failed' | 'refused' | 'timeout';
  /** Why it failed when no answer says (a refused connection, the allow-list, a timeout). */
  readonly error?: string;
  /** When the next attempt is due, on the workspace's sandbox clock; absent when none will follow. */
  readonly nextAttemptAt?: number;
  /** Set on an attempt made by a replay. */
  readonly replay?: true;
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The first `BODY_CAP` bytes, cut back to a whole UTF-8 character when the cut falls inside one. */
function capped(bytes: Uint8Array): Uint8Array {
  if (bytes.length <= BODY_CAP) return bytes;
  let end = BODY_CAP;
  while (end > BODY_CAP - 3 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

const isJson = (mime: string | undefined): boolean => mime !== undefined && /[/+]json\b/i.test(mime);
const isForm = (mime: string | undefined): boolean => mime !== undefined && /^application\/x-www-form-urlencoded\b/i.test(mime);

/** Bytes as a body view: text when they are UTF-8 (credential fields redacted), else base64. */
function bytesView(bytes: Uint8Array, size: number, mime: string | undefined, r: Redaction): BodyView {
  const shown = capped(bytes);
  const truncated = size > shown.length;
  const base = { ...(mime === undefined ? {} : { mimeType: mime }), size, truncated };
  let text: string;
  try {
    text = utf8.decode(shown);
  } catch {
    return { ...base, text: Buffer.from(shown).toString('base64'), encoding: 'base64' };
  }
  return { ...base, text: redactText(text, mime, truncated, r) };
}

/** A text body as an entry shows it: capped, credential fields redacted. */
export function textView(text: string, mime: string | undefined, r: Redaction): BodyView {
  const bytes = Buffer.from(text);
  return bytesView(bytes, bytes.length, mime, r);
}

function redactText(text: string, mime: string | undefined, truncated: boolean, r: Redaction): string {
  if (isForm(mime)) return redactPairs(text, r.fields, r);
  if (isJson(mime) && !truncated) {
    try {
      const parsed: unknown = JSON.parse(text);
      const redacted = redactJson(parsed, r);
      if (redacted !== parsed) return JSON.stringify(redacted);
    } catch {
      // Not JSON after all: shown as text, secrets scrubbed.
    }
  }
  return scrub(text, r);
}

function requestBody(record: JournalRecord, r: Redaction): BodyView | undefined {
  const body = record.exchange.requestBody;
  if (body === undefined || body.length === 0) return undefined;
  return bytesView(body, record.requestBodySize ?? body.length, record.exchange.request.headers['content-type'], r);
}

function responseBody(record: JournalRecord, r: Redaction): BodyView | undefined {
  const { body, encoded, headers } = record.exchange.response;
  const mime = headers['content-type'];
  if (encoded !== undefined) {
    const bytes = typeof encoded === 'string' ? Buffer.from(encoded) : encoded;
    return bytesView(bytes, bytes.length, mime, r);
  }
  if (body === undefined) return undefined;
  const bytes = Buffer.from(JSON.stringify(redactJson(body, r)));
  return bytesView(bytes, bytes.length, mime ?? 'application/json', r);
}

/** The Error code of an answer: its body's `code`, or the `X-Sandbox-Error` header of an error sent without a body. */
function errorCode(status: number, body: unknown, headers: Readonly<Record<string, string>>): string | undefined {
  if (status < 400) return undefined;
  if (isRecord(body) && typeof body.code === 'string') return body.code;
  const header = headers['x-sandbox-error'];
  return header === undefined ? undefined : header.split(':')[0];
}

/**
 * The rate-limit decision, read from the answer's own rate-limit headers (the limiter's, on every
 * counted request): nothing is computed for it on the request path.
 */
function limitOf(code: string | undefined, headers: Readonly<Record<string, string>>): LimitDecision | undefined {
  const limit = headers['x-ratelimit-limit'];
  const remaining = headers['x-ratelimit-remaining'];
  if (limit === undefined || remaining === undefined) return undefined;
  return { limit: Number(limit), remaining: Number(remaining), banned: code === 'key_banned' };
}

/** An answer's rate-limit decision, read as the journal reads it: the request log labels its 429s from the same reading. */
export const limitDecision = (response: SandboxResponse): LimitDecision | undefined =>
  limitOf(errorCode(response.status, response.body, response.headers), response.headers);

function violationsOf(code: string | undefined, body: unknown, r: Redaction): readonly Violation[] | undefined {
  if (code !== 'validation_failed' || !isRecord(body) || !Array.isArray(body.details)) return undefined;
  return body.details.filter(isRecord).map((d) => ({ location: String(d.location), message: scrub(String(d.message), r) }));
}

/** What the client received of an answer a wire fault changed: the edge's payload, as it measures it. */
function receivedOfAnswer(response: SandboxResponse, method: string): Received | undefined {
  const fault = response.delivery?.fault;
  if (fault === undefined) return undefined;
  const { encoded, body } = response;
  const length =
    encoded !== undefined
      ? typeof encoded === 'string'
        ? Buffer.byteLength(encoded)
        : encoded.byteLength
      : body === undefined
        ? 0
        : Buffer.byteLength(jsonText(body));
  return receivedOf(fault, length, method !== 'HEAD');
}

/** The view of a record: what QA reads and queries, with nothing secret in it. */
export function buildEntry(record: JournalRecord, r: Redaction): JournalEntry {
  const { exchange, time, wallTime } = record;
  const { request, response } = exchange;
  const code = errorCode(response.status, response.body, response.headers);
  const violations = violationsOf(code, response.body, r);
  const limit = limitOf(code, response.headers);
  const requestView = requestBody(record, r);
  const responseView = responseBody(record, r);
  const received = receivedOfAnswer(response, request.method);
  return {
    id: request.id,
    time,
    wallTime,
    method: request.method,
    path: scrub(request.path, r),
    query: redactPairs(request.query, r.query, r),
    ...(exchange.operationId === undefined ? {} : { operationId: exchange.operationId }),
    ...(exchange.keyId === undefined ? {} : { keyId: exchange.keyId }),
    ...(exchange.keyName === undefined ? {} : { keyName: exchange.keyName }),
    workspace: exchange.workspace,
    status: response.status,
    ...(code === undefined ? {} : { code }),
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
    request: { headers: redactHeaders(request.headers, r), ...(requestView ? { body: requestView } : {}) },
    response: { headers: redactHeaders(response.headers, r), ...(responseView ? { body: responseView } : {}) },
    ...(violations ? { violations } : {}),
    ...(limit ? { limit } : {}),
    ...(exchange.applied ? { applied: exchange.applied } : {}),
    ...(received ? { received } : {}),
    ...(exchange.change === undefined ? {} : { change: describeChange(exchange.change) }),
  };
}
