/**
 * Everything that depends on "now" (rate windows, bans, sunset checks, journal timestamps) reads a
 * Clock. The sandbox clock follows a source (the system clock, or a frozen instant) plus an offset
 * the admin API can move, so tests never sleep.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export class SandboxClock implements Clock {
  /**
   * @param source where time comes from; the system clock by default.
   * @param frozenAt when set, the clock stands still at this instant and moves only by `advance`.
   * @param offsetMs how far it starts from its source (a workspace's clock starts where the shared one stands).
   */
  constructor(
    private readonly source: () => number = Date.now,
    private readonly frozenAt?: number,
    private offsetMs = 0,
  ) {}

  /** How far the clock has been moved from its source, in ms. */
  get offset(): number {
    return this.offsetMs;
  }

  now(): number {
    return (this.frozenAt ?? this.source()) + this.offsetMs;
  }

  /** Moves the clock forward (or back, for a negative amount). */
  advance(ms: number): number {
    this.offsetMs += ms;
    return this.now();
  }

  /** Back to the source's time, with no offset. */
  reset(): void {
    this.offsetMs = 0;
  }
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
