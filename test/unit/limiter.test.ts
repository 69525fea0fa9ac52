import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/clock/clock.js';
import type { PlanLimits } from '../../src/limits/limiter.js';
import { MemoryCounterStore, type LimitPolicy } from '../../src/limits/counter-store.js';
import { type BanPolicy, type Client, Limiter, type LimitVerdict } from '../../src/limits/limiter.js';
import { secondsUntil, WINDOWS, windowStart } from '../../src/limits/windows.js';

/** The same instant the HTTP tests start at: 30 s into a clock minute, 10 h into a UTC day. */
const START = Date.parse('2026-11-22T10:00:30Z');
const MINUTE_END = Date.parse('2026-11-22T10:01:00Z');
const DAY_END = Date.parse('2026-11-23T00:00:00Z');
const S = 1000;
const MIN = 60 * S;

const PLANS: Record<string, PlanLimits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: { perMinute: 5_000, perDay: 1_000_000 },
  tiny: { perMinute: 3, perDay: 5 },
  even: { perMinute: 3, perDay: 6 },
  flat: { perMinute: 4, perDay: 4 },
};
const BANS: BanPolicy = { threshold: 20, durationSeconds: 600 };

function setup(options: { bans?: BanPolicy; at?: number; store?: MemoryCounterStore } = {}) {
  const clock = new SandboxClock(() => 0, options.at ?? START);
  const store = options.store ?? new MemoryCounterStore();
  return { clock, store, limiter: atClock(new Limiter(PLANS, options.bans ?? BANS, store), clock) };
}

/** The limiter, asked at the clock's "now" (the pipeline hands it the workspace clock's). */
function atClock(limiter: Limiter, clock: SandboxClock) {
  return {
    take: (client: Client) => limiter.take(client, clock.now()),
    inspect: (client: Client) => limiter.inspect(client, clock.now()),
    reset: () => limiter.reset(),
  };
}
type ClockedLimiter = ReturnType<typeof atClock>;

const key = (id: string, plan = 'free'): Client => ({ id, plan });

/** The numbers a client reads from the headers. */
function seen(verdict: LimitVerdict) {
  const h = verdict.headers;
  return {
    limit: Number(h['x-ratelimit-limit']),
    remaining: Number(h['x-ratelimit-remaining']),
    reset: Number(h['x-ratelimit-reset']),
    retryAfter: h['retry-after'] === undefined ? undefined : Number(h['retry-after']),
    policy: h['ratelimit-policy'],
    ratelimit: h.ratelimit,
  };
}

const codeOf = (verdict: LimitVerdict): string => (verdict.admitted ? 'admitted' : verdict.code);

/** Takes `n` requests and returns how many were admitted. */
async function takeMany(limiter: ClockedLimiter, client: Client, n: number): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < n; i++) if ((await limiter.take(client)).admitted) admitted++;
  return admitted;
}

describe('windows', () => {
  it('aligns the minute window to the clock minute and the day window to 00:00 UTC', async () => {
    expect(WINDOWS.map((w) => [w.name, w.lengthMs])).toEqual([
      ['minute', 60_000],
      ['day', 86_400_000],
    ]);
    expect(windowStart(START, 60_000)).toBe(Date.parse('2026-11-22T10:00:00Z'));
    expect(windowStart(START, 86_400_000)).toBe(Date.parse('2026-11-22T00:00:00Z'));
    expect(windowStart(MINUTE_END - 1, 60_000)).toBe(Date.parse('2026-11-22T10:00:00Z'));
    expect(windowStart(MINUTE_END, 60_000)).toBe(MINUTE_END);
    expect(windowStart(DAY_END - 1, 86_400_000)).toBe(Date.parse('2026-11-22T00:00:00Z'));
    expect(windowStart(DAY_END, 86_400_000)).toBe(DAY_END);
  });

  it('gives whole seconds to wait, rounded up and never below 1', async () => {
    expect(secondsUntil(START, MINUTE_END)).toBe(30);
    expect(secondsUntil(START, MINUTE_END + 1)).toBe(31);
    expect(secondsUntil(START, START + 1)).toBe(1);
    expect(secondsUntil(START, START)).toBe(1);
    expect(secondsUntil(START, START - 5_000)).toBe(1);
  });
});

