/** A bounded record of recent requests, for QA to see what reached the sandbox and what it answered. */

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

export class Journal {
  private entries: JournalEntry[] = [];

  constructor(private readonly capacity: number) {}

  add(entry: JournalEntry): void {
    if (this.capacity === 0) return;
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** The newest `limit` entries, oldest first. */
  recent(limit: number): readonly JournalEntry[] {
    return this.entries.slice(-limit);
  }

  clear(): void {
    this.entries = [];
  }
}
