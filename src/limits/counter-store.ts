import type { Awaitable } from '../vocabulary/exchange.js';
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

/** One client's limits: its plan's count per window, and when refusals turn into a ban. */
export interface LimitPolicy {
  /** Requests allowed in each of WINDOWS, in order. */
  readonly limits: readonly number[];
  /** 429 answers within one minute window that start a ban. */
  readonly banThreshold: number;
  readonly banMs: number;
}

/**
 * What one request did to a client's counters:
 * - `admitted`: counted in every window;
 * - `banned`: the client was already banned; nothing was counted;
 * - `refused`: a window was full; nothing was counted, the refusal was recorded, and a ban started
 *   if the refusals in this minute reached the threshold (then `state.bannedUntil` is set).
 */
export type TakeOutcome =
  | { readonly kind: 'admitted'; readonly state: ClientState }
  | { readonly kind: 'banned'; readonly state: ClientState }
  | { readonly kind: 'refused'; readonly state: ClientState };

/**
 * The counter-store contract the limiter works through. `take` is one atomic step: check the ban,
 * check every window against its limit, and count the request in all of them, or record the
 * refusal. It may answer asynchronously, so a shared store (Redis with one server-side script, say)
 * can fulfil it for several replicas; the in-memory store below, the default, answers at once.
 */
export interface CounterStore {
  take(client: string, policy: LimitPolicy, nowMs: number): Awaitable<TakeOutcome>;
  /** The client's counters rolled forward to `nowMs`, changing nothing. */
  inspect(client: string, nowMs: number): Promise<ClientState>;
  reset(): Promise<void>;
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

  inspect(client: string, nowMs: number): Promise<ClientState> {
    return Promise.resolve(snapshot(this.current(client, nowMs, false)));
  }

  take(client: string, policy: LimitPolicy, nowMs: number): TakeOutcome {
    const entry = this.current(client, nowMs, true);
    let kind: TakeOutcome['kind'];
    if (entry.bannedUntil > nowMs) kind = 'banned';
    else if (entry.windows.every((w, i) => w.count < (policy.limits[i] ?? Infinity))) {
      entry.windows = entry.windows.map((w) => ({ start: w.start, count: w.count + 1 }));
      kind = 'admitted';
    } else {
      entry.refusals = { start: entry.refusals.start, count: entry.refusals.count + 1 };
      if (entry.refusals.count >= policy.banThreshold) {
        entry.bannedUntil = nowMs + policy.banMs;
        entry.refusals = { start: entry.refusals.start, count: 0 };
      }
      kind = 'refused';
    }
    return { kind, state: snapshot(entry) };
  }

  reset(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
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
