import { createReadStream } from 'node:fs';
import { appendFile, open, readFile, rename, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Row } from '../vocabulary/record.js';
import type { CapturedRecords } from './record-store.js';

/**
 * When the log is flushed to the disk (`fsync`), as Redis's AOF does it:
 * - `always`: before each group of writes is acknowledged; nothing acknowledged is lost even if the
 *   machine loses power;
 * - `everysec`: once a second; a process crash loses nothing acknowledged (the bytes are in the
 *   kernel), a power loss at most the last second;
 * - `no`: when the kernel decides; a process crash loses nothing, a power loss an unknown amount.
 */
export type FsyncPolicy = 'always' | 'everysec' | 'no';

/** One change, as a line of the log. Each is idempotent: applied twice, it leaves the same state. */
export type LogOp =
  /** A workspace's own copy of a collection begins, with these records (its copy of the seed). */
  | { readonly op: 'adopt'; readonly w: string; readonly c: string; readonly rows: readonly Row[] }
  /** A record stored under its id (created or replaced). */
  | { readonly op: 'put'; readonly w: string; readonly c: string; readonly row: Row }
  /**
   * A record removed: by its row number, and by its key where the collection is keyed (`k`); `n`, the
   * row number the next record takes (so that a restart never gives a deleted record's number again).
   */
  | { readonly op: 'del'; readonly w: string; readonly c: string; readonly id: number; readonly k?: string; readonly n?: number }
  /** One workspace back to the seed. */
  | { readonly op: 'forget'; readonly w: string }
  /** A workspace's own collections become exactly these, each with its next row number (a snapshot restored). */
  | { readonly op: 'restore'; readonly w: string; readonly records: CapturedRecords }
  /** What the sandbox keeps beside the records (issued keys, workspaces, clocks). */
  | { readonly op: 'keep'; readonly value: unknown };

/** What the files held at start: the last snapshot, and how many changes were logged after it. */
export interface Recovered {
  readonly snapshot: unknown;
  readonly changes: number;
  /** A last line cut short by a crash, dropped (its write was never acknowledged). */
  readonly tornBytes: number;
}

/** Compaction: a snapshot is written once the log is past this size and past the last snapshot's. */
const COMPACT_MIN_BYTES = 8 * 1024 * 1024;

/**
 * The whole state, for a snapshot: taken at once when called (a consistent copy, cheap: lists of
 * the same row objects), and written as the chunks it yields, a piece of the JSON text each.
 */
export type StateChunks = () => Iterable<string>;

/**
 * The durable side of the store: a snapshot (`FILE`, the whole state as JSON, written aside and
 * renamed into place) and an append-only log of the changes since (`FILE.log`, one JSON line per
 * change). A write costs one append whatever the store's size; every change made in the same turn of
 * the event loop goes out in one append (group commit), and each is acknowledged only once that
 * append is done (and flushed, under `always`). When the log outgrows the snapshot, a new snapshot
 * is written in the background, as Redis rewrites its AOF: the state is taken at once, written out
 * a chunk per turn of the event loop while writes go on being appended, and the changes appended
 * meanwhile start the new log.
 */
export class DataLog {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private logBytes: number;
  private snapshotBytes: number;
  private dirty = false;
  private readonly timer: NodeJS.Timeout | undefined;
  /** While a snapshot is being written: the lines appended since its state was taken (the next log). */
  private carry: string[] | undefined;
  private compacting: Promise<void> | undefined;

  private constructor(
    private readonly file: string,
    private handle: FileHandle,
    private readonly fsync: FsyncPolicy,
    sizes: { readonly log: number; readonly snapshot: number },
    private readonly state: StateChunks,
  ) {
    this.logBytes = sizes.log;
    this.snapshotBytes = sizes.snapshot;
    if (fsync === 'everysec') {
      this.timer = setInterval(() => void this.sync(), 1000);
      this.timer.unref();
    }
  }

