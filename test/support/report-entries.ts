import type { JournalEntry } from '../../src/journal/journal.js';
import type { Applied } from '../../src/vocabulary/exchange.js';

/** Journal entries for the report's unit tests: each row says only what matters to it. */

export const T0 = Date.parse('2026-11-22T10:00:00Z');
export const link = (id: string): string => `/__sandbox/requests/${id}`;

export interface Shape {
  readonly at?: number; // seconds after T0
  readonly method?: string;
  readonly path?: string;
  readonly query?: string;
  readonly op?: string;
  readonly status?: number;
  readonly code?: string;
  /** The key's id; null for a request without one. */
  readonly key?: string | null;
  readonly retryAfter?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly responseHeaders?: Record<string, string>;
  readonly violations?: readonly { location: string; message: string }[];
  readonly applied?: Applied;
  readonly lost?: boolean;
}

let counter = 0;
/** A journal entry as the journal builds it, with only what a row says. */
export function entry(shape: Shape, id = `r${++counter}`): JournalEntry {
  const status = shape.status ?? 200;
  return {
    id,
    time: T0 + (shape.at ?? 0) * 1000,
    wallTime: 0,
    method: shape.method ?? 'GET',
    path: shape.path ?? '/v1/pets',
    query: shape.query ?? '',
    ...(shape.op === undefined ? { operationId: 'listPets' } : shape.op === '' ? {} : { operationId: shape.op }),
    ...(shape.key === null ? {} : { keyId: shape.key ?? 'key_a' }),
    ...(shape.key === undefined ? { keyName: 'client-a' } : {}),
    workspace: 'ws_1',
    status,
    ...(shape.code === undefined ? {} : { code: shape.code }),
    durationMs: 1,
    request: {
      headers: shape.headers ?? {},
      ...(shape.body === undefined ? {} : { body: { size: shape.body.length, text: shape.body, truncated: false } }),
    },
    response: { headers: { ...(shape.retryAfter === undefined ? {} : { 'retry-after': shape.retryAfter }), ...shape.responseHeaders } },
    ...(shape.violations ? { violations: shape.violations } : {}),
    ...(shape.applied ? { applied: shape.applied } : {}),
    ...(shape.lost ? { received: { kind: 'nothing', error: 'ECONNRESET' } } : {}),
  } as JournalEntry;
}
/** Rows named by id: `['a', {...}]` keeps `a` as the entry's id. */
export const entries = (rows: readonly (readonly [string, Shape])[]): JournalEntry[] => rows.map(([id, shape]) => entry(shape, id));
export const ids = (refs: readonly { id: string }[]): string[] => refs.map((r) => r.id);
