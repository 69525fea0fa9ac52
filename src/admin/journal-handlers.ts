import { readFileSync } from 'node:fs';
import type { KeyRegistry } from '../auth/key-registry.js';
import { PACKAGE_ROOT } from '../config/defaults.js';
import type { Generation } from '../generation/generation.js';
import type { Journal, JournalEntry } from '../journal/journal.js';
import { toHar } from '../journal/har.js';
import { compilePattern, type CompiledPattern, type RequestPattern } from '../journal/patterns.js';
import { journalStream, STREAM_PREAMBLE, type EventStream } from '../journal/sse.js';
import { countHolds, countLost, countMatching, describeCount, nearestMisses, waitUntil, type CountExpectation } from '../journal/verify.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { namedKey } from './named-key.js';

/** What the journal handlers read and change of the journal. */
export type JournalCapability = Pick<Journal, 'entries' | 'records' | 'view' | 'subscribe' | 'clear'>;

/**
 * What the journal handlers use: the journal, the keys to read a key given by value as its id, and
 * the served API's current generation, whose operations a pattern's path template names.
 */
export interface JournalHandlerCapabilities {
  readonly journal: JournalCapability;
  readonly keys: Pick<KeyRegistry, 'find' | 'byId' | 'byName'>;
  readonly api: () => Generation;
}

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

/** The most journal entries one listing returns. */
const MAX_LISTED = 10_000;

/**
 * Where the admin API is served (`ADMIN_PREFIX` in `admin-surface.ts`, which imports this file
 * through `handlers.ts`): its own requests are never offered as near misses of an API pattern.
 */
const ADMIN_PATH = '/__sandbox/';

const ok = (body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): SandboxResponse => ({ status, headers, body });

const invalid = (violations: readonly Violation[]): SandboxResponse => {
  const error = errorBody('validation_failed', `Invalid request: ${violations.map((v) => v.location).join(', ')}`, violations);
  return { status: error.status, headers: {}, body: error };
};

