import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain JavaScript with JSDoc types, outside the TypeScript project
import { checkTargets, compareCapabilities, formatCapabilities, formatTargets, median } from '../../bench/verdicts.mjs';

interface Check {
  readonly id: string;
  readonly scenario: string;
  readonly value: number | null;
  readonly met: boolean | null;
}
type Entry = { id: string; label: string; coldStartMs: number | null; scenarios: Record<string, object> };
const check = checkTargets as (
  entries: Entry[],
  scenarios: { id: string; label: string }[],
  subject?: string,
  coldStartMs?: number | null,
) => { checks: Check[] };
const format = formatTargets as (result: unknown, entries: Entry[], scenarios: { id: string; label: string }[]) => string[];

const MB = 1024;
const run = (peakRssKb: number, seedStorePeakRssKb?: number | null) => ({ rps: 1000, p99Ms: 1, peakRssKb, seedStorePeakRssKb });
const SCENARIOS = [
  { id: 'list', label: 'list' },
  { id: 'get', label: 'get' },
];

describe('bench verdicts: cold start', () => {
  const entries = [{ id: 'understudy', label: 'understudy', coldStartMs: 230, scenarios: {} }];
  const cold = (result: { checks: Check[] }) => result.checks.find((c) => c.id === 'coldStartMs');

  it("is the median of the cold-start rounds when they ran, else the target's own start", () => {
    expect(cold(check(entries, [], 'understudy', 190))).toMatchObject({ value: 190, met: true });
    expect(cold(check(entries, [], 'understudy', null))).toMatchObject({ value: 230, met: false });
  });

  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([250, 190, 200])).toBe(200);
    expect(median([250, 190, 200, 210])).toBe(205);
    expect(median([])).toBeNull();
  });
});

/** The RSS target is read on the store as seeded: what create and mixed added in earlier rounds is store size, not load. */
describe('bench verdicts: peak RSS under list and get', () => {
  it('is read from the runs on the seeded store when there are any, and the grown figure is still shown', () => {
    const entries = [
      { id: 'understudy', label: 'understudy', coldStartMs: 300, scenarios: { list: run(110 * MB, 85 * MB), get: run(96 * MB, 90 * MB) } },
    ];
    const result = check(entries, SCENARIOS);
    const rss = result.checks.filter((c) => c.id === 'rssMb');
    expect(rss.map((c) => [c.scenario, c.value, c.met])).toEqual([
      ['list', 85, true],
      ['get', 90, true],
    ]);
    expect(format(result, entries, SCENARIOS)).toContain(
      '  peak RSS in the median round, on the store as create and mixed left it: list 110 MB, get 96 MB',
    );
  });

  it('falls back to the median round when no run was on the seeded store', () => {
    const entries = [
      { id: 'understudy', label: 'understudy', coldStartMs: 300, scenarios: { list: run(110 * MB, null), get: run(96 * MB) } },
    ];
    const rss = check(entries, SCENARIOS).checks.filter((c) => c.id === 'rssMb');
    expect(rss.map((c) => [c.scenario, c.value, c.met])).toEqual([
      ['list', 110, false],
      ['get', 96, true],
    ]);
  });
});

type Pair = { byScenario: Record<string, { rps: number | null; rpsRounds: (number | null)[] }> };
const pair = compareCapabilities as (off: unknown, other: unknown, scenarios: { id: string; label: string }[]) => Pair;
const formatPairs = formatCapabilities as (
  c: { unused: Pair | null; on: Pair | null },
  rounds: number,
  targets: number,
  scenarios: { id: string; label: string }[],
) => string[];

