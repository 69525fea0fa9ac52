import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { SandboxClock } from './clock.js';

/** Clock offsets as a data file keeps them. */
export interface ClocksSnapshot {
  readonly shared: number;
  readonly own: Readonly<Record<string, number>>;
}

/**
 * The clock of each workspace. Rate windows, bans, sunsets and record timestamps of a request read
 * its workspace's clock. Every workspace follows the shared clock (the default workspace's, moved by
 * `POST /__sandbox/clock`) until its own clock is moved: from then on it keeps its own offset, and
 * moving the shared clock no longer moves it. Forgetting a workspace's clock makes it follow again.
 */
export class WorkspaceClocks {
  private readonly shared: SandboxClock;
  private readonly own = new Map<string, SandboxClock>();

  /** @see SandboxClock for `source` and `frozenAt`. */
  constructor(
    private readonly source: () => number,
    private readonly frozenAt: number | undefined,
  ) {
    this.shared = new SandboxClock(source, frozenAt);
  }

  /** The clock a workspace reads (one Map lookup: this runs on every request). */
  of(workspace: string): SandboxClock {
    return this.own.get(workspace) ?? this.shared;
  }

  /** Whether the workspace follows the shared clock (it has never been moved on its own since it was last forgotten). */
  follows(workspace: string): boolean {
    return !this.own.has(workspace);
  }

  /**
   * Moves one workspace's clock by `ms` and answers its new time. The default workspace's clock is
   * the shared one, so moving it moves every workspace that follows it; any other workspace gets
   * a clock of its own, starting where the shared one stands.
   */
  advance(workspace: string, ms: number): number {
    if (workspace === DEFAULT_WORKSPACE) return this.shared.advance(ms);
    let clock = this.own.get(workspace);
    if (!clock) {
      clock = new SandboxClock(this.source, this.frozenAt, this.shared.offset);
      this.own.set(workspace, clock);
    }
    return clock.advance(ms);
  }

  /**
   * Puts the workspace's clock at the instant `at` (a snapshot restored). The default workspace's
   * clock is the shared one: it is moved there, and every workspace that follows it with it. Another
   * workspace follows the shared clock again if it did when captured and the shared clock stands at
   * `at`; else it keeps a clock of its own, standing at `at`.
   */
  place(workspace: string, at: number, follows: boolean): void {
    if (workspace === DEFAULT_WORKSPACE) {
      this.shared.advance(at - this.shared.now());
      return;
    }
    if (follows && this.shared.now() === at) {
      this.own.delete(workspace);
      return;
    }
    const clock = this.own.get(workspace) ?? new SandboxClock(this.source, this.frozenAt, this.shared.offset);
    this.own.set(workspace, clock);
    clock.advance(at - clock.now());
  }

  /** The workspace's clock back to following the shared one (the default workspace's: back to its source). */
  forget(workspace: string): void {
    if (workspace === DEFAULT_WORKSPACE) this.shared.reset();
    else this.own.delete(workspace);
  }

  /** The shared clock's offset and each workspace's own, in ms: what a data file keeps across a restart. */
  snapshot(): ClocksSnapshot {
    return { shared: this.shared.offset, own: Object.fromEntries([...this.own].map(([id, clock]) => [id, clock.offset])) };
  }

  /** The offsets kept before a restart, back. */
  restore(snapshot: ClocksSnapshot): void {
    this.shared.advance(snapshot.shared - this.shared.offset);
    for (const [id, offset] of Object.entries(snapshot.own)) this.own.set(id, new SandboxClock(this.source, this.frozenAt, offset));
  }

  /** The offsets become exactly these (another replica's clocks): a workspace not named follows the shared clock. */
  replace(snapshot: ClocksSnapshot): void {
    this.own.clear();
    this.shared.reset();
    this.restore(snapshot);
  }

  /** Every clock back to its source's time; every workspace follows the shared clock again. */
  reset(): void {
    this.shared.reset();
    this.own.clear();
  }
}