describe('Limiter: the minute window', () => {
  it('admits exactly 60 requests in a minute on the free plan, counting Remaining down from 59 to 0', async () => {
    const { limiter } = setup();
    const remaining: number[] = [];
    for (let i = 0; i < 60; i++) {
      const v = await limiter.take(key('k'));
      expect(v.admitted).toBe(true);
      const h = seen(v);
      expect(h.limit).toBe(60);
      expect(h.reset).toBe(MINUTE_END / 1000);
      expect(h.retryAfter).toBeUndefined();
      remaining.push(h.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
  });

  it('refuses the 61st with rate_limited, Remaining 0, Reset at the minute end and Retry-After to it', async () => {
    const { limiter } = setup();
    expect(await takeMany(limiter, key('k'), 60)).toBe(60);
    const v = await limiter.take(key('k'));
    expect(v.admitted).toBe(false);
    if (v.admitted) return;
    expect(v.code).toBe('rate_limited');
    expect(v.message).toMatch(/60 requests per minute/);
    expect(seen(v)).toMatchObject({ limit: 60, remaining: 0, reset: MINUTE_END / 1000, retryAfter: 30 });
    expect(v.headers.ratelimit).toBe('"minute";r=0;t=30');
  });

  it('keeps refusing until the last millisecond of the window and admits at its first', async () => {
    const { limiter, clock } = setup();
    await takeMany(limiter, key('k'), 60);
    clock.advance(MINUTE_END - 1 - clock.now());
    expect(codeOf(await limiter.take(key('k')))).toBe('rate_limited');
    clock.advance(1);
    const v = await limiter.take(key('k'));
    expect(v.admitted).toBe(true);
    expect(seen(v)).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END / 1000 + 60 });
    expect(await takeMany(limiter, key('k'), 100)).toBe(59);
  });

  it('does not count refused requests: after any number of 429s the next window admits its full 60', async () => {
    const { limiter, clock } = setup({ bans: { threshold: 1_000, durationSeconds: 600 } });
    await takeMany(limiter, key('k'), 60 + 500);
    expect(await limiter.inspect(key('k'))).toMatchObject({ windows: [{ used: 60 }, { used: 60 }] });
    clock.advance(30 * S);
    expect(await takeMany(limiter, key('k'), 61)).toBe(60);
    expect(await limiter.inspect(key('k'))).toMatchObject({ windows: [{ used: 60 }, { used: 120 }] });
  });

  it.each([
    ['on a whole second', 0],
    ['250 ms into a second', 250],
    ['999 ms into a second', 999],
  ])('gives an exact Retry-After %s: that many seconds later succeeds, one second earlier does not', async (_, ms) => {
    const { limiter, clock } = setup({ at: START + ms });
    await takeMany(limiter, key('k'), 60);
    const refused = seen(await limiter.take(key('k')));
    const wait = refused.retryAfter!;
    expect(Number.isInteger(wait)).toBe(true);
    expect(wait).toBeGreaterThanOrEqual(1);
    clock.advance((wait - 1) * S);
    expect(codeOf(await limiter.take(key('k')))).toBe('rate_limited');
    clock.advance(1 * S);
    expect(codeOf(await limiter.take(key('k')))).toBe('admitted');
  });

  it('gives Retry-After 1 (never 0) in the last second of a window', async () => {
    const { limiter, clock } = setup({ at: MINUTE_END - 400 });
    await takeMany(limiter, key('k'), 60);
    expect(seen(await limiter.take(key('k'))).retryAfter).toBe(1);
    clock.advance(400);
    expect(codeOf(await limiter.take(key('k')))).toBe('admitted');
  });
});