/** Three configurations: off, there but unused, on. Each ratio is off ÷ the other, per round and of the median rounds. */
describe('bench verdicts: the capabilities comparison', () => {
  const target = (id: string, rps: number[]) => ({
    id,
    coldStartMs: 250,
    peakRssKb: 90 * MB,
    scenarios: {
      list: { rps: [...rps].sort((a, b) => a - b)[1], p99Ms: 2, peakRssKb: 80 * MB, rounds: rps.map((r) => ({ rps: r, p99Ms: 2 })) },
    },
  });
  const off = target('understudy-minimal', [1000, 1100, 1050]);
  const unused = target('understudy-unused', [1000, 1000, 1050]);
  const on = target('understudy-all', [800, 1000, 875]);

  it('divides off by each other configuration, round by round', () => {
    expect(pair(off, unused, SCENARIOS).byScenario.list).toMatchObject({ rps: 1.05, rpsRounds: [1, 1.1, 1] });
    expect(pair(off, on, SCENARIOS).byScenario.list).toMatchObject({ rps: 1.2, rpsRounds: [1.25, 1.1, 1.2] });
  });

  it('prints off ÷ unused, then off ÷ on, and leaves out a pair that was not measured', () => {
    const both = formatPairs({ unused: pair(off, unused, SCENARIOS), on: pair(off, on, SCENARIOS) }, 3, 3, SCENARIOS);
    const titles = both.filter((line) => /^ {2}off ÷/.test(line));
    expect(titles).toEqual(['  off ÷ unused (having them):', '  off ÷ on (the journal recording too):']);
    expect(both).toContain('    list            req/s 1.05 [1.00 1.10 1.00]  p99 1.00 [1.00 1.00 1.00]  window peak RSS 80 vs 80 MB');
    expect(both).toContain('    list            req/s 1.20 [1.25 1.10 1.20]  p99 1.00 [1.00 1.00 1.00]  window peak RSS 80 vs 80 MB');
    const onlyOn = formatPairs({ unused: null, on: pair(off, on, SCENARIOS) }, 3, 2, SCENARIOS);
    expect(onlyOn.filter((line) => /^ {2}off ÷/.test(line))).toEqual(['  off ÷ on (the journal recording too):']);
  });
});

/**
 * The verdict divides each target's median round, which may come from different rounds; the lines
 * under it divide round i by round i, so that a reader sees how far the machine's drift mattered.
 */
describe('bench verdicts: the ratios round by round', () => {
  const rounds = (rps: number[], p99Ms: number[]) => ({
    rps: [...rps].sort((a, b) => a - b)[1],
    p99Ms: [...p99Ms].sort((a, b) => a - b)[1],
    rounds: rps.map((r, i) => ({ rps: r, p99Ms: p99Ms[i] })),
  });
  const entries = (ownRounds: object) => [
    { id: 'understudy', label: 'understudy', coldStartMs: 190, scenarios: { get: ownRounds } },
    { id: 'prism-fast', label: 'prism', coldStartMs: 2000, scenarios: { get: rounds([2000, 2500, 2000], [100, 40, 20]) } },
    { id: 'ceiling', label: 'ceiling', coldStartMs: 90, scenarios: { get: rounds([35000, 23000, 34000], [3, 3, 3]) } },
  ];
  const GET = [{ id: 'get', label: 'get' }];

  it('shows each round’s ratio beside a verdict of median rounds that missed', () => {
    const measured = entries(rounds([24000, 14000, 13500], [8, 5, 14]));
    const lines = format(check(measured, GET), measured, GET);
    expect(lines).toContain('  get       0.41 MISSED             7.00 met                0.20 MISSED             n/a n/a');
    expect(lines).toContain("  round by round (round i's ratio of the two targets' round i; the verdict above divides median rounds):");
    expect(lines).toContain('    get       0.69 0.61 0.40     12.00 5.60 6.75    0.08 0.13 0.70');
  });

  it('prints none for a run of one round', () => {
    const single = { rps: 14000, p99Ms: 5, rounds: [{ rps: 14000, p99Ms: 5 }] };
    const measured = entries(single).map((e) => ({ ...e, scenarios: { get: single } }));
    expect(format(check(measured, GET), measured, GET).some((line) => line.includes('round by round'))).toBe(false);
  });
});
