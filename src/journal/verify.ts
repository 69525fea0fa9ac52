/** Verification: did the client send what the test expects, how many times, and if not, what came closest. */

import type { JournalEntry } from './entry.js';
import type { CompiledPattern, Difference } from './patterns.js';

/** `exactly`, or `atLeast` and/or `atMost`. */
export interface CountExpectation {
  readonly exactly?: number;
  readonly atLeast?: number;
  readonly atMost?: number;
}

/**
 * Whether the count can never hold however many more requests arrive: counts only grow, so a count
 * already over `exactly` or `atMost` is final (a verification need not wait out its window).
 */
export function countLost(count: number, expected: CountExpectation): boolean {
  if (expected.exactly !== undefined && count > expected.exactly) return true;
  return expected.atMost !== undefined && count > expected.atMost;
}

export function countHolds(count: number, expected: CountExpectation): boolean {
  if (expected.exactly !== undefined && count !== expected.exactly) return false;
  if (expected.atLeast !== undefined && count < expected.atLeast) return false;
  if (expected.atMost !== undefined && count > expected.atMost) return false;
  return true;
}

/** `exactly 2`, `at least 1 and at most 3`. */
export function describeCount(expected: CountExpectation): string {
  const parts: string[] = [];
  if (expected.exactly !== undefined) parts.push(`exactly ${expected.exactly}`);
  if (expected.atLeast !== undefined) parts.push(`at least ${expected.atLeast}`);
  if (expected.atMost !== undefined) parts.push(`at most ${expected.atMost}`);
  return parts.join(' and ');
}

export const countMatching = (entries: readonly JournalEntry[], pattern: CompiledPattern): number =>
  entries.reduce((n, entry) => (pattern.matches(entry) ? n + 1 : n), 0);

export interface NearMiss {
  readonly entry: JournalEntry;
  readonly differences: readonly Difference[];
}

/**
 * The entries that differ least from the pattern (fewest differing fields), each with what
 * differed; among equals, the order given (newest first). Matching entries are not misses.
 */
export function nearestMisses(entries: readonly JournalEntry[], pattern: CompiledPattern, n = 3): readonly NearMiss[] {
  const misses: NearMiss[] = [];
  for (const entry of entries) {
    const differences = pattern.differences(entry);
    if (differences.length > 0) misses.push({ entry, differences });
  }
  // Array.prototype.sort is stable (ES2019), so equals keep their order.
  return misses.sort((a, b) => a.differences.length - b.differences.length).slice(0, n);
}

/** Longest a verification may wait for requests still on their way, in wall-clock milliseconds. */
export const MAX_WAIT_MS = 30_000;

/**
 * Resolves true as soon as `holds()` is true, re-checking after each addition `subscribe` reports,
 * or false when `withinMs` (wall clock, at most `MAX_WAIT_MS`) has passed without it, or as soon as
 * `lost()` says it never can. A burst of additions costs one re-check: they are gathered until the
 * event loop turns.
 */
export function waitUntil(
  holds: () => boolean,
  subscribe: (onAddition: () => void) => () => void,
  withinMs: number,
  lost: () => boolean = () => false,
): Promise<boolean> {
  if (holds()) return Promise.resolve(true);
  if (withinMs <= 0 || lost()) return Promise.resolve(false);
  return new Promise((resolve) => {
    let pending: NodeJS.Immediate | undefined;
    const finish = (result: boolean): void => {
      clearTimeout(deadline);
      if (pending) clearImmediate(pending);
      unsubscribe();
      resolve(result);
    };
    const deadline = setTimeout(() => finish(holds()), Math.min(withinMs, MAX_WAIT_MS));
    const unsubscribe = subscribe(() => {
      pending ??= setImmediate(() => {
        pending = undefined;
        if (holds()) finish(true);
        else if (lost()) finish(false);
      });
    });
  });
}
