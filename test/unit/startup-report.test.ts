import { describe, expect, it } from 'vitest';
// @ts-expect-error: the build scripts are plain JavaScript, outside the TypeScript project
import { duration as buildDuration } from '../../scripts/build.mjs';
import { duration, startupReport } from '../../src/cli/startup-report.js';
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

/**
 * The report over EVENTS, `msPerEvent` apart. The clock is the process's (performance.now()): it
 * reads `startedAt` when the report is made, not 0, since the process started before the CLI did.
 */
function run(tty: boolean, msPerEvent: number, { startedAt = 0, built = 0 } = {}) {
  let clock = startedAt;
  const out: string[] = [];
  const err: string[] = [];
  const report = startupReport(
    tty,
    (l) => out.push(l),
    (l) => err.push(l),
    () => clock,
    built,
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
    expect(summary).toBe('understudy: ready in 700 ms: 3 operations, 1 security scheme, 1 warning; converted from Swagger 2.0\n');
  });
});

describe('the ready line’s duration', () => {
  const readyIn = (summary: string) => /^understudy: ready in (.*?): /.exec(summary)?.[1];

  it('counts from the process’s start, not from when the report was made', () => {
    // Node and the bundle took 150 ms before the CLI made its report; the sandbox then 7 × 10 ms.
    expect(readyIn(run(false, 10, { startedAt: 150 }).summary)).toBe('220 ms');
  });

  it('is in milliseconds below a second and in seconds from one on', () => {
    expect(readyIn(run(false, 100, { startedAt: 299.6 }).summary)).toBe('1.0 s');
    expect(readyIn(run(false, 100, { startedAt: 299.4 }).summary)).toBe('999 ms');
    expect(readyIn(run(false, 1_000, { startedAt: 240 }).summary)).toBe('7.2 s');
  });

  it('after a build in the same process (npm start), leaves the build out and names it', () => {
    const { summary } = run(false, 10, { startedAt: 12_300 + 170, built: 12_300 });
    expect(summary).toBe(
      'understudy: ready in 240 ms (after a 12.3 s build): 3 operations, 1 security scheme, 1 warning; converted from Swagger 2.0\n',
    );
  });

  it('shows progress only once the start itself, not the build before it, has taken a second', () => {
    expect(run(true, 100, { startedAt: 12_300, built: 12_300 }).out).toEqual([]);
    expect(run(true, 400, { startedAt: 12_300, built: 12_300 }).out).toHaveLength(4);
  });

  it('is written as the build writes its steps’ durations (scripts/build.mjs)', () => {
    for (const ms of [0, 1.4, 180, 999.4, 999.5, 1_000, 1_049, 1_050, 12_345, 98_765]) {
      expect(buildDuration(ms), `${ms} ms`).toBe(duration(ms));
    }
  });
});
