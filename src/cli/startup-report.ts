import { performance } from 'node:perf_hooks';
import type { StartupProgress } from '../core/startup-progress.js';
import type { ApiModel } from '../vocabulary/operation.js';

/** A start that takes longer than this shows its progress (on a terminal). */
const QUIET_MS = 1_000;
/**
 * The User Timing measure the build leaves when `npm start` built before starting, in this process
 * (scripts/build.mjs, which names it too).
 */
const BUILD_MEASURE = 'understudy build';
/** Warnings printed one by one before the rest are counted. */
const LISTED_WARNINGS = 5;

export interface StartupReport {
  readonly onProgress: (event: StartupProgress) => void;
  /** The summary line, once the sandbox is built: operations, security schemes, warnings. */
  readonly summary: (model: ApiModel) => string;
}

/** How long `npm start` spent building before this start, in milliseconds (0 when it did not build). */
export function buildTime(): number {
  return performance.getEntriesByName(BUILD_MEASURE, 'measure').reduce((sum, entry) => sum + entry.duration, 0);
}

/**
 * A duration as the `understudy:` lines write it: milliseconds below a second, else seconds to a
 * tenth (the twin of scripts/build.mjs's; test/unit/startup-report.test.ts holds them together).
 */
export function duration(ms: number): string {
  return Math.round(ms) < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Turns the core's start-up events into lines: progress only on a terminal and only once the
 * start has taken over a second (a fast start stays one line), each warning on `warn` (the first
 * few), and a summary that is always printed.
 *
 * The start is timed from the process's own start (`now` is relative to the process's time origin,
 * as performance.now() is): what the user waited for includes Node's own start and the loading of
 * the CLI, not only the sandbox's. When `npm start` built first, in this process, the build's
 * `built` milliseconds are left out of the start's time and named beside it
 * (`ready in 240 ms (after a 12.3 s build)`): the start's own time stays comparable from one start
 * to the next, and the wait is still accounted for whole.
 */
export function startupReport(
  tty: boolean,
  write: (line: string) => void,
  warn: (line: string) => void,
  now: () => number = () => performance.now(),
  built: number = buildTime(),
): StartupReport {
  const warnings: string[] = [];
  let converted = false;
  let lazy = false;
  const elapsed = (): number => now() - built;
  const progress = (line: string): void => {
    if (tty && elapsed() > QUIET_MS) write(`understudy: ${line}\n`);
  };
  const onProgress = (event: StartupProgress): void => {
    if (event.phase === 'warning') {
      warnings.push(event.message);
      if (warnings.length <= LISTED_WARNINGS) warn(`understudy: warning: ${event.message}\n`);
      return;
    }
    if (event.phase === 'converting') converted = true;
    if (event.phase === 'compiling') lazy = event.lazy;
    progress(progressLine(event));
  };
  const summary = (model: ApiModel): string => {
    const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
    const parts = [
      count(model.operations.length, 'operation'),
      count(model.securitySchemes.size, 'security scheme'),
      count(warnings.length, 'warning'),
    ];
    const notes = [
      converted ? 'converted from Swagger 2.0' : '',
      lazy ? 'validators compiled and examples checked on first use' : '',
    ].filter(Boolean);
    const more = warnings.length > LISTED_WARNINGS ? ` (${warnings.length - LISTED_WARNINGS} not shown)` : '';
    const noted = notes.length > 0 ? `; ${notes.join(', ')}` : '';
    const afterBuild = built > 0 ? ` (after a ${duration(built)} build)` : '';
    return `understudy: ready in ${duration(elapsed())}${afterBuild}: ${parts.join(', ')}${more}${noted}\n`;
  };
  return { onProgress, summary };
}

function progressLine(event: Exclude<StartupProgress, { phase: 'warning' }>): string {
  switch (event.phase) {
    case 'loading':
      return `loading ${event.file}`;
    case 'converting':
      return `converting from ${event.from}`;
    case 'compiling':
      return `compiling ${event.done} of ${event.total} operations`;
    case 'seeding':
      return `seeding ${event.done} of ${event.total} records`;
  }
}
