/**
 * Which workspace makes room for a new one: pure, so that its rules are tested without a sandbox.
 *
 * - The default workspace and those the config names are never evicted.
 * - A workspace used within the idle time is never evicted, whatever its pool: a suite that wrote a
 *   record a second ago keeps it, however many workspaces are asked for meanwhile.
 * - A visitor's workspace (the docs page's, minted without a token) makes room only by evicting
 *   another visitor's: anonymous callers can never push out a workspace an admin issued.
 * - Anything else prefers an idle visitor's workspace, then the least recently used idle one.
 */

/** Where a workspace came from: the default one and the config's, the admin API's, the docs page's. */
export type WorkspacePool = 'permanent' | 'issued' | 'visitor';

/** What eviction reads of a workspace. */
export interface EvictionCandidate {
  readonly id: string;
  readonly pool: WorkspacePool;
  /** When its last request came (or it was created), on the sandbox clock. */
  readonly lastUsedAt: number;
  /** The order of that use among all workspaces' (breaks ties on a clock that stands still). */
  readonly useOrder: number;
}

export interface EvictionLimits {
  /** Most workspaces held at once, of every pool. */
  readonly max: number;
  /** Most visitor workspaces held at once. */
  readonly visitors: number;
  /** A workspace used within this many ms is never evicted. */
  readonly idleMs: number;
}

/** Room as it is (`free`), made by evicting one (`evict`), or none to be had (`full`, and when some may be). */
export type Room =
  { readonly kind: 'free' } | { readonly kind: 'evict'; readonly id: string } | { readonly kind: 'full'; readonly retryAfterMs: number };

/** Where a new workspace of the pool finds room among those held, at `now`. */
export function roomFor(
  pool: Exclude<WorkspacePool, 'permanent'>,
  held: readonly EvictionCandidate[],
  limits: EvictionLimits,
  now: number,
): Room {
  const visitors = held.filter((w) => w.pool === 'visitor');
  const overAll = held.length >= limits.max;
  if (pool === 'visitor' ? !overAll && visitors.length < limits.visitors : !overAll) return { kind: 'free' };
  const idle = (w: EvictionCandidate): boolean => now - w.lastUsedAt >= limits.idleMs;
  const pick =
    pool === 'visitor'
      ? oldest(visitors.filter(idle))
      : (oldest(visitors.filter(idle)) ?? oldest(held.filter((w) => w.pool !== 'permanent' && idle(w))));
  if (pick) return { kind: 'evict', id: pick.id };
  // A visitor's workspace is the only kind a new visitor could ever take the place of: the first of
  // them to fall idle says when to come back (the whole idle time when there is none).
  const soonest = Math.min(...visitors.map((w) => w.lastUsedAt + limits.idleMs - now), limits.idleMs);
  return { kind: 'full', retryAfterMs: Math.max(1000, soonest) };
}

/** The least recently used: the oldest last use, then the earliest in use order. */
function oldest(candidates: readonly EvictionCandidate[]): EvictionCandidate | undefined {
  let found: EvictionCandidate | undefined;
  for (const c of candidates)
    if (!found || c.lastUsedAt < found.lastUsedAt || (c.lastUsedAt === found.lastUsedAt && c.useOrder < found.useOrder)) found = c;
  return found;
}
