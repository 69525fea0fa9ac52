import type { Row } from '../vocabulary/record.js';
import { unexpected, type Reply } from './redis-scripts.js';

/**
 * Records as they travel to and from Redis: JSON made here and stored byte for byte. A row is built
 * as the memory store's Collection builds it, `{ id, ...fields }` with a sent id dropped, so the same
 * write stores the same record (same keys, same order) in either store.
 */

/** The row's JSON, for a write that knows its id (put, replace, update). */
export const rowJson = (id: number, fields: Readonly<Record<string, unknown>>): string => JSON.stringify({ id, ...withoutId(fields) });

/** The fields' JSON without an id, for a create: its script puts `"id":…` in front once the counter gives one. */
export const bodyJson = (fields: Readonly<Record<string, unknown>>): string => JSON.stringify(withoutId(fields));

/** A stored record's JSON as a row: an object with a numeric id, or an error (never a guess). */
export function toRow(json: string): Row {
  const row: unknown = JSON.parse(json);
  if (typeof row !== 'object' || row === null || Array.isArray(row) || typeof (row as { id?: unknown }).id !== 'number')
    throw unexpected(json);
  return row as Row;
}

/** The JSON a script answered with: every 'ok' and 'stale' carries one. */
export function written(reply: Reply): string {
  if (reply.json === undefined) throw new Error(`a Redis record-store script answered ${reply.status} without a record`);
  return reply.json;
}

function withoutId(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { id: _ignored, ...rest } = fields;
  return rest;
}
