/** A record's field in a state, since when (on its workspace's clock). */
export interface Followed {
  readonly workspace: string;
  readonly collection: string;
  readonly key: string;
  readonly field: string;
  readonly state: string;
  readonly enteredAt: number;
  /** Names this stay in the state, in a shared schedule: a move out of it is claimed under this name. */
  readonly stay?: string;
}

/**
 * The fields the transitions follow, each under an id naming the record's field. In one process a
 * map; on Redis one hash every replica reads, so a record changed through one replica moves when
 * the clock is moved on any (src/transitions/redis-schedule.ts).
 *
 * Once across replicas: every replica passes over the same schedule, so before moving a record out
 * of a state the engine `claim`s that stay; only the replica whose claim succeeds moves it, then
 * `settle`s the entry to the state it moved to.
 */
export interface Schedule {
  /**
   * A request put a record's field in a state (`entry`), or in none a rule moves out of (undefined).
   * A field followed in that state already keeps its time. A shared schedule answers the write's
   * promise, which is not awaited (this runs on the request's path), only watched for a failure.
   */
  follow(id: string, entry: Followed | undefined): Promise<void> | undefined;
  /** Every field followed, as it stands. */
  entries(): Promise<readonly (readonly [string, Followed])[]>;
  /**
   * Takes the move out of `entry` for this process: true on one replica only, and only while the
   * field is still followed as `entry` (a request or another replica may have moved it since).
   */
  claim(id: string, entry: Followed): Promise<boolean>;
  /**
   * After the move out of `entry` was made (`next`, the state it is in now) or found not to be
   * possible (undefined: the entry goes). Changes nothing, and answers undefined, when the field
   * was followed anew meanwhile; otherwise answers the entry as now followed.
   */
  settle(id: string, entry: Followed, next: Followed | undefined): Promise<Followed | undefined>;
  /** A workspace's fields followed no more. */
  forget(workspace: string): Promise<void>;
  reset(): Promise<void>;
}

/** The schedule of one process. */
export class MemorySchedule implements Schedule {
  private readonly followed = new Map<string, Followed>();

  follow(id: string, entry: Followed | undefined): undefined {
    if (entry === undefined) this.followed.delete(id);
    else if (this.followed.get(id)?.state !== entry.state) this.followed.set(id, entry);
    return undefined;
  }

  entries(): Promise<readonly (readonly [string, Followed])[]> {
    return Promise.resolve([...this.followed]);
  }

  claim(id: string, entry: Followed): Promise<boolean> {
    return Promise.resolve(this.followed.get(id) === entry);
  }

  settle(id: string, entry: Followed, next: Followed | undefined): Promise<Followed | undefined> {
    if (this.followed.get(id) !== entry) return Promise.resolve(undefined);
    if (next === undefined) this.followed.delete(id);
    else this.followed.set(id, next);
    return Promise.resolve(next);
  }

  forget(workspace: string): Promise<void> {
    for (const [id, entry] of this.followed) if (entry.workspace === workspace) this.followed.delete(id);
    return Promise.resolve();
  }

  reset(): Promise<void> {
    this.followed.clear();
    return Promise.resolve();
  }
}
