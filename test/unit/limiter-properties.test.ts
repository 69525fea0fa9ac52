import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/clock/clock.js';
import { MemoryCounterStore } from '../../src/limits/counter-store.js';
import { type BanPolicy, type Client, Limiter, type LimitVerdict } from '../../src/limits/limiter.js';

/**
 * Random histories (requests from a few clients on two plans, with small and large clock moves) run
 * through the real Limiter over a MemoryCounterStore and a SandboxClock. Every answer is checked
 * against invariants a client relies on and against an independent reference model.
 */

const SEED = 20_261_122;
const RUNS = 200;
const DAY0 = Date.parse('2026-11-22T00:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

type Command = { readonly t: 'req'; readonly client: number } | { readonly t: 'move'; readonly ms: number };

interface Scenario {
  readonly plans: { readonly a: { perMinute: number; perDay: number }; readonly b: { perMinute: number; perDay: number } };
  readonly bans: BanPolicy;
  readonly start: number;
  readonly commands: readonly Command[];
}

const CLIENTS: readonly Client[] = [
  { id: 'key_a1', plan: 'a' },
  { id: 'key_a2', plan: 'a' },
  { id: 'key_b1', plan: 'b' },
  { id: 'address:127.0.0.1', plan: 'b' },
];

const plan = fc
  .integer({ min: 1, max: 6 })
  .chain((perMinute) => fc.record({ perMinute: fc.constant(perMinute), perDay: fc.integer({ min: 1, max: 20 }) }));

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ t: fc.constant('req' as const), client: fc.integer({ min: 0, max: CLIENTS.length - 1 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('move' as const), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('move' as const), ms: fc.integer({ min: 0, max: 3 * MINUTE }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('move' as const), ms: fc.constantFrom(1, 999, 1_000, MINUTE, 600_000, DAY) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('move' as const), ms: fc.integer({ min: 0, max: 2 * DAY }) }) },
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  plans: fc.record({ a: plan, b: plan }),
  bans: fc.record({ threshold: fc.integer({ min: 1, max: 6 }), durationSeconds: fc.integer({ min: 1, max: 900 }) }),
  // Anywhere in the day, including the last seconds before midnight.
  start: fc.oneof(fc.integer({ min: DAY0, max: DAY0 + DAY - 1 }), fc.integer({ min: DAY0 + DAY - 5 * MINUTE, max: DAY0 + DAY - 1 })),
  commands: fc.array(command, { minLength: 1, maxLength: 200, size: 'max' }),
});

/** The rules, written out again from the requirement, independently of the implementation. */
class Reference {
  private readonly counts = new Map<string, number>();
  private readonly refusals = new Map<string, { start: number; count: number }>();
  private readonly bannedUntil = new Map<string, number>();

  constructor(private readonly s: Scenario) {}

