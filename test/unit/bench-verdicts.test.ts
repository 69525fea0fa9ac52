import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain JavaScript with JSDoc types, outside the TypeScript project
import * as verdicts from '../../bench/verdicts.mjs';

const { checkTargets, compareCapabilities, compareEachCapability, formatCapabilities, formatTargets, median } = verdicts;

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
type Row = Pair & { id: string; label: string; off: string };
const pair = compareCapabilities as (off: unknown, other: unknown, scenarios: { id: string; label: string }[]) => Pair;
const eachRow = compareEachCapability as (entries: unknown[], scenarios: { id: string; label: string }[]) => Row[] | null;
const formatRows = formatCapabilities as (
  rows: Row[],
  rounds: number,
  targets: number,
  scenarios: { id: string; label: string }[],
) => string[];

/** Each capability turned off, and all of them, against all on: off ÷ on, per round and of the median rounds. */
describe('bench verdicts: the capabilities comparison', () => {
  const target = (id: string, rps: number[]) => ({
    id,
    coldStartMs: 250,
    peakRssKb: 90 * MB,
    scenarios: {
      list: { rps: [...rps].sort((a, b) => a - b)[1], p99Ms: 2, peakRssKb: 80 * MB, rounds: rps.map((r) => ({ rps: r, p99Ms: 2 })) },
    },
  });
  const on = target('understudy-all', [800, 1000, 875]);
  const noJournal = target('understudy-no-journal', [1000, 1100, 1050]);
  const noWatch = target('understudy-no-watch', [800, 1000, 875]);
  const minimal = target('understudy-minimal', [1000, 1000, 1050]);

  it('divides a configuration by all on, round by round', () => {
    expect(pair(noJournal, on, SCENARIOS).byScenario.list).toMatchObject({ rps: 1.2, rpsRounds: [1.25, 1.1, 1.2] });
  });

  it('makes a row of each configuration measured, in the table order, and none without all on', () => {
    const rows = eachRow([minimal, noWatch, on, noJournal, { ...target('understudy-no-admin', [1, 1, 1]), error: 'exited' }], SCENARIOS);
    expect(rows?.map((r) => [r.id, r.off, r.byScenario.list?.rps?.toFixed(2)])).toEqual([
      ['journal', 'understudy-no-journal', '1.20'],
      ['watch', 'understudy-no-watch', '1.00'],
      ['all', 'understudy-minimal', '1.14'],
    ]);
    expect(eachRow([minimal, noJournal], SCENARIOS)).toBeNull();
  });

  it('prints a table of the median ratios, then each row round by round', () => {
    const rows = eachRow([on, noJournal, noWatch, minimal], SCENARIOS) ?? [];
    const lines = formatRows(rows, 3, 4, SCENARIOS);
    expect(lines).toContain('    turned off        list');
    expect(lines).toContain('    journal           1.20');
    expect(lines).toContain('    hot reload        1.00');
    expect(lines).toContain('  journal off ÷ all on (understudy-no-journal):');
    expect(lines).toContain('    list            req/s 1.20 [1.25 1.10 1.20]  p99 1.00 [1.00 1.00 1.00]  window peak RSS 80 vs 80 MB');
    expect(lines.filter((line) => /^ {2}\w.* off ÷ all on \(/.test(line))).toHaveLength(3);
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
