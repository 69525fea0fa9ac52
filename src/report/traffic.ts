/** Requests by operation and status: what the client called, and what it was answered. */

import type { JournalEntry } from '../journal/journal.js';

export interface TrafficRow {
  /** The operation reached; absent when none was (an unknown path, a wrong method). */
  readonly operationId?: string;
  readonly method: string;
  /** The path as sent, when no operation was reached. */
  readonly path?: string;
  readonly status: number;
  readonly count: number;
}

/** One row per operation (or unmatched method and path) and status, ordered by operation, then status. */
export function trafficOf(entries: readonly JournalEntry[]): readonly TrafficRow[] {
  const rows = new Map<string, { row: Omit<TrafficRow, 'count'>; count: number }>();
  for (const entry of entries) {
    const row =
      entry.operationId === undefined
        ? { method: entry.method, path: entry.path, status: entry.status }
        : { operationId: entry.operationId, method: entry.method, status: entry.status };
    const id = JSON.stringify(row);
    const held = rows.get(id);
    if (held) held.count += 1;
    else rows.set(id, { row, count: 1 });
  }
  // Operations first, by operationId; then the requests that reached none, by method and path.
  const name = (row: Omit<TrafficRow, 'count'>): string => row.operationId ?? `${row.method} ${row.path ?? ''}`;
  const unmatched = (row: Omit<TrafficRow, 'count'>): number => (row.operationId === undefined ? 1 : 0);
  return [...rows.values()]
    .map(({ row, count }) => ({ ...row, count }))
    .sort((a, b) => unmatched(a) - unmatched(b) || name(a).localeCompare(name(b)) || a.status - b.status);
}