describe('Limiter: the day window', () => {
  it('counts across minutes: 1000 a day on the free plan, the 1001st refused until 00:00 UTC', async () => {
    const { limiter, clock } = setup();
    let admitted = 0;
    for (let minute = 0; minute < 16; minute++) {
      admitted += await takeMany(limiter, key('k'), 61);
      clock.advance(MIN);
    }
    expect(admitted).toBe(960);
    // 40 more in the 17th minute, and then the day window stops it, not the minute window.
    expect(await takeMany(limiter, key('k'), 40)).toBe(40);
    expect(await limiter.inspect(key('k'))).toMatchObject({
      windows: [
        { used: 40, remaining: 20 },
        { used: 1_000, remaining: 0 },
      ],
    });
    const v = await limiter.take(key('k'));
    expect(codeOf(v)).toBe('rate_limited');
    if (v.admitted) return;
    expect(v.message).toMatch(/1000 requests per day/);
    const h = seen(v);
    expect(h).toMatchObject({ limit: 1_000, remaining: 0, reset: DAY_END / 1000 });
    expect(h.retryAfter).toBe(secondsUntil(clock.now(), DAY_END));
    expect(h.ratelimit).toBe(`"day";r=0;t=${h.retryAfter}`);
    // Exact: a second before midnight still refused, midnight admitted, with a fresh day.
    clock.advance((h.retryAfter! - 1) * S);
    expect(codeOf(await limiter.take(key('k')))).toBe('rate_limited');
    clock.advance(1 * S);
    const next = await limiter.take(key('k'));
    expect(next.admitted).toBe(true);
    expect(await limiter.inspect(key('k'))).toMatchObject({ windows: [{ used: 1 }, { used: 1 }] });
  });

  it('refuses on the day window while the minute window still has room, counting nothing in either', async () => {
    const { limiter, clock } = setup();
    expect(await takeMany(limiter, key('t', 'tiny'), 3)).toBe(3);
    clock.advance(MIN);
    expect(await takeMany(limiter, key('t', 'tiny'), 2)).toBe(2);
    const v = await limiter.take(key('t', 'tiny'));
    expect(codeOf(v)).toBe('rate_limited');
    expect(seen(v)).toMatchObject({ limit: 5, remaining: 0, reset: DAY_END / 1000 });
    expect(await limiter.inspect(key('t', 'tiny'))).toMatchObject({
      windows: [
        { window: 'minute', limit: 3, used: 2, remaining: 1 },
        { window: 'day', limit: 5, used: 5, remaining: 0 },
      ],
    });
  });

  it('points Retry-After at the later end when both windows are full', async () => {
    const clock = new SandboxClock(() => 0, START);
    const limiter = atClock(new Limiter({ both: { perMinute: 2, perDay: 2 } }, BANS, new MemoryCounterStore()), clock);
    expect(await takeMany(limiter, key('b', 'both'), 2)).toBe(2);
    const v = await limiter.take(key('b', 'both'));
    expect(seen(v)).toMatchObject({ remaining: 0, retryAfter: secondsUntil(START, DAY_END) });
    // The minute window's end is not enough.
    clock.advance(MINUTE_END - START);
    expect(codeOf(await limiter.take(key('b', 'both')))).toBe('rate_limited');
  });

  it('starts the day at 00:00 UTC, whatever the minute', async () => {
    const { limiter, clock } = setup({ at: DAY_END - 30 * S });
    expect(await takeMany(limiter, key('t', 'tiny'), 3)).toBe(3);
    clock.advance(30 * S);
    // A new minute and a new day at once.
    expect(await takeMany(limiter, key('t', 'tiny'), 4)).toBe(3);
  });
});

