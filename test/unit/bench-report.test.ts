import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain JavaScript with JSDoc types, outside the TypeScript project
import { writeResults } from '../../bench/report.mjs';

type Kind = 'full' | 'quick' | 'partial';
const write = writeResults as (report: object, at: Date, kind: Kind, dir: string) => { file: string; chart: string; svg: string };

const AT = new Date('2026-11-24T16:36:22.512Z');
const REPORT = {
  startedAt: '2026-11-24T16:05:00.000Z',
  rows: [
    { group: 'compare', target: 'understudy', scenario: 'list', scenarioLabel: 'list ?status', rps: 11686 },
    { group: 'compare', target: 'ceiling', scenario: 'list', scenarioLabel: 'list ?status', rps: 22854 },
  ],
};

describe('bench results: which files a run writes', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each<[Kind, string[]]>([
    ['full', ['20261124T163622Z.json', '20261124T163622Z.svg', 'latest.json', 'latest.svg']],
    ['partial', ['20261124T163622Z.json', '20261124T163622Z.svg']],
    ['quick', ['quick-latest.json', 'quick-latest.svg']],
  ])('a %s run writes %j and nothing else', (kind, files) => {
    dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    const { file, chart } = write(REPORT, AT, kind, dir);
    expect(readdirSync(dir).sort()).toEqual(files);
    expect(file).toBe(join(dir, files[0] ?? ''));
    expect(chart).toBe(join(dir, files[1] ?? ''));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(REPORT);
    expect(readFileSync(chart, 'utf8')).toContain('11,686 req/s (0.51)');
  });
});
