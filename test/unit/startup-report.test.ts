import { describe, expect, it } from 'vitest';
import { startupReport } from '../../src/cli/startup-report.js';
import type { StartupProgress } from '../../src/core/startup-progress.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';

const MODEL = { operations: [{}, {}, {}], securitySchemes: new Map([['key', {}]]) } as unknown as ApiModel;

const EVENTS: StartupProgress[] = [
  { phase: 'loading', file: 'api.yaml' },
  { phase: 'converting', from: 'Swagger 2.0' },
  { phase: 'warning', message: '#/paths/~1a/get/parameters/0: collectionFormat:tsv is no longer supported' },
  { phase: 'compiling', done: 0, total: 3, lazy: false },
  { phase: 'compiling', done: 3, total: 3, lazy: false },
  { phase: 'seeding', done: 120, total: 150 },
  { phase: 'seeding', done: 150, total: 150 },
];

function run(tty: boolean, msPerEvent: number) {
  let clock = 0;
  const out: string[] = [];
  const err: string[] = [];
  const report = startupReport(
    tty,
    (l) => out.push(l),
    (l) => err.push(l),
    () => clock,
  );
  for (const event of EVENTS) {
    clock += msPerEvent;
    report.onProgress(event);
  }
  return { out, err, summary: report.summary(MODEL) };
}

describe('start-up report', () => {
  it('a slow start on a terminal shows each phase once past a second', () => {
    const { out } = run(true, 400);
    expect(out).toEqual([
      'understudy: compiling 0 of 3 operations\n',
      'understudy: compiling 3 of 3 operations\n',
      'understudy: seeding 120 of 150 records\n',
      'understudy: seeding 150 of 150 records\n',
    ]);
  });
  it.each([
    ['a fast start on a terminal', true, 10],
    ['a slow start off a terminal', false, 1_000],
  ])('%s shows no progress', (_name, tty, ms) => {
    expect(run(tty, ms).out).toEqual([]);
  });
  it('warnings go to the warning stream, and the summary counts everything', () => {
    const { err, summary } = run(false, 100);
    expect(err).toEqual(['understudy: warning: #/paths/~1a/get/parameters/0: collectionFormat:tsv is no longer supported\n']);
    expect(summary).toBe('understudy: ready in 0.7 s: 3 operations, 1 security scheme, 1 warning; converted from Swagger 2.0\n');
  });
});
