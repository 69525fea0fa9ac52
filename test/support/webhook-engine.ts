import { WorkspaceClocks } from '../../src/clock/workspace-clocks.js';
import { Deliveries, workspaceClock, type DeliveryOptions } from '../../src/webhooks/deliveries.js';

/** Where every test's sandbox clocks stand still (2025-01-01T00:00:00Z): they move only when a test moves them. */
export const FROZEN_AT = Date.UTC(2025, 0, 1);

export interface TestEngine {
  readonly engine: Deliveries;
  readonly clocks: WorkspaceClocks;
  /** What the engine reported (a subscriber that threw, a store that failed). */
  readonly reported: unknown[];
  /** Moves a workspace's clock as the admin API would, tells the engine, and waits until it is idle. */
  move(workspace: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The timeout a test gives a receiver that never answers: the one real wait a test may have. Other
 * tests keep a longer one, so that a loaded machine cannot turn a quick answer into a timeout.
 */
export const SHORT_TIMEOUT_MS = 200;

/** An engine on frozen workspace clocks, with a 5 s timeout (the default) unless a test asks otherwise. */
export function testEngine(options: Partial<DeliveryOptions> = {}): TestEngine {
  const clocks = new WorkspaceClocks(Date.now, FROZEN_AT);
  const reported: unknown[] = [];
  const engine = new Deliveries({ clock: workspaceClock(clocks), report: (e) => reported.push(e), ...options });
  return {
    engine,
    clocks,
    reported,
    move: async (workspace, ms) => {
      clocks.advance(workspace, ms);
      engine.clockMoved();
      await engine.idle();
    },
    close: async () => {
      engine.close();
      await engine.idle();
    },
  };
}
