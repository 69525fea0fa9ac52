import { randomBytes } from 'node:crypto';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { roomFor, type EvictionLimits, type WorkspacePool } from './eviction.js';

/** What the admin API lists of a workspace. Times are Unix ms on the shared sandbox clock (the system clock unless moved or frozen). */
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
  readonly created: readonly CreatedWorkspace[];
  readonly evicted: readonly EvictedWorkspace[];
}

/** A created workspace as a data file and the other replicas keep it; `visitor` marks the docs page's. */
export interface CreatedWorkspace {
  readonly id: string;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  readonly visitor?: true;
}

/** A new workspace, and the one evicted to make room for it; or none, and when there may be room. */
export type Creation =
  | { readonly kind: 'created'; readonly id: string; readonly evicted?: EvictedWorkspace }
  | { readonly kind: 'full'; readonly retryAfterMs: number };

interface Entry {
  readonly id: string;
  readonly createdAt: number;
  lastUsedAt: number;
  /** The order of its last use among all workspaces' (least recently used on a clock that stands still). */
  useOrder: number;
  requests: number;
  readonly pool: WorkspacePool;
}

/** How many evictions the list keeps reporting. */
const EVICTIONS_KEPT = 100;

/** A new workspace id: unguessable, so one suite cannot name another's workspace by accident. */
const newId = (): string => `ws_${randomBytes(9).toString('base64url').replaceAll('-', 'x').replaceAll('_', 'y')}`;

/**
 * The workspaces that exist: the default one, those the config names, and those created for keys
 * (by the admin API, or for a docs page's visitor). Bounded: creating one past the limits evicts
 * one that has been idle long enough (see eviction.ts), and answers its id so that its records,
 * keys, clock, rules and journal entries can be dropped. With none idle, a visitor's is refused; an
 * admin-issued one is still created, past `max` (the admin token is trusted; visitors are not).
 */
export class WorkspaceRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly evictions: EvictedWorkspace[] = [];
  private uses = 0;

  /** @param clock the shared sandbox clock: idleness is measured on it, so a test moves it instead of waiting. */
  constructor(
    private readonly limits: () => EvictionLimits,
    private configured: readonly string[],
    private readonly clock: () => number,
  ) {
    this.reset();
  }

  /** Back to the default workspace and the configured ones; evictions forgotten. */
  reset(): void {
    this.entries.clear();
    this.evictions.length = 0;
    const now = this.clock();
    for (const id of new Set([DEFAULT_WORKSPACE, ...this.configured])) this.entries.set(id, this.entry(id, now, now, 'permanent'));
  }

  /** Permanent workspaces (the config names them), created where they are new. */
  addPermanent(ids: readonly string[]): void {
    this.configured = [...new Set([...this.configured, ...ids])];
    const now = this.clock();
    for (const id of ids) if (!this.entries.has(id)) this.entries.set(id, this.entry(id, now, now, 'permanent'));
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** A new private workspace in the pool, and the workspace evicted to make room for it, if one was. */
  create(pool: 'issued' | 'visitor' = 'issued'): Creation {
    const now = this.clock();
    const room = roomFor(pool, [...this.entries.values()], this.limits(), now);
    if (room.kind === 'full' && pool === 'visitor') return room;
    const evicted = room.kind === 'evict' ? this.evict(room.id, now) : undefined;
    let id = newId();
    while (this.entries.has(id)) id = newId();
    this.entries.set(id, this.entry(id, now, now, pool));
    return evicted ? { kind: 'created', id, evicted } : { kind: 'created', id };
  }

  /** Notes a request in the workspace (on every request: one Map lookup and two stores). */
  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry) {
      entry.lastUsedAt = this.clock();
      entry.useOrder = ++this.uses;
      entry.requests++;
    }
  }

  /** Removes a workspace that is not permanent: `removed`, `permanent` or `unknown`. */
  delete(id: string): 'removed' | 'permanent' | 'unknown' {
    const entry = this.entries.get(id);
    if (!entry) return 'unknown';
    if (entry.pool === 'permanent') return 'permanent';
    this.entries.delete(id);
    return 'removed';
  }

  list(): readonly WorkspaceInfo[] {
    return [...this.entries.values()].map(({ id, createdAt, lastUsedAt, requests, pool }) => ({
      id,
      createdAt,
      lastUsedAt,
      requests,
      permanent: pool === 'permanent',
    }));
  }

  /** The workspaces created since the start and the evictions: what a data file keeps across a restart. */
  snapshot(): RegistrySnapshot {
    const created = [...this.entries.values()].filter((e) => e.pool !== 'permanent').map(createdOf);
    return { created, evicted: [...this.evictions] };
  }

  /** Workspaces created before a restart, back. */
  restore(snapshot: RegistrySnapshot): void {
    for (const w of snapshot.created)
      if (!this.entries.has(w.id)) this.entries.set(w.id, this.entry(w.id, w.createdAt, w.lastUsedAt, poolOf(w)));
    this.evictions.push(...snapshot.evicted.slice(-EVICTIONS_KEPT));
  }

  /** The created workspaces become exactly these (another replica's view of them); permanent ones stay. */
  replaceCreated(created: RegistrySnapshot['created']): void {
    const wanted = new Map(created.map((w) => [w.id, w]));
    for (const [id, entry] of this.entries) if (entry.pool !== 'permanent' && !wanted.has(id)) this.entries.delete(id);
    for (const w of created) {
      const entry = this.entries.get(w.id);
      if (entry) entry.lastUsedAt = Math.max(entry.lastUsedAt, w.lastUsedAt);
      else this.entries.set(w.id, this.entry(w.id, w.createdAt, w.lastUsedAt, poolOf(w)));
    }
  }

  /** The most recent evictions, newest first. */
  evicted(): readonly EvictedWorkspace[] {
    return [...this.evictions].reverse();
  }

  private entry(id: string, createdAt: number, lastUsedAt: number, pool: WorkspacePool): Entry {
    return { id, createdAt, lastUsedAt, useOrder: ++this.uses, requests: 0, pool };
  }

  /** Drops the workspace from the list and notes its eviction. */
  private evict(id: string, now: number): EvictedWorkspace | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    const evicted = { id, createdAt: entry.createdAt, lastUsedAt: entry.lastUsedAt, evictedAt: now };
    this.evictions.push(evicted);
    if (this.evictions.length > EVICTIONS_KEPT) this.evictions.shift();
    return evicted;
  }
}

const createdOf = ({ id, createdAt, lastUsedAt, pool }: Entry): CreatedWorkspace =>
  pool === 'visitor' ? { id, createdAt, lastUsedAt, visitor: true } : { id, createdAt, lastUsedAt };

const poolOf = (w: CreatedWorkspace): WorkspacePool => (w.visitor === true ? 'visitor' : 'issued');