/** The version in the package's manifest, for HAR's `creator`. */
function packageVersion(): string {
  try {
    const manifest: unknown = JSON.parse(readFileSync(`${PACKAGE_ROOT}package.json`, 'utf8'));
    const version = typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : undefined;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** `since` (and the report's `from`, `to`): a sandbox-clock instant as Unix milliseconds (`1795341630000`) or ISO 8601 (`2026-11-22T10:00:30Z`). */
export function parseSince(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

interface Filters {
  readonly pattern: CompiledPattern;
  readonly since: number | undefined;
  /** `inbound` the requests answered, `outbound` the webhook and callback attempts sent, `all` both. */
  readonly direction: 'inbound' | 'outbound' | 'all';
}

/**
 * The requests the sandbox answered, without the ones it sent: counts, finds and verifications are
 * about what a client sent, and a webhook attempt is not a client's request.
 */
const inbound = (entries: readonly JournalEntry[]): readonly JournalEntry[] => entries.filter((entry) => entry.outbound === undefined);

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: SandboxResponse };

/**
 * The journal's admin operations. A key in a pattern or filter may be given by its value or by its
 * safe id; entries only ever hold the id.
 */
export function journalHandlers(c: JournalHandlerCapabilities): Readonly<Record<string, Handler>> {
  const creator = { name: 'Understudy', version: packageVersion() };
  // A key no longer known (issued before a reset) is matched by what was given.
  const keyId = (given: string): string => namedKey(c.keys, given)?.id ?? given;
  const withKeyId = (pattern: RequestPattern): RequestPattern =>
    pattern.key === undefined ? pattern : { ...pattern, key: keyId(pattern.key) };

  const compiled = (pattern: RequestPattern, at: string): Parsed<CompiledPattern> => {
    const { model, basePath } = c.api();
    const result = compilePattern(withKeyId(pattern), at, { operations: model.operations, basePath });
    return result.ok ? { ok: true, value: result.pattern } : { ok: false, response: invalid(result.violations) };
  };

  /** The listing filters of `GET /requests`, its stream and its HAR export, as a pattern and a lower bound on time. */
  const filters = (query: Readonly<Record<string, unknown>>): Parsed<Filters> => {
    // The document has checked each filter's type.
    const text = (name: string): string | undefined => query[name] as string | undefined;
    const since = text('since');
    const sinceMs = since === undefined ? undefined : parseSince(since);
    if (since !== undefined && sinceMs === undefined) {
      return { ok: false, response: invalid([{ location: 'query.since', message: 'must be Unix milliseconds or an ISO 8601 date-time' }]) };
    }
    const status = query.status as number | undefined;
    const pattern: RequestPattern = {
      ...(text('operationId') === undefined ? {} : { operationId: text('operationId') }),
      ...(text('method') === undefined ? {} : { method: text('method') }),
      ...(text('path') === undefined ? {} : { path: text('path') }),
      ...(status === undefined ? {} : { status }),
      ...(text('key') === undefined ? {} : { key: text('key') }),
      ...(text('workspace') === undefined ? {} : { workspace: text('workspace') }),
    };
    const result = compiled(pattern, 'query');
    const direction = (text('direction') ?? 'all') as Filters['direction'];
    return result.ok ? { ok: true, value: { pattern: result.value, since: sinceMs, direction } } : result;
  };

  const selected = (f: Filters) => (entry: JournalEntry) =>
    (f.since === undefined || entry.time >= f.since) &&
    (f.direction === 'all' || (f.direction === 'outbound') === (entry.outbound !== undefined)) &&
    f.pattern.matches(entry);

  return {
    listRequests: (input) => {
      const parsed = filters(input.query);
      if (!parsed.ok) return Promise.resolve(parsed.response);
      const limit = Math.min(input.query.limit as number, MAX_LISTED);
      return Promise.resolve(ok(c.journal.entries().filter(selected(parsed.value)).slice(0, limit)));
    },

    // One entry by its request id: where a report's findings link to.
    getRequest: (input) => {
      const id = input.path.id as string;
      const record = c.journal.records().find((r) => r.exchange.request.id === id);
      if (record) return Promise.resolve(ok(c.journal.view(record)));
      const error = errorBody('resource_not_found', 'No journal entry has this id: the journal never held it, or dropped or cleared it');
      return Promise.resolve({ status: error.status, headers: {}, body: error });
    },

    countRequests: (input) => {
      const pattern = compiled(input.body as RequestPattern, 'body');
      if (!pattern.ok) return Promise.resolve(pattern.response);
      return Promise.resolve(ok({ count: countMatching(inbound(c.journal.entries()), pattern.value) }));
    },

    findRequests: (input) => {
      const pattern = compiled(input.body as RequestPattern, 'body');
      if (!pattern.ok) return Promise.resolve(pattern.response);
      return Promise.resolve(ok(inbound(c.journal.entries()).filter((entry) => pattern.value.matches(entry))));
    },

    verifyRequests: async (input) => verify(c.journal, input, (pattern) => compiled(pattern, 'body.pattern')),

    clearRequests: (input) => {
      const key = input.query.key as string | undefined;
      const workspace = input.query.workspace as string | undefined;
      return Promise.resolve(ok({ removed: c.journal.clear({ keyId: key === undefined ? undefined : keyId(key), workspace }) }));
    },

    streamRequests: (input) => {
      const parsed = filters(input.query);
      if (!parsed.ok) return Promise.resolve(parsed.response);
      // A reconnecting client names the last event it saw, and is sent what it missed first.
      const lastEventId = input.headers['last-event-id'] as string | undefined;
      const stream: EventStream = journalStream(c.journal, selected(parsed.value), { lastEventId });
      // `stream` is the edge's cue to keep the answer open after the preamble.
      const response: SandboxResponse = {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
        body: STREAM_PREAMBLE,
        stream,
      };
      return Promise.resolve(response);
    },

    // The listing's filters, the same way: an export of one key's or one workspace's requests.
    exportHar: (input) => {
      const parsed = filters(input.query);
      if (!parsed.ok) return Promise.resolve(parsed.response);
      const har = toHar(c.journal.entries().filter(selected(parsed.value)).reverse(), creator);
      return Promise.resolve(ok(har, 200, { 'content-disposition': 'attachment; filename="understudy.har"' }));
    },
  };
}

interface VerifyBody {
  readonly pattern: RequestPattern;
  readonly count: CountExpectation;
  readonly withinMs?: number;
}

/**
 * `POST /requests/verify`: 200 with the count when it holds, at once or within `withinMs` as
 * requests arrive; else 422 `verification_failed` with the count and the three nearest misses, as
 * soon as the count is over `exactly` or `atMost` (it can never come down) or the window is over.
 */
async function verify(
  journal: JournalCapability,
  input: ValidInput,
  compile: (pattern: RequestPattern) => Parsed<CompiledPattern>,
): Promise<SandboxResponse> {
  const { pattern: given, count: expected, withinMs = 0 } = input.body as VerifyBody;
  const countProblem = checkExpectation(expected);
  if (countProblem) return invalid([countProblem]);
  const pattern = compile(given);
  if (!pattern.ok) return pattern.response;
  const count = (): number => countMatching(inbound(journal.entries()), pattern.value);
  await waitUntil(
    () => countHolds(count(), expected),
    (onAddition) => journal.subscribe(onAddition),
    withinMs,
    // Counts only grow: one already over `exactly` or `atMost` is answered at once, not after the window.
    () => countLost(count(), expected),
  );
  const entries = inbound(journal.entries());
  const found = countMatching(entries, pattern.value);
  if (countHolds(found, expected)) return ok({ count: found });
  const candidates = entries.filter((entry) => !entry.path.startsWith(ADMIN_PATH));
  const error = errorBody('verification_failed', `Expected ${describeCount(expected)} matching requests, found ${found}`);
  return {
    status: error.status,
    headers: {},
    body: { ...error, count: found, expected, nearestMisses: nearestMisses(candidates, pattern.value) },
  };
}

/** What the document cannot say of `count`: `exactly` alone, and a range that is not empty. */
function checkExpectation(expected: CountExpectation): Violation | undefined {
  if (expected.exactly !== undefined && (expected.atLeast !== undefined || expected.atMost !== undefined)) {
    return { location: 'body.count', message: 'exactly cannot be combined with atLeast or atMost' };
  }
  if (expected.atLeast !== undefined && expected.atMost !== undefined && expected.atLeast > expected.atMost) {
    return { location: 'body.count', message: 'atLeast must not be more than atMost' };
  }
  return undefined;
}
