import type { Redis } from 'ioredis';
import type { Journal, JournalEntry, JournalRecord } from '../journal/journal.js';

/** How long one blocking read of the stream waits for new entries. */
const BLOCK_MS = 1_000;
/** After a failed read (Redis down), the pause before the next try: the loop must not spin. */
const RETRY_MS = 200;

/**
 * The journal shared by the replicas: each replica appends the entries of the requests it answered
 * to one capped Redis stream (batched: one pipeline per turn of the event loop, off the request
 * path), and reads the stream for the entries of the others, which it adds to its own journal. So
 * the journal, its stream, `verify` and the HAR on any replica hold every replica's requests.
 */
export class JournalMirror {
  private outbox: string[] = [];
  private lastId = '0-0';
  private running = false;
  private stopped: Promise<void> = Promise.resolve();

  constructor(
    private readonly journal: Journal,
    private readonly redis: Redis,
    private readonly reader: Redis,
    private readonly prefix: string,
    private readonly origin: string,
    /** The stream keeps about this many entries (the journal's size). */
    private readonly capacity: number,
  ) {}

  private get key(): string {
    return `${this.prefix}journal`;
  }

  /** Loads the entries the stream holds, then follows it and sends this replica's own. */
  async start(): Promise<void> {
    const history = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', this.capacity)).reverse();
    for (const [id, fields] of history) {
      this.lastId = id;
      const entry = entryOf(fields);
      if (entry) this.journal.addEntry(entry);
    }
    this.journal.subscribe((record) => this.sent(record));
    this.running = true;
    this.stopped = this.follow();
  }

  /** Empties the stream (a full clear or a reset). */
  async clear(): Promise<void> {
    await this.redis.del(this.key);
  }

  async stop(): Promise<void> {
    this.running = false;
    // A read blocked for up to a second ends now.
    this.reader.disconnect();
    await this.stopped;
  }

  private sent(record: JournalRecord): void {
    if (this.journal.isForeign(record) || this.capacity === 0) return;
    this.outbox.push(JSON.stringify(this.journal.view(record)));
    if (this.outbox.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    const pipeline = this.redis.pipeline();
    for (const entry of batch) pipeline.xadd(this.key, 'MAXLEN', '~', this.capacity, '*', 'origin', this.origin, 'entry', entry);
    // While Redis is down, these entries stay in this replica's journal only.
    pipeline.exec().catch(() => undefined);
  }

  /** Read through a call: `stop()` may have run while a read was awaited. */
  private stillRunning(): boolean {
    return this.running;
  }

  private async follow(): Promise<void> {
    while (this.running) {
      try {
        const read = await this.reader.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, this.lastId);
        for (const [, items] of read ?? []) {
          for (const [id, fields] of items) {
            this.lastId = id;
            if (fields[1] === this.origin) continue;
            const entry = entryOf(fields);
            if (entry) this.journal.addEntry(entry);
          }
        }
      } catch {
        // Stopped (the reader was disconnected), or Redis is down: try again shortly, if still running.
        if (this.stillRunning()) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}

/** The entry a stream item carries (`origin`, `entry` fields), or undefined for one that does not parse. */
function entryOf(fields: readonly string[]): JournalEntry | undefined {
  const at = fields.indexOf('entry');
  try {
    return at === -1 ? undefined : (JSON.parse(fields[at + 1] ?? '') as JournalEntry);
  } catch {
    return undefined;
  }
}
