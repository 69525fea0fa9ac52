/**
 * The journal as HAR 1.2 (W3C Web Performance WG's HTTP Archive format, "HAR 1.2 Spec"), loadable by
 * browser dev tools and HAR viewers. What HAR has no field for travels in `_understudy` fields, as
 * the spec lets custom fields do when their names start with `_`.
 */

import { STATUS_CODES } from 'node:http';
import type { BodyView, JournalEntry } from './entry.js';
import { REDACTED } from './redaction.js';

export interface HarCreator {
  readonly name: string;
  readonly version: string;
}

interface NameValue {
  readonly name: string;
  readonly value: string;
}

const HTTP_VERSION = 'HTTP/1.1';

/** Header records as HAR's `{name, value}` list; a header joined from repeats (`a, b`) stays one. */
const nameValues = (headers: Readonly<Record<string, string>>): NameValue[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

/** `a=1&b=2` as decoded `{name, value}` pairs (`+` as a space, as forms send it). */
function pairs(text: string): NameValue[] {
  if (text === '') return [];
  try {
    return [...new URLSearchParams(text)].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** Cookies by name, values redacted: all of a `Cookie` header's, the first pair of a `Set-Cookie` (the rest are attributes). */
const cookiesOf = (header: string | undefined, setCookie = false): NameValue[] =>
  (header ?? '')
    .split(';')
    .slice(0, setCookie ? 1 : undefined)
    .map((pair) => pair.trim())
    .filter((pair) => pair.includes('='))
    .map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: REDACTED }));

/**
 * HAR wants an absolute URL (`new URL(entry.request.url)` in Chrome's importer): the request's own
 * Host, over plain HTTP as the sandbox serves it.
 */
const urlOf = (entry: JournalEntry): string =>
  entry.outbound === undefined
    ? `http://${entry.request.headers.host ?? 'localhost'}${entry.path}${entry.query === '' ? '' : `?${entry.query}`}`
    : // A request the sandbox sent went to the URL its delivery names (query redacted as the entry's is).
      `${new URL(entry.outbound.url).origin}${entry.path}${entry.query === '' ? '' : `?${entry.query}`}`;

function postData(body: BodyView | undefined): Record<string, unknown> | undefined {
  if (!body) return undefined;
  const mimeType = body.mimeType ?? 'application/octet-stream';
  const form = /^application\/x-www-form-urlencoded\b/i.test(mimeType) && body.encoding === undefined;
  return {
    mimeType,
    text: body.text,
    ...(form ? { params: pairs(body.text) } : {}),
    ...(body.encoding ? { _encoding: body.encoding } : {}),
  };
}

function content(body: BodyView | undefined, mimeType: string | undefined): Record<string, unknown> {
  if (!body) return { size: 0, mimeType: mimeType ?? 'x-unknown' };
  return {
    size: body.size,
    mimeType: body.mimeType ?? mimeType ?? 'x-unknown',
    text: body.text,
    ...(body.encoding ? { encoding: body.encoding } : {}),
  };
}

/** What HAR has no field for: the sandbox's own facts about the request. */
function custom(entry: JournalEntry): Record<string, unknown> {
  const truncated = [entry.request.body?.truncated ? 'request' : undefined, entry.response.body?.truncated ? 'response' : undefined];
  return {
    id: entry.id,
    sandboxTime: new Date(entry.time).toISOString(),
    ...(entry.operationId === undefined ? {} : { operationId: entry.operationId }),
    ...(entry.keyId === undefined ? {} : { keyId: entry.keyId }),
    ...(entry.keyName === undefined ? {} : { keyName: entry.keyName }),
    // The status the sandbox meant to answer, when a fault kept it from the client (`response.status` 0).
    ...(entry.received?.kind === 'nothing' ? { status: entry.status } : {}),
    ...(entry.code === undefined ? {} : { code: entry.code }),
    ...(entry.violations ? { violations: entry.violations } : {}),
    ...(entry.limit ? { limit: entry.limit } : {}),
    ...(entry.applied ? { applied: entry.applied } : {}),
    ...(entry.change === undefined ? {} : { change: entry.change }),
    ...(truncated.some(Boolean) ? { truncated: truncated.filter(Boolean) } : {}),
  };
}

/** The first `bytes` bytes of a body view: what a cut answer delivered of it. */
function cutBody(body: BodyView, bytes: number): BodyView {
  const whole = Buffer.from(body.text, body.encoding === 'base64' ? 'base64' : 'utf8');
  const shown = whole.subarray(0, bytes);
  return { ...body, size: bytes, text: body.encoding === 'base64' ? shown.toString('base64') : shown.toString('utf8') };
}

/**
 * The response as the client received it (HAR 1.2 has no field for a failed exchange; HAR writers
 * mark one with status 0 and the failure in `_error`): nothing for an answer a fault withheld, the
 * head and the bytes that came for a cut one, else the answer itself.
 */
function harResponse(entry: JournalEntry): Record<string, unknown> {
  const { response, received } = entry;
  if (received?.kind === 'nothing') {
    return {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _error: received.error,
    };
  }
  const cut = received?.kind === 'cut' ? received : undefined;
  const body = cut && response.body ? cutBody(response.body, cut.bodyBytes) : response.body;
  return {
    status: entry.status,
    statusText: STATUS_CODES[entry.status] ?? '',
    httpVersion: HTTP_VERSION,
    cookies: cookiesOf(response.headers['set-cookie'], true),
    headers: nameValues(response.headers),
    content: content(body, response.headers['content-type']),
    redirectURL: response.headers.location ?? '',
    headersSize: -1,
    bodySize: cut ? cut.bodyBytes : (response.body?.size ?? 0),
    ...(cut ? { _error: cut.error } : {}),
  };
}

/**
 * HAR's timings: the sandbox answers in process, so its own time and an injected delay are both
 * spent waiting for the first byte (`wait`); a dribbled body takes its spread to `receive`.
 */
function timings(entry: JournalEntry): { send: number; wait: number; receive: number } {
  const wait = entry.durationMs + (entry.applied?.delayMs ?? 0);
  return { send: 0, wait, receive: entry.received?.kind === 'spread' ? entry.received.receiveMs : 0 };
}

function harEntry(entry: JournalEntry): Record<string, unknown> {
  const { request } = entry;
  const requestPost = postData(request.body);
  const timing = timings(entry);
  return {
    // When the request started: the wall clock when it was answered, less the time it took (the record is made before any delay).
    startedDateTime: new Date(Math.round(entry.wallTime - entry.durationMs)).toISOString(),
    time: timing.send + timing.wait + timing.receive,
    request: {
      method: entry.method,
      url: urlOf(entry),
      httpVersion: HTTP_VERSION,
      cookies: cookiesOf(request.headers.cookie),
      headers: nameValues(request.headers),
      queryString: pairs(entry.query),
      ...(requestPost ? { postData: requestPost } : {}),
      // -1: not available (HAR 1.2 §request); the head's exact bytes are not kept.
      headersSize: -1,
      bodySize: request.body?.size ?? 0,
    },
    response: harResponse(entry),
    cache: {},
    timings: timing,
    _understudy: custom(entry),
  };
}

/** The archive of `entries`, given oldest first as HAR lists them. */
export function toHar(entries: readonly JournalEntry[], creator: HarCreator): Record<string, unknown> {
  return { log: { version: '1.2', creator: { name: creator.name, version: creator.version }, entries: entries.map(harEntry) } };
}