  /**
   * Reads what the files hold: the snapshot handed to `onSnapshot` (null when there is none), then
   * each logged change to `onChange` as it is read (the log is streamed, never held whole). A last
   * log line cut short by a crash is dropped (and cut from the file, so the next append starts
   * clean); any other line that does not parse stops the start, with both files left untouched.
   */
  static async recover(file: string, onSnapshot: (snapshot: unknown) => void, onChange: (op: LogOp) => void): Promise<Recovered> {
    const snapshotText = await readIfThere(file);
    let snapshot: unknown = null;
    if (snapshotText !== undefined) {
      try {
        snapshot = JSON.parse(snapshotText);
      } catch (error) {
        throw new Error(`the data file ${file} cannot be read (${(error as Error).message}); it was left untouched`, { cause: error });
      }
    }
    onSnapshot(snapshot);
    const log = `${file}.log`;
    let changes = 0;
    let line = 0;
    /** Bytes read, and of them the whole lines': where a torn last line begins. */
    let read = 0;
    let whole = 0;
    let rest = '';
    const apply = (op: LogOp): void => {
      onChange(op);
      changes++;
    };
    try {
      for await (const chunk of createReadStream(log, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
        const lines = (rest + (chunk as string)).split('\n');
        rest = lines.pop() ?? '';
        // A chunk's whole lines in one parse (one call per line costs twice as much on a long log);
        // line by line only when that fails, to find the line.
        const parsed = parseOps(lines);
        for (let i = 0; i < lines.length; i++) {
          line++;
          // A line ended by its newline was written whole: one that does not parse is corruption.
          const op = parsed ? parsed[i] : parseOp(lines[i] as string);
          if (!isOp(op)) throw corrupt(log, line);
          apply(op);
        }
        read += Buffer.byteLength(chunk as string);
        whole = read - Buffer.byteLength(rest);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { snapshot, changes: 0, tornBytes: 0 };
      throw error;
    }
    if (rest === '') return { snapshot, changes, tornBytes: 0 };
    const last = parseOp(rest);
    if (isOp(last)) {
      apply(last);
      // A whole change whose newline was not written: complete it, so the next append starts a line.
      await appendFile(log, '\n');
      return { snapshot, changes, tornBytes: 0 };
    }
    // Only the last line can be torn: it was being appended when the process died, and never acknowledged.
    await truncate(log, whole);
    return { snapshot, changes, tornBytes: Buffer.byteLength(rest) };
  }

  /** Opens the log for appending, after `recover` and the replay. */
  static async open(file: string, fsync: FsyncPolicy, state: StateChunks): Promise<DataLog> {
    const handle = await open(`${file}.log`, 'a');
    const [log, snapshot] = await Promise.all([handle.stat(), readIfThere(file)]);
    return new DataLog(file, handle, fsync, { log: log.size, snapshot: snapshot === undefined ? 0 : Buffer.byteLength(snapshot) }, state);
  }

  /** Logs a change; resolves once it is appended (and flushed, under `always`). */
  append(op: LogOp): Promise<void> {
    this.pending.push(JSON.stringify(op));
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // Every change made in this turn of the event loop goes out in the same append.
    if (this.pending.length === 1) queueMicrotask(() => void this.flush());
    return done;
  }

  /**
   * Replaces the log by a snapshot of the whole state as it is now (after a reset, the log would
   * only replay what it erases; at start, after a replay), and resolves once it is in place. Writes
   * go on meanwhile. One compaction at a time: a second asked for meanwhile waits for the first.
   */
  async compact(): Promise<void> {
    while (this.compacting) await this.compacting;
    this.compacting = this.rewrite().finally(() => (this.compacting = undefined));
    await this.compacting;
  }

  /**
   * The state is taken after every change made so far is in the log; the snapshot is written aside
   * a chunk at a time while appends go on (to the old log, and kept for the new one); then, with
   * appends held for a moment, the snapshot is renamed into place and the new log, holding only
   * what was appended since the state was taken, replaces the old. A crash at any point leaves a
   * snapshot and a log that replay to every acknowledged change: before the snapshot's rename, the
   * old pair; after it, the new snapshot with the old log, whose changes are replayed again in order
   * (each sets what it names, so the last one wins as it did).
   */
  private async rewrite(): Promise<void> {
    await this.idle();
    const chunks = this.state();
    this.carry = [];
    let size = 0;
    try {
      const tmp = await open(`${this.file}.tmp`, 'w');
      try {
        for (const chunk of chunks) {
          await tmp.write(chunk);
          size += Buffer.byteLength(chunk);
          // Requests are answered between chunks.
          await nextTurn();
        }
        await tmp.sync();
      } finally {
        await tmp.close();
      }
      // The swap: appends wait for it as for any other write.
      await this.idle();
      const swap = this.swap(size);
      this.flushing = swap.finally(() => {
        this.flushing = undefined;
        if (this.pending.length > 0) void this.flush();
      });
      await swap;
    } finally {
      this.carry = undefined;
    }
  }

  private async swap(snapshotBytes: number): Promise<void> {
    await rename(`${this.file}.tmp`, this.file);
    const text = this.carry && this.carry.length > 0 ? `${this.carry.join('\n')}\n` : '';
    await writeFile(`${this.file}.log.tmp`, text, { flush: true });
    await rename(`${this.file}.log.tmp`, `${this.file}.log`);
    await this.handle.close();
    this.handle = await open(`${this.file}.log`, 'a');
    this.logBytes = Buffer.byteLength(text);
    this.snapshotBytes = snapshotBytes;
  }

  /** Flushes what is pending and closes the file (after a compaction under way). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    while (this.compacting) await this.compacting.catch(() => undefined);
    await this.idle();
    await this.sync();
    await this.handle.close();
  }

  /** Resolves once nothing is pending or being written. */
  private async idle(): Promise<void> {
    while (this.flushing !== undefined || this.pending.length > 0) await (this.flushing ?? this.flush());
  }

  private flush(): Promise<void> {
    // A write or a compaction runs: this one follows it (each schedules the next when done).
    if (this.flushing !== undefined) return this.flushing;
    if (this.pending.length === 0) return Promise.resolve();
    const lines = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    const text = `${lines.join('\n')}\n`;
    // A snapshot being written holds none of these changes: once appended, they start the next log too.
    const carried = this.carry;
    this.flushing = (async () => {
      try {
        await this.handle.appendFile(text);
        carried?.push(...lines);
        if (this.fsync === 'always') await this.handle.datasync();
        else this.dirty = true;
        this.logBytes += Buffer.byteLength(text);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error as Error);
      } finally {
        this.flushing = undefined;
      }
      // Changes made while this append ran go out in the next one.
      if (this.pending.length > 0) void this.flush();
      else if (!this.compacting && this.logBytes > COMPACT_MIN_BYTES && this.logBytes > this.snapshotBytes)
        void this.compact().catch(() => undefined);
    })();
    return this.flushing;
  }

  private async sync(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.handle.datasync().catch(() => (this.dirty = true));
  }
}

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** A log line's JSON, or undefined when it does not parse. */
function parseOp(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whole lines' JSON values, parsed at once; undefined when that does not give one value per line
 * (a line that does not parse, or one holding two values side by side).
 */
function parseOps(lines: readonly string[]): unknown[] | undefined {
  try {
    const values = JSON.parse(`[${lines.join(',')}]`) as unknown[];
    return values.length === lines.length ? values : undefined;
  } catch {
    return undefined;
  }
}

const isOp = (value: unknown): value is LogOp =>
  typeof value === 'object' && value !== null && typeof (value as { op?: unknown }).op === 'string';

const corrupt = (log: string, line: number): Error => new Error(`the data log ${log} is corrupt at line ${line}; it was left untouched`);
