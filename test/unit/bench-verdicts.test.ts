import { describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain JavaScript with JSDoc types, outside the TypeScript project
import { checkTargets, formatTargets } from '../../bench/verdicts.mjs';

interface Check {
  readonly id: string;
  readonly scenario: string;
  readonly value: number | null;
  readonly met: boolean | null;
}
type Entry = { id: string; label: string; coldStartMs: number | null; scenarios: Record<string, object> };
const check = checkTargets as (entries: Entry[], scenarios: { id: string; label: string }[]) => { checks: Check[] };
const format = formatTargets as (result: unknown, entries: Entry[], scenarios: { id: string; label: string }[]) => string[];

const MB = 1024;
const run = (peakRssKb: number, seedStorePeakRssKb?: number | null) => ({ rps: 1000, p99Ms: 1, peakRssKb, seedStorePeakRssKb });
const SCENARIOS = [
  { id: 'list', label: 'list' },
  { id: 'get', label: 'get' },
];

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
