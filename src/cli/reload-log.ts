import type { Notice } from '../core/sandbox.js';

/** Writes one line to the log at a level. */
export type LogLine = (level: Notice['level'], message: string) => void;

/** The log's side of reloading: what set a reload off, and the core's notices (its outcome among them). */
export interface ReloadLog {
  /** A reload is starting; `cause` set it off (a file changed, SIGHUP). */
  started(cause: string): void;
  /** A notice from the core, passed on unless it repeats the failure just logged. */
  notice(notice: Notice): void;
  /** Logs how often the last failure repeated, if it did and that is not logged yet (at stop). */
  flush(): void;
}

// The core's wording of a reload's outcome (src/core/sandbox.ts).
const FAILED = 'reload failed';
const RELOADED = 'reloaded:';

/**
 * Repeated identical failures are logged once, with a count: a file saved broken again and again,
 * each save a reload that fails the same way, writes one line, and the next different outcome (a
 * success, another failure) first logs "the same failure N more times". What set off a repeated
 * failure is not logged either: the log grows with what changed, not with how often it was tried.
 */
export function reloadLog(log: LogLine): ReloadLog {
  /** The failure logged last, while no other outcome has followed it, and how often it came again since. */
  let streak: { readonly message: string; repeats: number } | undefined;
  /** What set off the reload running during a streak: logged only if its outcome is new. */
  let held: string | undefined;

  const endStreak = (): void => {
    if (streak !== undefined && streak.repeats > 0) {
      const { repeats, message } = streak;
      log('error', `the same failure ${repeats} more time${repeats === 1 ? '' : 's'}: ${message}`);
    }
    streak = undefined;
  };

  return {
    started(cause) {
      if (streak === undefined) log('info', `reloading: ${cause}`);
      else held = cause;
    },
    notice({ level, message }) {
      const failed = level === 'error' && message.startsWith(FAILED);
      if (failed && streak?.message === message) {
        streak.repeats += 1;
        held = undefined;
        return;
      }
      if (failed || message.startsWith(RELOADED)) {
        endStreak();
        if (held !== undefined) log('info', `reloading: ${held}`);
        held = undefined;
      }
      log(level, message);
      if (failed) streak = { message, repeats: 0 };
    },
    flush: endStreak,
  };
}
