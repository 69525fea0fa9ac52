/** A bounded record of recent requests, for QA to see what reached the sandbox and what it answered. */

import { buildEntry, type JournalEntry } from './entry.js';
import { Evictions, type Dropped } from './evictions.js';
import type { JournalRecord } from './record.js';
import { BASE_REDACTION, type Redaction } from './redaction.js';

export type { JournalEntry } from './entry.js';
export type { Dropped } from './evictions.js';
export { toJournalEntry, type JournalRecord } from './record.js';

export type JournalListener = (record: JournalRecord) => void;

/** Which entries a clear removes: every one, or those of a key, or of a workspace. */
export interface JournalFilter {
  readonly keyId?: string | undefined;
  readonly workspace?: string | undefined;
}

/** A ring buffer: adding is O(1) however full it is, since it runs on every request. */
export class Journal {
  private ring: (JournalRecord | undefined)[] = [];
  private next = 0;
  private count = 0;
  private readonly views = new WeakMap<JournalRecord, JournalEntry>();
  private readonly listeners = new Set<JournalListener>();
  /** Records of requests another replica answered (their entries came built). */
  private readonly foreign = new WeakSet<JournalRecord>();
  private clearListener: ((only: JournalFilter) => void) | undefined;
  /** What a full ring pushed out, so that a reader (the report) can say what it cannot see. */
  private readonly evictions = new Evictions();

  constructor(
    private readonly capacity: number,
    private redaction: Redaction = BASE_REDACTION,
  ) {}

  /** What entries read from now on redact (a reload: the document's credential names, the config's secrets). */
  setRedaction(redaction: Redaction): void {
    this.redaction = redaction;
  }

  /**
   * Whether a record added now would be kept or seen: false for a journal of size 0 that nobody is
   * streaming or waiting on, so the request path need not build one.
   */
  wants(): boolean {
    return this.capacity > 0 || this.listeners.size > 0;
  }

  add(record: JournalRecord): void {
    if (this.capacity > 0) {
      const evicted = this.count === this.capacity ? this.ring[this.next] : undefined;
      if (evicted !== undefined) this.evictions.note(evicted.exchange.keyId, evicted.exchange.workspace, evicted.time);
      this.ring[this.next] = record;
      this.next = (this.next + 1) % this.capacity;
      this.count = Math.min(this.count + 1, this.capacity);
    }
    // Listeners (streams, waiting verifications) defer their own work: this runs on the request path.
    if (this.listeners.size > 0) for (const listener of this.listeners) listener(record);
  }

  /**
   * Adds an entry that came built: one of a request another replica answered (sharing one Redis),
   * listed, matched, streamed and verified like this replica's own; or, `own`, one of a request this
   * replica sent (a webhook attempt), which the other replicas are sent like its answered ones.
   */
  addEntry(entry: JournalEntry, origin: 'foreign' | 'own' = 'foreign'): void {
    const record: JournalRecord = {
      exchange: {
        request: { id: entry.id, method: entry.method, path: entry.path, query: entry.query, headers: entry.request.headers },
        response: { status: entry.status, headers: entry.response.headers },
        operationId: entry.operationId,
        keyId: entry.keyId,
        workspace: entry.workspace,
        durationMs: entry.durationMs,
      },
      time: entry.time,
      wallTime: entry.wallTime,
    };
    if (origin === 'foreign') this.foreign.add(record);
    this.views.set(record, entry);
    this.add(record);
  }

  /** Whether another replica answered this request. */
  isForeign(record: JournalRecord): boolean {
    return this.foreign.has(record);
  }

  /** Told of every clear (the replicas pass it on to each other). */
  onClear(listener: (only: JournalFilter) => void): void {
    this.clearListener = listener;
  }

  /** Every record kept, oldest first. */
  records(): readonly JournalRecord[] {
    const out: JournalRecord[] = [];
    for (let i = this.count; i > 0; i--) out.push(this.ring[(this.next - i + this.capacity) % this.capacity] as JournalRecord);
    return out;
  }

  /** The redacted view of a record, built on first read and kept while the record is. */
  view(record: JournalRecord): JournalEntry {
    let entry = this.views.get(record);
    if (!entry) {
      entry = buildEntry(record, this.redaction);
      this.views.set(record, entry);
    }
    return entry;
  }

  /** Every entry kept, newest first. */
  entries(): readonly JournalEntry[] {
    return this.records()
      .map((record) => this.view(record))
      .reverse();
  }

  /** The newest `limit` entries, oldest first. */
  recent(limit: number): readonly JournalEntry[] {
    return this.entries().slice(0, limit).reverse();
  }

  /** How many entries the journal keeps at most (`journalSize`). */
  get retention(): number {
    return this.capacity;
  }

  /**
   * What the journal dropped to keep within `journalSize`, of a key, of a workspace, or in all:
   * the requests older than every one it still keeps. A clear forgets the tallies it clears.
   */
  dropped(only: JournalFilter = {}): Dropped {
    return this.evictions.of(only);
  }

  /** Calls `listener` with each record added from now on; the function returned stops it. */
  subscribe(listener: JournalListener): () => void {
    const own = (record: JournalRecord): void => listener(record);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  /** Forgets every entry, or only those of the key with this id, or of this workspace. Returns how many were forgotten. */
  clear(only: JournalFilter = {}): number {
    const { keyId, workspace } = only;
    this.clearListener?.(only);
    this.evictions.forget(only);
    const kept =
      keyId === undefined && workspace === undefined
        ? []
        : this.records().filter(
            (r) => (keyId !== undefined && r.exchange.keyId !== keyId) || (workspace !== undefined && r.exchange.workspace !== workspace),
          );
    const removed = this.count - kept.length;
    this.ring = [...kept];
    this.count = kept.length;
    this.next = this.capacity === 0 ? 0 : kept.length % this.capacity;
    return removed;
  }
}