describe('Limiter: which window the X-RateLimit headers describe', () => {
  it('describes the minute window while it has fewer requests left', async () => {
    const { limiter } = setup();
    const h = seen(await limiter.take(key('k')));
    expect(h).toMatchObject({ limit: 60, remaining: 59, reset: MINUTE_END / 1000 });
    expect(h.policy).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
    expect(h.ratelimit).toBe('"minute";r=59;t=30');
  });

  it('describes the day window once it has fewer left than the minute', async () => {
    const { limiter, clock } = setup();
    await takeMany(limiter, key('t', 'tiny'), 3);
    clock.advance(MIN);
    const h = seen(await limiter.take(key('t', 'tiny')));
    // minute 2 left, day 1 left: the day.
    expect(h).toMatchObject({ limit: 5, remaining: 1, reset: DAY_END / 1000 });
    expect(h.policy).toBe('"minute";q=3;w=60, "day";q=5;w=86400');
    expect(h.ratelimit).toBe(`"day";r=1;t=${secondsUntil(clock.now(), DAY_END)}`);
  });

  it('describes the minute window on a tie', async () => {
    const { limiter, clock } = setup();
    await takeMany(limiter, key('e', 'even'), 3);
    clock.advance(MIN);
    // minute 3-1 = 2 left, day 6-4 = 2 left: a tie.
    const h = seen(await limiter.take(key('e', 'even')));
    expect(h).toMatchObject({ limit: 3, remaining: 2, reset: MINUTE_END / 1000 + 60 });
    expect(h.ratelimit).toBe('"minute";r=2;t=30');
    // Equal limits, equal counts: a tie on every request.
    const flat = seen(await limiter.take(key('f', 'flat')));
    expect(flat).toMatchObject({ limit: 4, remaining: 3, reset: (MINUTE_END + MIN) / 1000 });
  });

  it('gives each plan its own numbers in RateLimit-Policy', async () => {
    const { limiter } = setup();
    expect(seen(await limiter.take(key('p', 'pro'))).policy).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
    expect(seen(await limiter.take(key('b', 'business'))).policy).toBe('"minute";q=1000;w=60, "day";q=100000;w=86400');
    expect(seen(await limiter.take(key('e', 'enterprise'))).policy).toBe('"minute";q=5000;w=60, "day";q=1000000;w=86400');
  });
});

describe('Limiter: bans', () => {
  it('starts a 600 s ban at the 20th 429 in one minute; that 429 already points at the ban end', async () => {
    const { limiter, clock } = setup();
    await takeMany(limiter, key('k'), 60);
    for (let i = 1; i < 20; i++) {
      const v = await limiter.take(key('k'));
      expect(codeOf(v)).toBe('rate_limited');
      expect(seen(v).retryAfter).toBe(30);
    }
    const twentieth = await limiter.take(key('k'));
    expect(codeOf(twentieth)).toBe('rate_limited');
    if (twentieth.admitted) return;
    expect(twentieth.message).toMatch(/banned for 600 s/);
    const banEnd = START + 600 * S;
    expect(seen(twentieth)).toMatchObject({ remaining: 0, retryAfter: 600, reset: banEnd / 1000 });
    expect(await limiter.inspect(key('k'))).toMatchObject({ bannedUntil: banEnd / 1000 });

    const banned = await limiter.take(key('k'));
    expect(codeOf(banned)).toBe('key_banned');
    expect(seen(banned)).toMatchObject({ remaining: 0, retryAfter: 600, reset: banEnd / 1000 });
    expect(banned.headers.ratelimit).toBe('"minute";r=0;t=600');

    // Still banned after the minute window ends, with Retry-After counting down to the ban end.
    clock.advance(30 * S);
    expect(seen(await limiter.take(key('k')))).toMatchObject({ retryAfter: 570 });
    clock.advance(569 * S);
    const last = await limiter.take(key('k'));
    expect(codeOf(last)).toBe('key_banned');
    expect(seen(last).retryAfter).toBe(1);
    clock.advance(1 * S);
    const free = await limiter.take(key('k'));
    expect(free.admitted).toBe(true);
    expect(seen(free).remaining).toBe(59);
    expect(await limiter.inspect(key('k'))).toMatchObject({ bannedUntil: null, refusalsThisMinute: 0 });
  });

  it('reports a ban that started between seconds in whole seconds, the same in the admin view as in the headers', async () => {
    const { limiter, clock } = setup({ at: START + 250 });
    await takeMany(limiter, key('k'), 60 + 19);
    const twentieth = await limiter.take(key('k'));
    const end = START + 250 + 600 * S;
    expect(seen(twentieth)).toMatchObject({ retryAfter: 600, reset: Math.ceil(end / 1000) });
    expect(await limiter.inspect(key('k'))).toMatchObject({ bannedUntil: Math.ceil(end / 1000) });
    clock.advance(600 * S - 1);
    expect(codeOf(await limiter.take(key('k')))).toBe('key_banned');
    clock.advance(1);
    expect(codeOf(await limiter.take(key('k')))).toBe('admitted');
  });

  it('does not count requests made while banned, and they do not extend the ban', async () => {
    const { limiter, clock } = setup({ bans: { threshold: 2, durationSeconds: 5 } });
    await takeMany(limiter, key('t', 'tiny'), 3 + 2);
    for (let i = 0; i < 50; i++) expect(codeOf(await limiter.take(key('t', 'tiny')))).toBe('key_banned');
    clock.advance(5 * S);
    // The ban is over; the minute window is still full (counted 3, not 3 + 52).
    const after = await limiter.take(key('t', 'tiny'));
    expect(codeOf(after)).toBe('rate_limited');
    expect(seen(after).retryAfter).toBe(25);
    expect(await limiter.inspect(key('t', 'tiny'))).toMatchObject({ windows: [{ used: 3 }, { used: 3 }] });
  });

  it('needs the 429s inside one minute window: 19 in one and 1 in the next ban nobody', async () => {
    const { limiter, clock } = setup();
    await takeMany(limiter, key('k'), 60 + 19);
    clock.advance(30 * S);
    await takeMany(limiter, key('k'), 60);
    const v = await limiter.take(key('k'));
    expect(codeOf(v)).toBe('rate_limited');
    expect(seen(v).retryAfter).toBe(60);
    expect(await limiter.inspect(key('k'))).toMatchObject({ refusalsThisMinute: 1, bannedUntil: null });
  });

  it('takes the threshold and duration from the policy, and keeps the later end when a window outlasts the ban', async () => {
    const { limiter } = setup({ bans: { threshold: 3, durationSeconds: 10 } });
    await takeMany(limiter, key('k'), 60);
    expect(codeOf(await limiter.take(key('k')))).toBe('rate_limited');
    expect(codeOf(await limiter.take(key('k')))).toBe('rate_limited');
    const third = await limiter.take(key('k'));
    expect(codeOf(third)).toBe('rate_limited');
    // Banned for 10 s, but the minute window is full for 30 s: retrying at 10 s would fail.
    expect(seen(third).retryAfter).toBe(30);
    const banned = await limiter.take(key('k'));
    expect(codeOf(banned)).toBe('key_banned');
    // Still 30: the ban ends at 10 s, but the full minute window refuses until 30 s.
    expect(seen(banned).retryAfter).toBe(30);
  });
});

