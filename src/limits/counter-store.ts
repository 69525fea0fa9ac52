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
  /**
   * The policy the client's current minute window is counted under: the one in force when the
   * window began, so that a plan changed by a reload applies from the client's next window.
   */
  readonly policy?: LimitPolicy;
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
 * `degraded` is set when a shared store was unreachable and the answer was decided without it (see
 * FailoverCounterStore): counted by this replica alone, admitted unchecked, or refused unchecked.
 */
export type TakeOutcome =
  | { readonly kind: 'admitted'; readonly state: ClientState; readonly degraded?: 'local' | 'open' | 'closed' }
  | { readonly kind: 'banned'; readonly state: ClientState; readonly degraded?: 'local' | 'open' | 'closed' }
  | { readonly kind: 'refused'; readonly state: ClientState; readonly degraded?: 'local' | 'open' | 'closed' };

/**
 * The counter-store contract the limiter works through. `take` is one atomic step: check the ban,
 * check every window against its limit, and count the request in all of them, or record the
 * refusal. It may answer asynchronously, so a shared store (Redis with one server-side script, say)
 * can fulfil it for several replicas; the in-memory store below, the default, answers at once.
 * The state in a `take` outcome may be the store's live record: read it at once, never keep it.
 */
/**
 * One client's counters as a snapshot holds them: its windows, its refusals and its ban, as they
 * were counted (not rolled forward: restored at the same instant, they read the same). The policy
 * held is left out: a restored client is counted under its plan as it is then.
 */
export interface CapturedCounters {
  readonly windows: readonly WindowCount[];
  readonly refusals: WindowCount;
  readonly bannedUntil: number;
}

export interface CounterStore {
  take(client: string, policy: LimitPolicy, nowMs: number): Awaitable<TakeOutcome>;
  /** These clients' counters as they are, by client; a client with nothing counted is left out. */
  capture(clients: readonly string[]): Promise<Record<string, CapturedCounters>>;
  /**
   * These clients' counters become exactly the captured ones (a client not captured has none):
   * `nowMs` is the clients' time, for how long a shared store keeps them.
   */
  restore(clients: readonly string[], captured: Readonly<Record<string, CapturedCounters>>, nowMs: number): Promise<void>;
  /** The client's counters rolled forward to `nowMs`, changing nothing. */
  inspect(client: string, nowMs: number): Promise<ClientState>;
  /** These clients' counters, refusals and bans dropped (a workspace reset or removed). */
  forget(clients: readonly string[]): Promise<void>;
  reset(): Promise<void>;
}

const MINUTE = WINDOWS[0].lengthMs;

/** A window's count, changed in place (a client's entry lives long; fresh objects per request would be promoted garbage). */
interface Count {
  start: number;
  count: number;
}

interface Entry {
  readonly windows: Count[];
  readonly refusals: Count;
  bannedUntil: number;
  /** Set by the first request of each minute window (see ClientState.policy). */
  policy: LimitPolicy | undefined;
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

  /** The state in the outcome is the client's live entry: read it before the next `take`. */
  take(client: string, policy: LimitPolicy, nowMs: number): TakeOutcome {
    const entry = this.current(client, nowMs, true);
    const { windows, refusals } = entry;
    const held = (entry.policy ??= policy);
    if (entry.bannedUntil > nowMs) return { kind: 'banned', state: entry };
    let room = true;
    for (let i = 0; i < windows.length; i++) if ((windows[i] as Count).count >= (held.limits[i] ?? Infinity)) room = false;
    if (room) {
      for (const window of windows) window.count++;
      return { kind: 'admitted', state: entry };
    }
    refusals.count++;
    if (refusals.count >= held.banThreshold) {
      entry.bannedUntil = nowMs + held.banMs;
      refusals.count = 0;
    }
    return { kind: 'refused', state: entry };
  }

  forget(clients: readonly string[]): Promise<void> {
    for (const client of clients) this.entries.delete(client);
    return Promise.resolve();
  }

  capture(clients: readonly string[]): Promise<Record<string, CapturedCounters>> {
    const captured: Record<string, CapturedCounters> = {};
    for (const client of clients) {
      const entry = this.entries.get(client);
      if (entry) captured[client] = { windows: entry.windows.map(copy), refusals: copy(entry.refusals), bannedUntil: entry.bannedUntil };
    }
    return Promise.resolve(captured);
  }

  restore(clients: readonly string[], captured: Readonly<Record<string, CapturedCounters>>): Promise<void> {
    for (const client of clients) {
      this.entries.delete(client);
      const state = captured[client];
      if (state === undefined) continue;
      const windows = WINDOWS.map((_, i) => copy(state.windows[i] ?? { start: 0, count: 0 }));
      this.entries.set(client, { windows, refusals: copy(state.refusals), bannedUntil: state.bannedUntil, policy: undefined });
    }
    return Promise.resolve();
  }

  reset(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }

  /** The client's entry with windows rolled forward to `nowMs`; moved to the recent end of the map. */
  private current(client: string, nowMs: number, create: boolean): Entry {
    if (++this.operations % 1024 === 0) this.sweep(nowMs);
    const minute = windowStart(nowMs, MINUTE);
    let entry = this.entries.get(client);
    if (entry) {
      for (let i = 0; i < WINDOWS.length; i++) {
        const window = entry.windows[i] as Count;
        const start = windowStart(nowMs, WINDOWS[i]?.lengthMs ?? MINUTE);
        if (window.start !== start) {
          window.start = start;
          window.count = 0;
        }
      }
      if (entry.refusals.start !== minute) {
        entry.refusals.start = minute;
        entry.refusals.count = 0;
        // A new minute window: counted under the plan as it is now.
        entry.policy = undefined;
      }
      if (entry.bannedUntil <= nowMs) entry.bannedUntil = 0;
      if (create) this.entries.delete(client);
    } else {
      const windows = WINDOWS.map((w) => ({ start: windowStart(nowMs, w.lengthMs), count: 0 }));
      entry = { windows, refusals: { start: minute, count: 0 }, bannedUntil: 0, policy: undefined };
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

const copy = (count: WindowCount): Count => ({ start: count.start, count: count.count });

/** A copy of an entry, for a reader that keeps it (the live entry changes with every request). */
const snapshot = (entry: Entry): ClientState => ({
  windows: entry.windows.map((w) => ({ start: w.start, count: w.count })),
  refusals: { start: entry.refusals.start, count: entry.refusals.count },
  bannedUntil: entry.bannedUntil,
  ...(entry.policy === undefined ? {} : { policy: entry.policy }),
});
