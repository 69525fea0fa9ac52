/** A bounded record of recent requests, for QA to see what reached the sandbox and what it answered. */

import type { Exchange } from '../vocabulary/exchange.js';

export interface JournalEntry {
  readonly id: string;
  /** Sandbox clock, Unix milliseconds. */
  readonly time: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly operationId: string | undefined;
  readonly status: number;
  readonly code: string | undefined;
  /** The key's safe id, never the key. */
  readonly keyId: string | undefined;
  readonly durationMs: number;
}

/** A ring buffer: adding is O(1) however full it is, since it runs on every request. */
export class Journal {
  private entries: (JournalEntry | undefined)[] = [];
  private next = 0;
  private count = 0;

  constructor(private readonly capacity: number) {}

  add(entry: JournalEntry): void {
    if (this.capacity === 0) return;
    this.entries[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** The newest `limit` entries, oldest first. */
  recent(limit: number): readonly JournalEntry[] {
    const n = Math.min(limit, this.count);
    const out: JournalEntry[] = [];
    for (let i = n; i > 0; i--) out.push(this.entries[(this.next - i + this.capacity) % this.capacity] as JournalEntry);
    return out;
  }

  clear(): void {
    this.entries = [];
    this.next = 0;
    this.count = 0;
  }
}

/** What the journal keeps of an exchange: never the key, only its id. */
export function toJournalEntry(exchange: Exchange, time: number): JournalEntry {
  const { request, response } = exchange;
  const body = response.body as { code?: string } | undefined;
  return {
    id: request.id,
    time,
    method: request.method,
    path: request.path,
    query: request.query,
    operationId: exchange.operationId,
    status: response.status,
    code: response.status >= 400 ? body?.code : undefined,
    keyId: exchange.keyId,
    durationMs: exchange.durationMs,
  };
}
