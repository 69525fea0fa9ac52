import { KEY_FIELD, type Row } from '../vocabulary/record.js';
import { unexpected, type Reply } from './redis-scripts.js';

/**
 * Records as they travel to and from Redis: JSON made here and stored byte for byte. A write sends
 * the fields without `id` and key; its script puts the row number and key in front, as the memory
 * store's Collection builds a row (`{ id, __key, ...fields }`), so the same write stores the same
 * record (same keys, same order) in either store.
 */

/** The fields' JSON without an id or key: the script puts `"id":…` (and the key) in front. */
export const bodyJson = (fields: Readonly<Record<string, unknown>>): string => JSON.stringify(withoutId(fields));

/** A stored record's JSON as a row: an object with a numeric id, or an error (never a guess). */
export function toRow(json: string): Row {
  const row: unknown = JSON.parse(json);
  if (typeof row !== 'object' || row === null || Array.isArray(row) || typeof (row as { id?: unknown }).id !== 'number')
    throw unexpected(json);
  return row as Row;
}

/** The JSON a script answered with: every 'ok', 'stale' and 'taken' carries one. */
export function written(reply: Reply): string {
  if (reply.json === undefined) throw new Error(`a Redis record-store script answered ${reply.status} without a record`);
  return reply.json;
}

function withoutId(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { id: _ignored, [KEY_FIELD]: _key, ...rest } = fields;
  return rest;
}