describe('Limiter: clients', () => {
  it('keeps every client independent: exhausting or banning one leaves the others whole', async () => {
    const { limiter } = setup();
    await takeMany(limiter, key('a'), 60 + 20);
    expect(codeOf(await limiter.take(key('a')))).toBe('key_banned');
    expect(seen(await limiter.take(key('b')))).toMatchObject({ remaining: 59 });
    expect(await takeMany(limiter, key('b'), 100)).toBe(59);
    expect(seen(await limiter.take(key('c', 'pro')))).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('reports a client through inspect and forgets everything on reset', async () => {
    const { limiter } = setup();
    await takeMany(limiter, key('k'), 60 + 20);
    expect(await limiter.inspect(key('k'))).toEqual({
      plan: 'free',
      windows: [
        { window: 'minute', limit: 60, used: 60, remaining: 0, reset: MINUTE_END / 1000 },
        { window: 'day', limit: 1_000, used: 60, remaining: 940, reset: DAY_END / 1000 },
      ],
      refusalsThisMinute: 0,
      banThreshold: 20,
      bannedUntil: (START + 600 * S) / 1000,
    });
    await limiter.reset();
    expect(await limiter.inspect(key('k'))).toMatchObject({ windows: [{ used: 0 }, { used: 0 }], bannedUntil: null });
    expect((await limiter.take(key('k'))).admitted).toBe(true);
  });

  it('does not count anything by inspecting a client', async () => {
    const { limiter, store } = setup();
    for (let i = 0; i < 10; i++) await limiter.inspect(key(`ghost-${i}`));
    expect(store.size).toBe(0);
  });

  it('rejects a plan it does not know', async () => {
    const { limiter } = setup();
    expect(() => limiter.take(key('k', 'platinum'))).toThrow(/unknown plan platinum/);
  });

  it('checks and counts in one step, so concurrent requests cannot interleave between them', async () => {
    const { limiter } = setup();
    const verdicts = await Promise.all(Array.from({ length: 240 }, () => limiter.take(key('k'))));
    expect(verdicts.filter((v) => v.admitted)).toHaveLength(60);
    expect(verdicts.slice(0, 60).map((v) => Number(v.headers['x-ratelimit-remaining']))).toEqual(
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    expect(verdicts.slice(60).every((v) => !v.admitted)).toBe(true);
  });
});

describe('MemoryCounterStore', () => {
  /** Limits per window, with a ban after `threshold` refusals in a minute lasting `banMs`. */
  const policy = (limits: number[], threshold = 20, banMs = 600 * S): LimitPolicy => ({ limits, banThreshold: threshold, banMs });

  it('checks and counts both windows in one step: all or nothing', async () => {
    const store = new MemoryCounterStore();
    expect((await store.take('c', policy([2, 3]), START)).kind).toBe('admitted');
    expect((await store.take('c', policy([2, 3]), START)).kind).toBe('admitted');
    const refused = await store.take('c', policy([2, 3]), START);
    expect(refused.kind).toBe('refused');
    expect(refused.state.windows.map((w) => w.count)).toEqual([2, 2]);
    // Next minute: the minute window has room, the day window has one left, then none.
    expect((await store.take('c', policy([2, 3]), START + MIN)).kind).toBe('admitted');
    const dayFull = await store.take('c', policy([2, 3]), START + MIN);
    expect(dayFull.kind).toBe('refused');
    expect(dayFull.state.windows.map((w) => w.count)).toEqual([1, 3]);
  });

  it('stays at its cap with many distinct client ids, evicting the least recently used', async () => {
    const store = new MemoryCounterStore(1_000);
    // A client that keeps coming back stays; the 100,000 one-off clients come and go.
    for (let i = 0; i < 100_000; i++) {
      await store.take(`address:${i}`, policy([60, 1_000]), START);
      if (i % 100 === 0) await store.take('regular', policy([60, 1_000]), START);
      expect(store.size).toBeLessThanOrEqual(1_000);
    }
    expect(store.size).toBe(1_000);
    expect((await store.inspect('regular', START)).windows[0]?.count).toBe(60);
    // Long evicted: counted afresh.
    expect((await store.inspect('address:0', START)).windows[0]?.count).toBe(0);
    // Most recent: still counted.
    expect((await store.inspect('address:99999', START)).windows[0]?.count).toBe(1);
  });

  it('drops clients whose windows and bans have all ended', async () => {
    const store = new MemoryCounterStore();
    for (let i = 0; i < 500; i++) await store.take(`c${i}`, policy([60, 1_000]), START);
    // A client refused once at a threshold of one is banned until 01:00 the next day.
    await store.take('banned', policy([0, 0], 1, DAY_END + 3_600_000 - START), START);
    expect(store.size).toBe(501);
    // The next day every window has ended; only the ban (until 01:00) is still worth keeping.
    for (let i = 0; i < 2_048; i++) await store.take('today', policy([1e9, 1e9]), DAY_END + 1);
    expect(store.size).toBe(2);
    expect((await store.inspect('banned', DAY_END + 1)).bannedUntil).toBe(DAY_END + 3_600_000);
    for (let i = 0; i < 2_048; i++) await store.take('today', policy([1e9, 1e9]), DAY_END + 3_600_000);
    expect(store.size).toBe(1);
  });

  it('bans at the threshold of refusals in one minute window and starts counting refusals afresh', async () => {
    const store = new MemoryCounterStore();
    const full = policy([0, 0], 3, 10 * S);
    expect((await store.take('c', full, START)).state.bannedUntil).toBe(0);
    expect((await store.take('c', full, START)).state.refusals.count).toBe(2);
    const third = await store.take('c', full, START);
    expect(third).toMatchObject({ kind: 'refused', state: { bannedUntil: START + 10 * S, refusals: { count: 0 } } });
    // While banned, nothing is counted and no refusal is recorded.
    expect(await store.take('c', full, START + S)).toMatchObject({ kind: 'banned', state: { refusals: { count: 0 } } });
    // A refusal in the next minute window starts from zero.
    await store.take('d', full, START);
    await store.take('d', full, START);
    expect((await store.take('d', full, START + 30 * S)).state).toMatchObject({ refusals: { count: 1 }, bannedUntil: 0 });
    await store.reset();
    expect(store.size).toBe(0);
  });
});
