import { describe, expect, it } from 'vitest';
import { createDrawStreams, drawStream, type Draws } from '../../src/faults/draws.js';
import { drawDelay, parseLatency, type LatencyModel } from '../../src/faults/latency.js';

const SEED = 1;
const N = 20_000;

/** `n` delays from one model on one key's stream. */
const delays = (model: LatencyModel, n = N, key = 'key-a'): number[] => {
  const draws = drawStream(SEED, key);
  return Array.from({ length: n }, () => drawDelay(model, draws));
};

const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

describe('the seeded draw streams', () => {
  it('give the same sequence for the same seed and key, in [0, 1)', () => {
    const a = drawStream(7, 'key-a');
    const b = drawStream(7, 'key-a');
    const first = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(first);
    expect(first.every((u) => u >= 0 && u < 1)).toBe(true);
  });

  it('give another sequence for another key or another seed', () => {
    const take = (draws: Draws): number[] => Array.from({ length: 20 }, () => draws.next());
    const base = take(drawStream(7, 'key-a'));
    expect(take(drawStream(7, 'key-b'))).not.toEqual(base);
    expect(take(drawStream(8, 'key-a'))).not.toEqual(base);
  });

  it('are spread evenly (ten buckets within 5 % of their share)', () => {
    const draws = drawStream(SEED, 'key-a');
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < N; i++) buckets[Math.floor(draws.next() * 10)]! += 1;
    for (const count of buckets) expect(Math.abs(count - N / 10)).toBeLessThan(N / 10 / 20);
  });

  it('keep one stream per key, unaffected by other keys, until reset', () => {
    const streams = createDrawStreams(SEED);
    const alone = drawStream(SEED, 'key-a');
    const expected = [alone.next(), alone.next(), alone.next()];
    const got = [streams.stream('key-a').next()];
    streams.stream('key-b').next();
    got.push(streams.stream('key-a').next());
    streams.stream('key-c').next();
    got.push(streams.stream('key-a').next());
    expect(got).toEqual(expected);
    streams.reset();
    expect(streams.stream('key-a').next()).toBe(expected[0]);
  });

  it('drop the oldest stream past their bound, which starts again from its beginning', () => {
    const streams = createDrawStreams(SEED, 2);
    const first = streams.stream('key-a').next();
    streams.stream('key-b').next();
    streams.stream('key-c').next();
    expect(streams.stream('key-a').next()).toBe(first);
  });
});

describe('parseLatency', () => {
  it.each([
    [{ fixed: 250 }],
    [{ fixed: 0 }],
    [{ uniform: [100, 500] }],
    [{ uniform: [5, 5] }],
    [{ lognormal: { median: 200, sigma: 0.5, cap: 3000 } }],
  ])('reads %j', (value) => {
    expect(parseLatency(value, 'x-understudy-latency')).toEqual({ ok: true, value });
  });

  it.each([
    ['fast', 'x-understudy-latency must be one of'],
    [{}, 'x-understudy-latency must be one of'],
    [{ fixed: 1, uniform: [1, 2] }, 'x-understudy-latency must be one of'],
    [{ constant: 5 }, 'x-understudy-latency must be one of'],
    [{ fixed: -1 }, 'x-understudy-latency.fixed must be a whole number'],
    [{ fixed: 1.5 }, 'x-understudy-latency.fixed must be a whole number'],
    [{ fixed: '100' }, 'x-understudy-latency.fixed must be a whole number'],
    [{ uniform: [1] }, 'x-understudy-latency.uniform must be [min, max]'],
    [{ uniform: ['a', 5] }, 'x-understudy-latency.uniform.0 must be a whole number'],
    [{ uniform: [5, 1] }, 'x-understudy-latency.uniform.1 must be at least the minimum (5)'],
    [{ lognormal: 200 }, 'x-understudy-latency.lognormal must be { median, sigma, cap }'],
    [{ lognormal: { median: 0, sigma: 1, cap: 10 } }, 'x-understudy-latency.lognormal.median must be'],
    [{ lognormal: { median: 10, sigma: -1, cap: 10 } }, 'x-understudy-latency.lognormal.sigma must be'],
    [{ lognormal: { median: 10, sigma: 1 } }, 'x-understudy-latency.lognormal.cap must be'],
    [{ lognormal: { median: 100, sigma: 1, cap: 50 } }, 'x-understudy-latency.lognormal.cap must be at least the median (100)'],
    [{ lognormal: { median: 100, sigma: 1, cap: 500, mean: 3 } }, 'x-understudy-latency.lognormal.mean is not a field'],
  ])('refuses %j, naming the field', (value, message) => {
    const read = parseLatency(value, 'x-understudy-latency');
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.error).toContain(message);
  });
});

describe('drawDelay', () => {
  it('gives a fixed delay every time', () => {
    expect(new Set(delays({ fixed: 250 }, 100))).toEqual(new Set([250]));
  });

  it('keeps a uniform delay within its bounds, whole, reaching both, centred', () => {
    const drawn = delays({ uniform: [100, 200] });
    expect(drawn.every((ms) => Number.isInteger(ms) && ms >= 100 && ms <= 200)).toBe(true);
    expect(Math.min(...drawn)).toBe(100);
    expect(Math.max(...drawn)).toBe(200);
    const mean = drawn.reduce((sum, ms) => sum + ms, 0) / drawn.length;
    expect(Math.abs(mean - 150)).toBeLessThan(2);
  });

  it('gives a log-normal delay whose median is the median, with a tail, never above the cap', () => {
    const drawn = sorted(delays({ lognormal: { median: 200, sigma: 0.5, cap: 5000 } }));
    const median = drawn[N / 2]!;
    expect(Math.abs(median - 200) / 200).toBeLessThan(0.03);
    // sigma 0.5: the 90th percentile is e^(0.5 × 1.2816) ≈ 1.90 × the median.
    expect(drawn[Math.floor(N * 0.9)]! / 200).toBeCloseTo(1.9, 1);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(5000);
  });

  it('clamps a log-normal tail at the cap (about half the draws for a cap at the median)', () => {
    const drawn = delays({ lognormal: { median: 200, sigma: 1, cap: 200 } });
    expect(Math.max(...drawn)).toBe(200);
    const atCap = drawn.filter((ms) => ms === 200).length / N;
    expect(atCap).toBeGreaterThan(0.45);
    expect(atCap).toBeLessThan(0.55);
  });

  it('is the same sequence for the same seed and key', () => {
    const model: LatencyModel = { lognormal: { median: 100, sigma: 1, cap: 10_000 } };
    expect(delays(model, 200)).toEqual(delays(model, 200));
    expect(delays(model, 200, 'key-b')).not.toEqual(delays(model, 200));
  });

  it('takes exactly two draws, whatever the model', () => {
    for (const model of [{ fixed: 1 }, { uniform: [1, 2] }, { lognormal: { median: 1, sigma: 1, cap: 2 } }] as const) {
      let taken = 0;
      drawDelay(model, { next: () => (taken++, 0.5) });
      expect(taken).toBe(2);
    }
  });
});