  decide(client: Client, now: number): Decision {
    const limits = this.s.plans[client.plan as 'a' | 'b'];
    const minuteStart = Math.floor(now / MINUTE) * MINUTE;
    const dayStart = Math.floor(now / DAY) * DAY;
    const m = `${client.id} m ${minuteStart}`;
    const d = `${client.id} d ${dayStart}`;
    const used = { minute: this.counts.get(m) ?? 0, day: this.counts.get(d) ?? 0 };
    /** X-RateLimit-*: the window with fewer requests left, the minute on a tie; a ban's end as Reset. */
    const headers = (bannedUntil?: number): Decision['headers'] => {
      const left = { minute: Math.max(0, limits.perMinute - used.minute), day: Math.max(0, limits.perDay - used.day) };
      const day = left.day < left.minute;
      const end = day ? dayStart + DAY : minuteStart + MINUTE;
      return {
        limit: day ? limits.perDay : limits.perMinute,
        remaining: bannedUntil === undefined ? (day ? left.day : left.minute) : 0,
        reset: Math.ceil((bannedUntil ?? end) / 1000),
      };
    };
    const ban = this.bannedUntil.get(client.id) ?? 0;
    const full = Math.max(used.minute >= limits.perMinute ? minuteStart + MINUTE : 0, used.day >= limits.perDay ? dayStart + DAY : 0);
    // While banned, Retry-After is the later of the ban's end and the end of any full window.
    if (ban > now)
      return { code: 'key_banned', retryAfter: Math.max(1, Math.ceil((Math.max(ban, full) - now) / 1000)), headers: headers(ban) };
    if (used.minute < limits.perMinute && used.day < limits.perDay) {
      this.counts.set(m, ++used.minute);
      this.counts.set(d, ++used.day);
      return { code: 'admitted', headers: headers() };
    }
    let resume = full;
    const r = this.refusals.get(client.id);
    const refusals = r && r.start === minuteStart ? r.count + 1 : 1;
    this.refusals.set(client.id, { start: minuteStart, count: refusals });
    let until: number | undefined;
    if (refusals >= this.s.bans.threshold) {
      until = now + this.s.bans.durationSeconds * 1000;
      this.bannedUntil.set(client.id, until);
      this.refusals.set(client.id, { start: minuteStart, count: 0 });
      resume = Math.max(resume, until);
    }
    return { code: 'rate_limited', retryAfter: Math.max(1, Math.ceil((resume - now) / 1000)), headers: headers(until) };
  }
}

interface Decision {
  readonly code: 'admitted' | 'rate_limited' | 'key_banned';
  readonly retryAfter?: number;
  readonly headers: { readonly limit: number; readonly remaining: number; readonly reset: number };
}

interface Step {
  readonly client: Client;
  readonly now: number;
  readonly verdict: LimitVerdict;
}

async function run(s: Scenario, extra: readonly Command[] = []): Promise<{ steps: Step[]; clock: SandboxClock; limiter: Limiter }> {
  const clock = new SandboxClock(() => 0, s.start);
  const limiter = new Limiter(s.plans, s.bans, new MemoryCounterStore());
  const steps: Step[] = [];
  for (const c of [...s.commands, ...extra]) {
    if (c.t === 'move') clock.advance(c.ms);
    else {
      const client = CLIENTS[c.client]!;
      steps.push({ client, now: clock.now(), verdict: await limiter.take(client, clock.now()) });
    }
  }
  return { steps, clock, limiter };
}

const integer = (value: string | undefined): number => {
  expect(value).toMatch(/^\d+$/);
  return Number(value);
};

const options = { seed: SEED, numRuns: RUNS } as const;

