import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { SandboxClock } from './clock.js';

/**
 * The clock of each workspace. Rate windows, bans and sunsets of a request read its workspace's
 * clock. Today there is one workspace, so one clock; asking for another workspace is a bug.
 */
export class WorkspaceClocks {
  private readonly clocks: ReadonlyMap<string, SandboxClock>;

  /** @see SandboxClock for `source` and `frozenAt`. */
  constructor(source: () => number, frozenAt: number | undefined) {
    this.clocks = new Map([[DEFAULT_WORKSPACE, new SandboxClock(source, frozenAt)]]);
  }

  of(workspace: string): SandboxClock {
    const clock = this.clocks.get(workspace);
    if (!clock) throw new Error(`unknown workspace ${workspace}`);
    return clock;
  }

  /** Every clock back to its source's time. */
  reset(): void {
    for (const clock of this.clocks.values()) clock.reset();
  }
}
