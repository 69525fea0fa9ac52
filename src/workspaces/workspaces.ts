import type { KeyRegistry } from '../auth/key-registry.js';
import { unixSeconds } from '../clock/clock.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { RecordStore } from '../store/record-store.js';
import type { Creation, EvictedWorkspace, RegistrySnapshot, WorkspaceRegistry } from './registry.js';

/** What the workspaces read, and how what each holds is forgotten. */
export interface WorkspaceParts {
  readonly registry: WorkspaceRegistry;
  readonly store: Pick<RecordStore, 'writes'>;
  readonly clocks: WorkspaceClocks;
  readonly keys: Pick<KeyRegistry, 'inWorkspace' | 'revokeWorkspace'>;
  /**
   * Forgets all a workspace holds, in every part of the state that holds something per workspace
   * (its records, its keys' counters and bans, its clock, journal entries, rules, webhooks, transitions).
   */
  readonly forget: (scope: { readonly id: string; readonly keyIds: ReadonlySet<string> }) => Promise<void>;
  /** Told of each workspace evicted to make room (the log reports it). */
  readonly onEvicted?: (evicted: EvictedWorkspace) => void;
}

/** What `GET /__sandbox/workspaces` shows of one workspace. */
export interface WorkspaceView {
  readonly id: string;
  /** The safe ids of the keys working in it. */
  readonly keys: readonly string[];
  /** Records it has written (created, replaced, updated or deleted) since it was last reset. */
  readonly recordsWritten: number;
  /** API requests its keys made since it was created (or the sandbox started). */
  readonly requests: number;
  /** ISO 8601 instants on the shared sandbox clock. */
  readonly createdAt: string;
  readonly lastUsedAt: string;
  /** Its sandbox clock, in whole Unix seconds, and whether it follows the shared clock. */
  readonly clock: { readonly now: number; readonly follows: boolean };
  readonly permanent: boolean;
}

export type Removal = 'removed' | 'permanent' | 'unknown';

/**
 * Workspaces as one thing: each holds its own records, clock, journal entries and rules, and its
 * keys' counters and bans. Resetting one puts each of those back and touches nothing of any other.
 */
export class Workspaces {
  constructor(private readonly parts: WorkspaceParts) {}

  /** The workspaces created since the start and the evictions, for a data file. */
  snapshot(): RegistrySnapshot {
    return this.parts.registry.snapshot();
  }

  /** Workspaces kept in a data file, back after a restart. */
  restore(snapshot: RegistrySnapshot): void {
    this.parts.registry.restore(snapshot);
  }

  /** The created workspaces become exactly these (another replica's view: records, keys and clocks follow on their own). */
  replaceCreated(created: RegistrySnapshot['created']): void {
    this.parts.registry.replaceCreated(created);
  }

  /** Back to the default workspace and those the config names (the sandbox's reset: the parts reset themselves). */
  resetAll(): void {
    this.parts.registry.reset();
  }

  /** Workspaces a reloaded config names, created (permanent) if they are new. */
  addConfigured(ids: readonly string[]): void {
    this.parts.registry.addPermanent(ids);
  }

  has(id: string): boolean {
    return this.parts.registry.has(id);
  }

  /** Notes a request in the workspace (every request: it keeps the least recently used order). */
  touch(id: string): void {
    this.parts.registry.touch(id);
  }

  /**
   * A new private workspace for the admin API; past the limits, an idle one is evicted first (with
   * none idle, it is created all the same: see the registry).
   */
  async create(): Promise<string> {
    const made = await this.made(this.parts.registry.create('issued'));
    // The registry refuses only visitors; kept total so that a change there cannot pass silently.
    if (made.kind === 'full') throw new Error('an admin-issued workspace was refused');
    return made.id;
  }

  /** A new workspace for a docs page's visitor, in the visitors' own pool; none when nothing there can make room. */
  async createForVisitor(): Promise<
    { readonly kind: 'created'; readonly id: string } | { readonly kind: 'full'; readonly retryAfterMs: number }
  > {
    return this.made(this.parts.registry.create('visitor'));
  }

  /**
   * The workspace back to the seed: its records, its keys' counters and bans, its clock, its journal
   * entries, its rules, and its admin-made webhook subscriptions and their deliveries.
   */
  async reset(id: string): Promise<void> {
    await this.parts.forget(this.scope(id));
  }

  /** The workspace as the parts of the state know it: its id and the safe ids of the keys working in it. */
  scope(id: string): { readonly id: string; readonly keyIds: ReadonlySet<string> } {
    return { id, keyIds: new Set(this.parts.keys.inWorkspace(id).map((key) => key.id)) };
  }

  /** Removes a workspace (never the default one nor one the config names): all it held, and its keys. */
  async remove(id: string): Promise<Removal> {
    const removal = this.parts.registry.delete(id);
    if (removal === 'removed') await this.drop(id);
    return removal;
  }

  list(): { readonly workspaces: readonly WorkspaceView[]; readonly evicted: readonly object[] } {
    const iso = (ms: number): string => new Date(ms).toISOString();
    const workspaces = this.parts.registry.list().map((w) => ({
      id: w.id,
      keys: this.parts.keys.inWorkspace(w.id).map((key) => key.id),
      recordsWritten: this.parts.store.writes(w.id),
      requests: w.requests,
      createdAt: iso(w.createdAt),
      lastUsedAt: iso(w.lastUsedAt),
      clock: { now: this.now(w.id), follows: this.parts.clocks.follows(w.id) },
      permanent: w.permanent,
    }));
    const evicted = this.parts.registry.evicted().map((e) => ({
      id: e.id,
      createdAt: iso(e.createdAt),
      lastUsedAt: iso(e.lastUsedAt),
      evictedAt: iso(e.evictedAt),
    }));
    return { workspaces, evicted };
  }

  /** One workspace as the list shows it, or undefined when there is none with that id. */
  view(id: string): WorkspaceView | undefined {
    return this.list().workspaces.find((w) => w.id === id);
  }

  /** The workspace's sandbox time, in whole Unix seconds. */
  now(id: string): number {
    return unixSeconds(this.parts.clocks.of(id).now());
  }

  /** Moves the workspace's clock alone (the default one's moves every workspace that follows it); its new time. */
  advance(id: string, seconds: number): number {
    return unixSeconds(this.parts.clocks.advance(id, seconds * 1000));
  }

  /** The evicted workspace's state dropped and reported. */
  private async made(creation: Creation): Promise<Creation> {
    if (creation.kind === 'created' && creation.evicted) {
      await this.drop(creation.evicted.id);
      this.parts.onEvicted?.(creation.evicted);
    }
    return creation;
  }

  /** Everything a workspace held, gone; its keys revoked. */
  private async drop(id: string): Promise<void> {
    await this.reset(id);
    this.parts.keys.revokeWorkspace(id);
  }
}
