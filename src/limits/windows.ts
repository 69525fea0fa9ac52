/**
 * Fixed, aligned rate windows: a minute window starts on the clock's minute, a day window at 00:00
 * UTC, so the time a window resets is exact and the same for every replica that shares a clock.
 */

export const WINDOWS = [
  { name: 'minute', lengthMs: 60_000 },
  { name: 'day', lengthMs: 86_400_000 },
] as const;

export const windowStart = (nowMs: number, lengthMs: number): number => Math.floor(nowMs / lengthMs) * lengthMs;

/** Whole seconds from `nowMs` until `untilMs`, rounded up and never below 1 (RFC 9110 §10.2.3). */
export const secondsUntil = (nowMs: number, untilMs: number): number => Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
