import { WINDOWS, windowStart } from './windows.js';

/** Counts in each window for one client, with the start of the window each count belongs to. */
export interface WindowCount {
  readonly start: number;
  readonly count: number;
}

export interface ClientState {
  readonly windows: readonly WindowCount[];
  /** 429 answers in the current minute window, towards a ban. */
  readonly refusals: WindowCount;
  /** When a ban ends (ms), or 0 when the client is not banned. */
  readonly bannedUntil: number;
}

export type TakeResult = { readonly admitted: boolean; readonly state: ClientState };

/**
 * The counter-store contract the limiter works through. `take` must be atomic: check every window
 * against its limit and count the request in all of them, or in none. The in-memory store below is
 * the default; a shared store (Redis with a script, say) can stand in for it for several replicas.
 */
export interface CounterStore {
  get(client: string, nowMs: number): ClientState;
  /** Admits and counts the request in every window if each is under its limit; else counts nothing. */
  take(client: string, limits: readonly number[], nowMs: number): TakeResult;
  /** Records a 429 and, at `threshold` of them in one window, bans the client until `banUntilMs`. */
  refuse(client: string, nowMs: number, threshold: number, banUntilMs: number): ClientState;
  reset(): void;
  /** How many clients are tracked (for the memory bound). */
  readonly size: number;
}

const MINUTE = WINDOWS[0].lengthMs;

interface Entry {
  windows: WindowCount[];
  refusals: WindowCount;
  bannedUntil: number;
}

/**
 * Counters in a Map, bounded two ways: an entry whose windows and ban have all ended is dropped when
 * touched or swept, and past `maxClients` the least recently used client is evicted (its counts
 * start afresh: an over-admission risk only for a client idle longer than everyone else).
 */
export class MemoryCounterStore implements CounterStore {
  private readonly entries = new Map<string, Entry>();
  private operations = 0;

  constructor(private readonly maxClients = 100_000) {}

  get size(): number {
    return this.entries.size;
  }

  get(client: string, nowMs: number): ClientState {
    return snapshot(this.current(client, nowMs, false));
  }

  take(client: string, limits: readonly number[], nowMs: number): TakeResult {
    const entry = this.current(client, nowMs, true);
    const admitted = entry.windows.every((w, i) => w.count < (limits[i] ?? Infinity));
    if (admitted) entry.windows = entry.windows.map((w) => ({ start: w.start, count: w.count + 1 }));
    return { admitted, state: snapshot(entry) };
  }

  refuse(client: string, nowMs: number, threshold: number, banUntilMs: number): ClientState {
    const entry = this.current(client, nowMs, true);
    entry.refusals = { start: entry.refusals.start, count: entry.refusals.count + 1 };
    if (entry.refusals.count >= threshold) {
      entry.bannedUntil = banUntilMs;
      entry.refusals = { start: entry.refusals.start, count: 0 };
    }
    return snapshot(entry);
  }

  reset(): void {
    this.entries.clear();
  }

  /** The client's entry with windows rolled forward to `nowMs`; moved to the recent end of the map. */
  private current(client: string, nowMs: number, create: boolean): Entry {
    if (++this.operations % 1024 === 0) this.sweep(nowMs);
    const starts = WINDOWS.map((w) => windowStart(nowMs, w.lengthMs));
    const minute = windowStart(nowMs, MINUTE);
    let entry = this.entries.get(client);
    if (entry) {
      entry.windows = entry.windows.map((w, i) => (w.start === starts[i] ? w : { start: starts[i] as number, count: 0 }));
      if (entry.refusals.start !== minute) entry.refusals = { start: minute, count: 0 };
      if (entry.bannedUntil <= nowMs) entry.bannedUntil = 0;
      if (create) this.entries.delete(client);
    } else {
      entry = { windows: starts.map((start) => ({ start, count: 0 })), refusals: { start: minute, count: 0 }, bannedUntil: 0 };
    }
    if (!create) return entry;
    this.entries.set(client, entry);
    if (this.entries.size > this.maxClients) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return entry;
  }

  /**
   * Drops clients that hold nothing worth keeping: no count in a window that has not ended, no
   * refusal in the current minute, no ban. (A `get` rolls an idle client's windows forward to empty
   * ones; those must not keep it alive for another day.)
   */
  private sweep(nowMs: number): void {
    for (const [client, entry] of this.entries) {
      const live =
        entry.bannedUntil > nowMs ||
        (entry.refusals.count > 0 && entry.refusals.start + MINUTE > nowMs) ||
        entry.windows.some((w, i) => w.count > 0 && w.start + (WINDOWS[i]?.lengthMs ?? 0) > nowMs);
      if (!live) this.entries.delete(client);
    }
  }
}

const snapshot = (entry: Entry): ClientState => ({ windows: [...entry.windows], refusals: entry.refusals, bannedUntil: entry.bannedUntil });
