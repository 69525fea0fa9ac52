import type { Redis } from 'ioredis';

/**
 * How many records each workspace has written, for the admin list, which asks synchronously
 * (`RecordStore.writes`). The count lives in Redis (`ws{…}:writes`, INCR after each write, deleted
 * with the workspace), so every replica counts every replica's writes; each replica answers from its
 * last sight of it and, on each ask, looks again in the background. So the number is approximate: a
 * write on another replica shows on this one's next ask but one. It is never part of a write's
 * atomicity (another slot, in a Cluster), and a count Redis fails to take is only a count lost.
 */
export class WriteCounts {
  private readonly seen = new Map<string, number>();
  /** Bumped when a workspace is forgotten: an answer sent for before then is stale, and dropped. */
  private readonly epochs = new Map<string, number>();
  private readonly looking = new Set<string>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (workspace: string) => string,
  ) {}

  /** The last count seen; a fresh look is under way for the next ask. */
  get(workspace: string): number {
    if (!this.closed && !this.looking.has(workspace)) {
      this.looking.add(workspace);
      this.settle(workspace, this.redis.get(this.keyOf(workspace)), () => this.looking.delete(workspace));
    }
    return this.seen.get(workspace) ?? 0;
  }

  /** One more write: shown here at once, counted in Redis for every replica. */
  add(workspace: string): void {
    this.seen.set(workspace, (this.seen.get(workspace) ?? 0) + 1);
    this.settle(workspace, this.redis.incr(this.keyOf(workspace)));
  }

  /** Back to none (the Redis key goes with the workspace's other keys). */
  forget(workspace: string): void {
    this.seen.delete(workspace);
    this.epochs.set(workspace, (this.epochs.get(workspace) ?? 0) + 1);
  }

  clear(): void {
    for (const workspace of new Set([...this.seen.keys(), ...this.epochs.keys()])) this.forget(workspace);
  }

  close(): void {
    this.closed = true;
  }

  /** Takes Redis's answer as the count unless the workspace was forgotten since it was asked; a failure keeps the last one. */
  private settle(workspace: string, answer: Promise<string | number | null>, done: () => void = () => undefined): void {
    const epoch = this.epochs.get(workspace) ?? 0;
    void answer
      .then((value) => {
        if ((this.epochs.get(workspace) ?? 0) === epoch) this.seen.set(workspace, Number(value ?? 0));
      })
      .catch(() => undefined)
      .finally(done);
  }
}
