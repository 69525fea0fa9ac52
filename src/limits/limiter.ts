import type { Awaitable } from '../vocabulary/exchange.js';
import type { CapturedCounters, ClientState, CounterStore, LimitPolicy, TakeOutcome } from './counter-store.js';
import { secondsUntil, WINDOWS, windowStart } from './windows.js';

/** The earliest moment every window has room again: the latest end among the full windows. */
const resumeOf = (state: ClientState, limits: readonly number[]): number =>
  Math.max(0, ...state.windows.map((w, i) => (w.count >= (limits[i] ?? Infinity) ? w.start + (WINDOWS[i]?.lengthMs ?? 0) : 0)));

/** A pricing plan's limits: requests per minute and per UTC day. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** Who a request is counted against: an API key, or the client address when no valid key was sent. */
export interface Client {
  readonly id: string;
  readonly plan: string;
}

export type LimitVerdict =
  | { readonly admitted: true; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly admitted: false;
      readonly code: 'rate_limited' | 'key_banned' | 'service_unavailable';
      readonly message: string;
      readonly headers: Readonly<Record<string, string>>;
    };

export interface BanPolicy {
  /** 429 answers within one minute window that start a ban. */
  readonly threshold: number;
  readonly durationSeconds: number;
}

interface CompiledPlan {
  readonly policy: LimitPolicy;
  /** The RateLimit-Policy field, the same on every answer. */
  readonly header: string;
}

/**
 * Per-client limits over two fixed windows at once (requests per minute and per day), with bans for
 * clients that keep going after 429s. Pure logic: the counters live in a store behind a contract, and
 * "now" is handed in (each workspace may have its own clock).
 */
export class Limiter {
  private readonly compiled = new Map<string, CompiledPlan>();
  /** Each compiled policy's plan, so a client still counted under a replaced one is answered by it. */
  private readonly byPolicy = new WeakMap<LimitPolicy, CompiledPlan>();

  /**
   * `clearing` says how a banned client's ban can be cleared before it ends, appended to the ban's
   * message (`; an admin clears it: POST …`): the sandbox knows whether it has an admin API.
   */
  constructor(
    private plans: Readonly<Record<string, PlanLimits>>,
    private bans: BanPolicy,
    private readonly counters: CounterStore,
    private readonly clearing: (client: Client) => string = () => '',
  ) {}

  /**
   * New plan limits and ban policy (a reload of the config). Counters are kept; each client is held
   * to the new limits from its next minute window (its current one finishes under the old).
   */
  setPlans(plans: Readonly<Record<string, PlanLimits>>, bans: BanPolicy): void {
    this.plans = plans;
    this.bans = bans;
    this.compiled.clear();
  }

  /**
   * Counts a request against the client at `now`, or refuses it; either way with the headers to
   * send. At once when the counter store answers at once.
   */
  take(client: Client, now: number): Awaitable<LimitVerdict> {
    const plan = this.planOf(client.plan);
    const outcome = this.counters.take(client.id, plan.policy, now);
    return outcome instanceof Promise ? outcome.then((o) => this.verdict(client, plan, o, now)) : this.verdict(client, plan, outcome, now);
  }

  private verdict(client: Client, current: CompiledPlan, outcome: TakeOutcome, now: number): LimitVerdict {
    const judged = this.judged(client, current, outcome, now);
    if (outcome.degraded === undefined) return judged;
    // Decided without the shared counters: the answer says how (`closed` refuses everything, 503).
    const headers = { ...judged.headers, 'x-sandbox-limits': outcome.degraded };
    if (outcome.degraded !== 'closed') return { ...judged, headers };
    return {
      admitted: false,
      code: 'service_unavailable',
      message: 'Rate limits cannot be checked while the shared store is unreachable; retry shortly',
      headers: { 'x-sandbox-limits': 'closed', 'retry-after': '1' },
    };
  }

  private judged(client: Client, current: CompiledPlan, { kind, state }: TakeOutcome, now: number): LimitVerdict {
    // The plan the client's window is counted under (the one before a reload, until its window ends).
    const plan = state.policy ? this.planFor(state.policy, current) : current;
    const limits = plan.policy.limits;
    if (kind === 'admitted') return { admitted: true, headers: this.headers(plan, state, now) };
    if (kind === 'banned') {
      // Retry-After must be exact: if a full window outlasts the ban, the ban's end is too early.
      const retry = secondsUntil(now, Math.max(state.bannedUntil, resumeOf(state, limits)));
      return {
        admitted: false,
        code: 'key_banned',
        message: `Banned for repeated requests after 429 responses; retry in ${retry} s${this.clearing(client)}`,
        headers: { ...this.headers(plan, state, now, state.bannedUntil), 'retry-after': String(retry) },
      };
    }
    // Refused: the client was not banned before this request, so a ban now is one it just earned.
    const banned = state.bannedUntil > now;
    const resumeAt = Math.max(resumeOf(state, limits), banned ? state.bannedUntil : 0);
    const full = WINDOWS.flatMap((w, i) =>
      (state.windows[i]?.count ?? 0) >= (limits[i] ?? Infinity) ? [`${limits[i]} requests per ${w.name}`] : [],
    );
    const message = `Rate limit of ${full.join(' and ')} exceeded${banned ? `; banned for ${plan.policy.banMs / 1000} s${this.clearing(client)}` : ''}`;
    return {
      admitted: false,
      code: 'rate_limited',
      message,
      headers: {
        ...this.headers(plan, state, now, banned ? state.bannedUntil : undefined),
        'retry-after': String(secondsUntil(now, resumeAt)),
      },
    };
  }

