import type { DeliveryFilter, StoredDelivery } from './records.js';

export interface StoreLimits {
  /** Pending deliveries a workspace may hold; one more is not added. */
  readonly pendingLimit: number;
  /** Deliveries a workspace keeps in all; past it the oldest finished ones go. */
  readonly historyLimit: number;
}

/**
 * Where deliveries live between attempts. Every method is asynchronous because a shared store (Redis)
 * answers over the network; the engine treats the records it gets as snapshots and never changes
 * them in place.
 *
 * Once across replicas: every replica's engine sees the same due attempts, so before sending, the
 * engine `claim`s the attempt by its number; only the replica whose claim succeeds sends it. The
 * claim lasts `ttlMs` (longer than an attempt can take), so a replica that dies mid-attempt leaves the
 * attempt to be claimed again once the claim expires: at least once, and once while replicas live.
 */
export interface DeliveryStore {
  /**
   * Adds a delivery. A pending one is added only while its workspace holds fewer than
   * `pendingLimit` pending (checked and added as one step); answers whether it was added.
   */
  add(delivery: StoredDelivery, limits: StoreLimits): Promise<boolean>;
  get(id: string): Promise<StoredDelivery | undefined>;
  /** Oldest first. */
  list(filter: DeliveryFilter): Promise<StoredDelivery[]>;
  /** The deliveries with work to do: pending ones, and any with a replay requested. */
  active(): Promise<StoredDelivery[]>;
  /**
   * Replaces a delivery with what `change` makes of its latest version, as one step; answers the
   * new version, or undefined when the delivery is gone (forgotten while an attempt was under way).
   */
  update(id: string, change: (latest: StoredDelivery) => StoredDelivery): Promise<StoredDelivery | undefined>;
  /** Takes attempt `attempt` of delivery `id` for this replica for `ttlMs`; false when someone holds it. */
  claim(id: string, attempt: number, ttlMs: number): Promise<boolean>;
  forget(workspace: string): Promise<void>;
  reset(): Promise<void>;
}

/** The store of one process: a map per workspace, in the order deliveries were queued. */
export class MemoryDeliveryStore implements DeliveryStore {
  private readonly byWorkspace = new Map<string, Map<string, StoredDelivery>>();
  private readonly workspaceOf = new Map<string, string>();
  private readonly claims = new Map<string, number>();

  /** @param now the wall clock the claims expire on (claims guard real network time, not sandbox time). */
  constructor(private readonly now: () => number = Date.now) {}

  add(delivery: StoredDelivery, limits: StoreLimits): Promise<boolean> {
    let held = this.byWorkspace.get(delivery.workspace);
    if (delivery.status === 'pending' && held !== undefined) {
      let pending = 0;
      for (const d of held.values()) if (d.status === 'pending') pending++;
      if (pending >= limits.pendingLimit) return Promise.resolve(false);
    }
    if (held === undefined) {
      held = new Map();
      this.byWorkspace.set(delivery.workspace, held);
    }
    held.set(delivery.id, delivery);
    this.workspaceOf.set(delivery.id, delivery.workspace);
    // Over the history limit, the oldest finished deliveries go first; pending ones stay (the
    // pending limit bounds them), as does any with a replay still to make.
    let excess = held.size - limits.historyLimit;
    for (const [id, d] of held) {
      if (excess <= 0) break;
      if (d.status === 'pending' || d.replayRequested === true) continue;
      held.delete(id);
      this.workspaceOf.delete(id);
      excess--;
    }
    return Promise.resolve(true);
  }

  get(id: string): Promise<StoredDelivery | undefined> {
    const workspace = this.workspaceOf.get(id);
    return Promise.resolve(workspace === undefined ? undefined : this.byWorkspace.get(workspace)?.get(id));
  }

  list(filter: DeliveryFilter): Promise<StoredDelivery[]> {
    const one = filter.workspace === undefined ? undefined : this.byWorkspace.get(filter.workspace);
    const maps = filter.workspace === undefined ? [...this.byWorkspace.values()] : one === undefined ? [] : [one];
    const all = maps.flatMap((held) => [...held.values()]);
    const chosen = filter.status === undefined ? all : all.filter((d) => d.status === filter.status);
    return Promise.resolve(chosen.sort((a, b) => a.createdAt - b.createdAt));
  }

  active(): Promise<StoredDelivery[]> {
    const found: StoredDelivery[] = [];
    for (const held of this.byWorkspace.values()) {
      for (const d of held.values()) if (d.status === 'pending' || d.replayRequested === true) found.push(d);
    }
    return Promise.resolve(found);
  }

  update(id: string, change: (latest: StoredDelivery) => StoredDelivery): Promise<StoredDelivery | undefined> {
    const held = this.byWorkspace.get(this.workspaceOf.get(id) ?? '');
    const latest = held?.get(id);
    if (held === undefined || latest === undefined) return Promise.resolve(undefined);
    const next = change(latest);
    held.set(id, next);
    return Promise.resolve(next);
  }

  claim(id: string, attempt: number, ttlMs: number): Promise<boolean> {
    const now = this.now();
    for (const [key, until] of this.claims) if (until <= now) this.claims.delete(key);
    const key = `${id}#${attempt}`;
    if (this.claims.has(key)) return Promise.resolve(false);
    this.claims.set(key, now + ttlMs);
    return Promise.resolve(true);
  }

  forget(workspace: string): Promise<void> {
    for (const id of this.byWorkspace.get(workspace)?.keys() ?? []) this.workspaceOf.delete(id);
    this.byWorkspace.delete(workspace);
    return Promise.resolve();
  }

  reset(): Promise<void> {
    this.byWorkspace.clear();
    this.workspaceOf.clear();
    this.claims.clear();
    return Promise.resolve();
  }
}