describe('Limiter properties (fast-check, fixed seed)', () => {
  it('keeps every header within bounds: 0 ≤ Remaining ≤ Limit, Reset in the future, Retry-After ≥ 1', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        for (const { client, now, verdict } of (await run(s)).steps) {
          const limits = s.plans[client.plan as 'a' | 'b'];
          const h = verdict.headers;
          const limit = integer(h['x-ratelimit-limit']);
          const remaining = integer(h['x-ratelimit-remaining']);
          const reset = integer(h['x-ratelimit-reset']);
          expect([limits.perMinute, limits.perDay]).toContain(limit);
          expect(remaining).toBeGreaterThanOrEqual(0);
          expect(remaining).toBeLessThanOrEqual(limit);
          expect(reset * 1000).toBeGreaterThan(now);
          expect(h['ratelimit-policy']).toBe(`"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`);
          const ietf = /^"(minute|day)";r=(\d+);t=(\d+)$/.exec(h.ratelimit ?? '');
          expect(ietf).not.toBeNull();
          expect(Number(ietf![2])).toBe(remaining);
          expect(Number(ietf![3])).toBeGreaterThanOrEqual(1);
          // t counts to the same moment as Reset (which is that moment rounded up to a whole second).
          const toReset = Math.max(1, Math.ceil((reset * 1000 - now) / 1000));
          expect(Number(ietf![3])).toBeLessThanOrEqual(toReset);
          expect(Number(ietf![3])).toBeGreaterThanOrEqual(toReset - 1);
          if (verdict.admitted) {
            expect(h['retry-after']).toBeUndefined();
          } else {
            expect(remaining).toBe(0);
            expect(integer(h['retry-after'])).toBeGreaterThanOrEqual(1);
          }
        }
      }),
      options,
    );
  });

  it('never admits more than the limit in any minute or day window, for any client', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const admitted = new Map<string, number>();
        for (const { client, now, verdict } of (await run(s)).steps) {
          if (!verdict.admitted) continue;
          const limits = s.plans[client.plan as 'a' | 'b'];
          const m = `${client.id} minute ${Math.floor(now / MINUTE)}`;
          const d = `${client.id} day ${Math.floor(now / DAY)}`;
          admitted.set(m, (admitted.get(m) ?? 0) + 1);
          admitted.set(d, (admitted.get(d) ?? 0) + 1);
          expect(admitted.get(m)).toBeLessThanOrEqual(limits.perMinute);
          expect(admitted.get(d)).toBeLessThanOrEqual(limits.perDay);
        }
      }),
      options,
    );
  });

  it('decides every request exactly as the reference rules do: admits, refuses, bans, Retry-After and the window described', async () => {
    const seen = { admitted: 0, rate_limited: 0, key_banned: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const reference = new Reference(s);
        for (const { client, now, verdict } of (await run(s)).steps) {
          const expected = reference.decide(client, now);
          const h = verdict.headers;
          const headers = {
            limit: integer(h['x-ratelimit-limit']),
            remaining: integer(h['x-ratelimit-remaining']),
            reset: integer(h['x-ratelimit-reset']),
          };
          const actual = verdict.admitted
            ? { code: 'admitted', headers }
            : { code: verdict.code, retryAfter: integer(h['retry-after']), headers };
          expect(actual).toEqual(expected);
          seen[actual.code as keyof typeof seen]++;
        }
      }),
      options,
    );
    // The histories reach every outcome often, not just the easy one.
    expect(seen.admitted).toBeGreaterThan(2_000);
    expect(seen.rate_limited).toBeGreaterThan(1_000);
    expect(seen.key_banned).toBeGreaterThan(300);
  });

  it('gives an exact Retry-After: rate_limited, that many seconds later is admitted, one second earlier is not', async () => {
    const checked = { rate_limited: 0, key_banned: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, fc.integer({ min: 0, max: CLIENTS.length - 1 }), async (s, who) => {
        // End on a burst from one client at one instant, cut at its first refusal (one is certain:
        // the burst is longer than the minute allows).
        const client = CLIENTS[who]!;
        const limit = s.plans[client.plan as 'a' | 'b'].perMinute;
        const long: Command[] = Array.from({ length: limit + 1 }, () => ({ t: 'req', client: who }));
        const first = (await run(s, long)).steps.slice(-long.length).findIndex((step) => !step.verdict.admitted);
        expect(first).toBeGreaterThanOrEqual(0);
        const burst = long.slice(0, first + 1);
        const refused = (await run(s, burst)).steps.at(-1)!.verdict;
        if (refused.admitted || refused.code === 'service_unavailable') throw new Error('the replay differs from the first run');
        const wait = integer(refused.headers['retry-after']);
        expect(wait).toBeGreaterThanOrEqual(1);
        // Histories are deterministic: replay to try each moment once, on a fresh limiter.
        const at = async (seconds: number) =>
          (await run(s, [...burst, { t: 'move', ms: seconds * 1000 }, { t: 'req', client: who }])).steps.at(-1)!.verdict;
        const late = await at(wait);
        const early = await at(wait - 1);
        checked[refused.code]++;
        // Both refusals are exact: key_banned points at the later of the ban's end and any full
        // window's end, so the request then is admitted.
        expect(late.admitted).toBe(true);
        expect(early.admitted).toBe(false);
      }),
      options,
    );
    // Both kinds of refusal were exercised.
    expect(checked.rate_limited).toBeGreaterThan(RUNS / 2);
    expect(checked.key_banned).toBeGreaterThan(0);
  });
});