  /** The client's counters and ban at `now`, for the admin API. */
  async inspect(client: Client, now: number): Promise<object> {
    const state = await this.counters.inspect(client.id, now);
    const policy = state.policy ?? this.planOf(client.plan).policy;
    const limits = policy.limits;
    return {
      plan: client.plan,
      windows: WINDOWS.map((w, i) => {
        const count = state.windows[i]?.count ?? 0;
        const limit = limits[i] ?? 0;
        return {
          window: w.name,
          limit,
          used: count,
          remaining: Math.max(0, limit - count),
          // Windows are aligned: the current one ends at the same instant whether or not it was used.
          reset: (windowStart(now, w.lengthMs) + w.lengthMs) / 1000,
        };
      }),
      refusalsThisMinute: state.refusals.count,
      banThreshold: policy.banThreshold,
      // Whole Unix seconds, rounded up like X-RateLimit-Reset: the same number a client is shown.
      bannedUntil: state.bannedUntil > now ? Math.ceil(state.bannedUntil / 1000) : null,
    };
  }

  /** Forgets these clients' counters and bans. */
  forget(clientIds: readonly string[]): Promise<void> {
    return this.counters.forget(clientIds);
  }

  reset(): Promise<void> {
    return this.counters.reset();
  }

  /** These clients' counters and bans as they are (a snapshot's). */
  capture(clientIds: readonly string[]): Promise<Record<string, CapturedCounters>> {
    return this.counters.capture(clientIds);
  }

  /** These clients' counters and bans become the captured ones, at their time `now`. */
  restore(clientIds: readonly string[], captured: Readonly<Record<string, CapturedCounters>>, now: number): Promise<void> {
    return this.counters.restore(clientIds, captured, now);
  }

  /** A plan's limits, window by window, and its RateLimit-Policy field: worked out once per plan. */
  private planOf(plan: string): CompiledPlan {
    let known = this.compiled.get(plan);
    if (!known) {
      const limits = this.plans[plan];
      if (!limits) throw new Error(`unknown plan ${plan}`);
      const list = [limits.perMinute, limits.perDay];
      known = {
        policy: { limits: list, banThreshold: this.bans.threshold, banMs: this.bans.durationSeconds * 1000 },
        header: policyHeader(list),
      };
      this.compiled.set(plan, known);
      this.byPolicy.set(known.policy, known);
    }
    return known;
  }

  /**
   * The plan a held policy belongs to. One this limiter compiled is found by reference; another
   * (a share of the plan, counted by one replica alone while Redis is down) is described as it is.
   */
  private planFor(policy: LimitPolicy, current: CompiledPlan): CompiledPlan {
    const known = this.byPolicy.get(policy);
    if (known) return known;
    if (policy.limits.every((limit, i) => limit === current.policy.limits[i])) return current;
    const described = { policy, header: policyHeader(policy.limits) };
    this.byPolicy.set(policy, described);
    return described;
  }

  /**
   * X-RateLimit-* describe the window with the fewest requests left (the minute window on a tie);
   * RateLimit-Policy and RateLimit follow draft-ietf-httpapi-ratelimit-headers.
   */
  private headers(plan: CompiledPlan, state: ClientState, now: number, bannedUntil?: number): Record<string, string> {
    const limits = plan.policy.limits;
    // The window with the fewest requests left; a loop, as this runs on every request.
    let pick = 0;
    let fewest = Infinity;
    for (let i = 0; i < WINDOWS.length; i++) {
      const remaining = Math.max(0, (limits[i] ?? 0) - (state.windows[i]?.count ?? 0));
      if (remaining < fewest) {
        fewest = remaining;
        pick = i;
      }
    }
    const window = WINDOWS[pick] ?? WINDOWS[0];
    const resetMs = bannedUntil ?? (state.windows[pick]?.start ?? now) + window.lengthMs;
    const left = bannedUntil === undefined ? fewest : 0;
    return {
      'x-ratelimit-limit': String(limits[pick] ?? 0),
      'x-ratelimit-remaining': String(left),
      'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
      'ratelimit-policy': plan.header,
      ratelimit: `"${window.name}";r=${left};t=${secondsUntil(now, resetMs)}`,
    };
  }
}

/** The RateLimit-Policy field for these limits, window by window. */
const policyHeader = (limits: readonly number[]): string =>
  WINDOWS.map((w, i) => `"${w.name}";q=${limits[i] ?? 0};w=${w.lengthMs / 1000}`).join(', ');
