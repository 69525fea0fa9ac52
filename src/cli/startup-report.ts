import { performance } from 'node:perf_hooks';
import type { StartupProgress } from '../core/startup-progress.js';
import type { ApiModel } from '../vocabulary/operation.js';

/** A start that takes longer than this shows its progress (on a terminal). */
const QUIET_MS = 1_000;
/** Warnings printed one by one before the rest are counted. */
const LISTED_WARNINGS = 5;

export interface StartupReport {
  readonly onProgress: (event: StartupProgress) => void;
  /** The summary line, once the sandbox is built: operations, security schemes, warnings. */
  readonly summary: (model: ApiModel) => string;
}

/**
 * Turns the core's start-up events into lines: progress only on a terminal and only once the
 * start has taken over a second (a fast start stays one line), each warning on `warn` (the first
 * few), and a summary that is always printed.
 */
export function startupReport(
  tty: boolean,
  write: (line: string) => void,
  warn: (line: string) => void,
  now: () => number = () => performance.now(),
): StartupReport {
  const started = now();
  const warnings: string[] = [];
  let converted = false;
  let lazy = false;
  const elapsed = (): number => now() - started;
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
    return `understudy: ready in ${(elapsed() / 1000).toFixed(1)} s: ${parts.join(', ')}${more}${noted}\n`;
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
