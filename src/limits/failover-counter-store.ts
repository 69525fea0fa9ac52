import {
  MemoryCounterStore,
  type CapturedCounters,
  type ClientState,
  type CounterStore,
  type LimitPolicy,
  type TakeOutcome,
} from './counter-store.js';
import { isOutage } from '../vocabulary/outage.js';
import { WINDOWS, windowStart } from './windows.js';

/**
 * What a replica does while the shared store is unreachable:
 * - `local`: limits alone, in memory, at its share of each limit (so N replicas admit about the plan's limit in all);
 * - `open`: admits everything (availability over limits);
 * - `closed`: refuses everything (the caller answers 503).
 */
export type OutagePolicy = 'local' | 'open' | 'closed';

export interface FailoverOptions {
  readonly policy: OutagePolicy;
  /** How many replicas share the store: under `local`, each admits ceil(limit / replicas) of every limit. */
  readonly replicas: number;
  /** Told of each outage answered without the shared store (a log line, a metric). */
  readonly onOutage?: (error: Error) => void;
}

/** A client with nothing counted, for the answers given without counting (`open`, `closed`). */
const uncounted = (policy: LimitPolicy, nowMs: number): ClientState => ({
  windows: WINDOWS.map((w) => ({ start: windowStart(nowMs, w.lengthMs), count: 0 })),
  refusals: { start: windowStart(nowMs, WINDOWS[0].lengthMs), count: 0 },
  bannedUntil: 0,
  policy,
});

/**
 * A shared store (RedisCounterStore) with a fallback for when it is out of reach, decided afresh on
 * every call: ioredis reconnects by itself, and the first call after it has answers from Redis again.
 * The in-memory counts of an outage are not carried over to Redis (the shared counts may then admit
 * up to one share more per replica in that minute); they resume if the outage returns.
 */
export class FailoverCounterStore implements CounterStore {
  /** Each policy at this replica's share, made once per policy so the local store holds it like any other. */
  private readonly shares = new WeakMap<LimitPolicy, LimitPolicy>();

  constructor(
    private readonly shared: CounterStore,
    private readonly options: FailoverOptions,
    private readonly local = new MemoryCounterStore(),
  ) {
    if (!Number.isInteger(options.replicas) || options.replicas < 1) {
      throw new RangeError(`replicas must be a whole number of at least 1, not ${options.replicas}`);
    }
  }

  async take(client: string, policy: LimitPolicy, nowMs: number): Promise<TakeOutcome> {
    try {
      return await this.shared.take(client, policy, nowMs);
    } catch (error) {
      this.outage(error);
      switch (this.options.policy) {
        case 'local': {
          const { kind, state } = this.local.take(client, this.shareOf(policy), nowMs);
          return { kind, state, degraded: 'local' };
        }
        case 'open':
          return { kind: 'admitted', state: uncounted(policy, nowMs), degraded: 'open' };
        case 'closed':
          return { kind: 'refused', state: uncounted(policy, nowMs), degraded: 'closed' };
      }
    }
  }

  /** The shared view, or during an outage this replica's own (empty unless the policy is `local`). */
  async inspect(client: string, nowMs: number): Promise<ClientState> {
    try {
      return await this.shared.inspect(client, nowMs);
    } catch (error) {
      this.outage(error);
      return this.local.inspect(client, nowMs);
    }
  }

  /** The shared counters: a snapshot is of what every replica counts (an outage rejects: there is nothing true to capture). */
  capture(clients: readonly string[]): Promise<Record<string, CapturedCounters>> {
    return this.shared.capture(clients);
  }

  /** Into the shared counters (an outage rejects); this replica's own outage counts are dropped. */
  async restore(clients: readonly string[], captured: Readonly<Record<string, CapturedCounters>>, nowMs: number): Promise<void> {
    await this.shared.restore(clients, captured, nowMs);
    await this.local.forget(clients);
  }

  /**
   * Forgets in both stores. An outage is not rethrown: the callers (a workspace reset, the sandbox
   * reset) go on to clear clocks, journals and rules, and a throw would leave them half done. The
   * shared counters then stay until their keys expire (at most the day window or the ban): they can
   * only refuse too much, never admit too much.
   */
  async forget(clients: readonly string[]): Promise<void> {
    await this.local.forget(clients);
    await this.shared.forget(clients).catch((error: unknown) => this.outage(error));
  }

  /** Resets both stores; an outage is not rethrown (see `forget`). */
  async reset(): Promise<void> {
    await this.local.reset();
    await this.shared.reset().catch((error: unknown) => this.outage(error));
  }

  /** Rethrows anything but an outage, which is reported and then answered without the shared store. */
  private outage(error: unknown): void {
    if (!isOutage(error)) throw error;
    this.options.onOutage?.(error);
  }

  /**
   * The policy at this replica's share: each limit divided by the replicas, rounded up. A positive
   * limit stays at least 1 (the rounding up sees to it); a limit of 0, a plan that admits nothing,
   * stays 0. The ban threshold is not divided: refusals are this replica's own.
   */
  private shareOf(policy: LimitPolicy): LimitPolicy {
    let share = this.shares.get(policy);
    if (!share) {
      const { replicas } = this.options;
      share = { ...policy, limits: policy.limits.map((limit) => (limit > 0 ? Math.max(1, Math.ceil(limit / replicas)) : limit)) };
      this.shares.set(policy, share);
    }
    return share;
  }
}
