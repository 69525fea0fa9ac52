import { randomBytes } from 'node:crypto';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

/** What the admin API lists of a workspace. Times are wall-clock Unix ms (when people used it, not sandbox time). */
export interface WorkspaceInfo {
  readonly id: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  /** API requests its keys made since it was created (or the sandbox started). */
  readonly requests: number;
  /** The default workspace and those the config names: never evicted nor deleted. */
  readonly permanent: boolean;
}

/** A workspace evicted to make room, kept in the list so that the eviction is never silent. */
export interface EvictedWorkspace {
  readonly id: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  readonly evictedAt: number;
}

/** The created workspaces and the evictions, as a data file keeps them. */
export interface RegistrySnapshot {
  readonly created: readonly { readonly id: string; readonly createdAt: number; readonly lastUsedAt: number }[];
  readonly evicted: readonly EvictedWorkspace[];
}

interface Entry {
  readonly id: string;
  readonly createdAt: number;
  lastUsedAt: number;
  requests: number;
  readonly permanent: boolean;
}

/** How many evictions the list keeps reporting. */
const EVICTIONS_KEPT = 100;

/** A new workspace id: unguessable, so one suite cannot name another's workspace by accident. */
const newId = (): string => `ws_${randomBytes(9).toString('base64url').replaceAll('-', 'x').replaceAll('_', 'y')}`;

/**
 * The workspaces that exist: the default one, those the config names, and those created for keys.
 * Bounded: creating one past `max` evicts the least recently used one that is not permanent, and
 * answers its id so that its records, keys, clock, rules and journal entries can be dropped.
 */
export class WorkspaceRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly evictions: EvictedWorkspace[] = [];

  constructor(
    private readonly max: number,
    private configured: readonly string[],
    private readonly wallClock: () => number = Date.now,
  ) {
    this.reset();
  }

  /** Back to the default workspace and the configured ones; evictions forgotten. */
  reset(): void {
    this.entries.clear();
    this.evictions.length = 0;
    const now = this.wallClock();
    for (const id of new Set([DEFAULT_WORKSPACE, ...this.configured]))
      this.entries.set(id, { id, createdAt: now, lastUsedAt: now, requests: 0, permanent: true });
  }

  /** Permanent workspaces (the config names them), created where they are new. */
  addPermanent(ids: readonly string[]): void {
    this.configured = [...new Set([...this.configured, ...ids])];
    const now = this.wallClock();
    for (const id of ids)
      if (!this.entries.has(id)) this.entries.set(id, { id, createdAt: now, lastUsedAt: now, requests: 0, permanent: true });
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** A new private workspace, and the workspace evicted to make room for it, if one was. */
  create(): { readonly id: string; readonly evicted?: EvictedWorkspace } {
    const evicted = this.entries.size >= this.max ? this.evictOne() : undefined;
    let id = newId();
    while (this.entries.has(id)) id = newId();
    const now = this.wallClock();
    this.entries.set(id, { id, createdAt: now, lastUsedAt: now, requests: 0, permanent: false });
    return evicted ? { id, evicted } : { id };
  }

  /** Notes a request in the workspace (on every request: one Map lookup and two stores). */
  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry) {
      entry.lastUsedAt = this.wallClock();
      entry.requests++;
    }
  }

  /** Removes a workspace that is not permanent: `removed`, `permanent` or `unknown`. */
  delete(id: string): 'removed' | 'permanent' | 'unknown' {
    const entry = this.entries.get(id);
    if (!entry) return 'unknown';
    if (entry.permanent) return 'permanent';
    this.entries.delete(id);
    return 'removed';
  }

  list(): readonly WorkspaceInfo[] {
    return [...this.entries.values()].map(({ id, createdAt, lastUsedAt, requests, permanent }) => ({
      id,
      createdAt,
      lastUsedAt,
      requests,
      permanent,
    }));
  }

  /** The workspaces created since the start and the evictions: what a data file keeps across a restart. */
  snapshot(): RegistrySnapshot {
    const created = [...this.entries.values()]
      .filter((e) => !e.permanent)
      .map(({ id, createdAt, lastUsedAt }) => ({ id, createdAt, lastUsedAt }));
    return { created, evicted: [...this.evictions] };
  }

  /** Workspaces created before a restart, back. */
  restore(snapshot: RegistrySnapshot): void {
    for (const { id, createdAt, lastUsedAt } of snapshot.created) {
      if (!this.entries.has(id)) this.entries.set(id, { id, createdAt, lastUsedAt, requests: 0, permanent: false });
    }
    this.evictions.push(...snapshot.evicted.slice(-EVICTIONS_KEPT));
  }

  /** The created workspaces become exactly these (another replica's view of them); permanent ones stay. */
  replaceCreated(created: RegistrySnapshot['created']): void {
    const wanted = new Map(created.map((w) => [w.id, w]));
    for (const [id, entry] of this.entries) if (!entry.permanent && !wanted.has(id)) this.entries.delete(id);
    for (const { id, createdAt, lastUsedAt } of created) {
      const entry = this.entries.get(id);
      if (entry) entry.lastUsedAt = Math.max(entry.lastUsedAt, lastUsedAt);
      else this.entries.set(id, { id, createdAt, lastUsedAt, requests: 0, permanent: false });
    }
  }

  /** The most recent evictions, newest first. */
  evicted(): readonly EvictedWorkspace[] {
    return [...this.evictions].reverse();
  }

  /** Evicts the least recently used workspace that is not permanent (none when all are). */
  private evictOne(): EvictedWorkspace | undefined {
    let oldest: Entry | undefined;
    for (const entry of this.entries.values()) if (!entry.permanent && (!oldest || entry.lastUsedAt < oldest.lastUsedAt)) oldest = entry;
    if (!oldest) return undefined;
    this.entries.delete(oldest.id);
    const evicted = { id: oldest.id, createdAt: oldest.createdAt, lastUsedAt: oldest.lastUsedAt, evictedAt: this.wallClock() };
    this.evictions.push(evicted);
    if (this.evictions.length > EVICTIONS_KEPT) this.evictions.shift();
    return evicted;
  }
}
