/** What the journal's retention pushed out, per key and per workspace: how a reader knows what it cannot see. */

/** Requests the journal dropped (pushed out by newer ones, past `journalSize`) of one key, one workspace or all. */
export interface Dropped {
  /** How many it dropped. */
  readonly count: number;
  /** The sandbox-clock time of the newest one dropped, Unix milliseconds (undefined when none was). */
  readonly newestTime: number | undefined;
  /**
   * False when the count may be short: past `MAX_TRACKED` keys or workspaces, the tally of the one
   * first tallied is forgotten (the journal-wide tally still counts it).
   */
  readonly exact: boolean;
}

/** Which tally is asked for: a key's, a workspace's, or the whole journal's when neither is named. */
export interface DroppedFilter {
  readonly keyId?: string | undefined;
  readonly workspace?: string | undefined;
}

interface Tally {
  count: number;
  newestTime: number;
  /** The workspace of a key's tally, so that clearing a workspace forgets its keys' tallies. */
  readonly workspace: string;
}

/** Most keys, and most workspaces, tallied: a bound on memory however many keys come and go. */
export const MAX_TRACKED = 10_000;

const NONE: Dropped = { count: 0, newestTime: undefined, exact: true };

/**
 * Tallies of the records a full journal pushed out, kept beside the ring: adding to them is a map
 * update, and it happens only when the journal is full.
 */
export class Evictions {
  private total: Tally | undefined;
  private readonly byKey = new Map<string, Tally>();
  private readonly byWorkspace = new Map<string, Tally>();
  private overflowed = false;

  /** Counts one record pushed out, made with `keyId` (if any) in `workspace`, answered at `time`. */
  note(keyId: string | undefined, workspace: string, time: number): void {
    this.total = bump(this.total, workspace, time);
    if (keyId !== undefined) this.bumpIn(this.byKey, keyId, workspace, time);
    this.bumpIn(this.byWorkspace, workspace, workspace, time);
  }

  /** What was dropped of a key (given both, the key's: it works in one workspace), of a workspace, or of all. */
  of(filter: DroppedFilter): Dropped {
    const { keyId, workspace } = filter;
    const tally = keyId !== undefined ? this.byKey.get(keyId) : workspace !== undefined ? this.byWorkspace.get(workspace) : this.total;
    const exact = keyId === undefined && workspace === undefined ? true : !this.overflowed;
    return tally === undefined ? { ...NONE, exact } : { count: tally.count, newestTime: tally.newestTime, exact };
  }

  /** Forgets what a clear of the journal forgets: all, or a key's, or a workspace's (and its keys'). */
  forget(filter: DroppedFilter): void {
    const { keyId, workspace } = filter;
    if (keyId === undefined && workspace === undefined) {
      this.total = undefined;
      this.byKey.clear();
      this.byWorkspace.clear();
      this.overflowed = false;
      return;
    }
    if (keyId !== undefined) this.byKey.delete(keyId);
    if (workspace !== undefined && keyId === undefined) {
      this.byWorkspace.delete(workspace);
      for (const [id, tally] of this.byKey) if (tally.workspace === workspace) this.byKey.delete(id);
    }
  }

  private bumpIn(map: Map<string, Tally>, id: string, workspace: string, time: number): void {
    const tally = map.get(id);
    if (tally !== undefined) {
      bump(tally, workspace, time);
      return;
    }
    if (map.size >= MAX_TRACKED) {
      // The first tallied goes (cheaper than keeping an order by last drop, on a path that runs per
      // request); from then on every key's and workspace's tally says it may be short.
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
      this.overflowed = true;
    }
    map.set(id, { count: 1, newestTime: time, workspace });
  }
}

function bump(tally: Tally | undefined, workspace: string, time: number): Tally {
  if (tally === undefined) return { count: 1, newestTime: time, workspace };
  tally.count += 1;
  tally.newestTime = Math.max(tally.newestTime, time);
  return tally;
}
