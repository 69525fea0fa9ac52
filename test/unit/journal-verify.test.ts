import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JournalEntry } from '../../src/journal/entry.js';
import { compilePattern, type CompiledPattern, type RequestPattern } from '../../src/journal/patterns.js';
import {
  countHolds,
  countLost,
  describeCount,
  MAX_WAIT_MS,
  nearestMisses,
  waitUntil,
  type CountExpectation,
} from '../../src/journal/verify.js';

const entry = (id: string, method: string, path: string, status: number): JournalEntry => ({
  id,
  time: 0,
  wallTime: 0,
  method,
  path,
  query: '',
  status,
  durationMs: 1,
  workspace: 'default',
  request: { headers: {} },
  response: { headers: {} },
});
const compiled = (pattern: RequestPattern): CompiledPattern => {
  const result = compilePattern(pattern);
  if (!result.ok) throw new Error('pattern does not compile');
  return result.pattern;
};

// prettier-ignore
const counts: readonly (readonly [CountExpectation, number, boolean, string])[] = [
  [{ exactly: 2 }, 2, true, 'exactly 2'],
  [{ exactly: 2 }, 3, false, 'exactly 2'],
  [{ exactly: 0 }, 0, true, 'exactly 0'],
  [{ atLeast: 1 }, 0, false, 'at least 1'],
  [{ atLeast: 1 }, 5, true, 'at least 1'],
  [{ atMost: 1 }, 2, false, 'at most 1'],
  [{ atLeast: 1, atMost: 3 }, 3, true, 'at least 1 and at most 3'],
  [{ atLeast: 1, atMost: 3 }, 4, false, 'at least 1 and at most 3'],
];

// prettier-ignore
const lost: readonly (readonly [CountExpectation, number, boolean])[] = [
  [{ exactly: 1 }, 1, false],
  [{ exactly: 1 }, 2, true],
  [{ atMost: 2 }, 2, false],
  [{ atMost: 2 }, 3, true],
  [{ atLeast: 1 }, 9, false],
  [{ atLeast: 1, atMost: 3 }, 4, true],
];

describe('verification', () => {
  it.each(lost)('%j with %i found can never hold: %s (counts only grow)', (expected, found, over) => {
    expect(countLost(found, expected)).toBe(over);
  });

  it.each(counts)('%j with %i found holds: %s', (expected, found, holds, described) => {
    expect(countHolds(found, expected)).toBe(holds);
    expect(describeCount(expected)).toBe(described);
  });

  it('offers the three entries that differ least, newest first among equals, and never a match', () => {
    const entries = [
      entry('6', 'GET', '/v1/pets', 200),
      entry('5', 'POST', '/v1/pets', 400),
      entry('4', 'POST', '/v1/pets', 201),
      entry('3', 'POST', '/v1/orders', 400),
      entry('2', 'POST', '/v1/pets', 400),
      entry('1', 'GET', '/v1/nope', 404),
    ];
    const misses = nearestMisses(entries, compiled({ method: 'POST', path: '/v1/pets', status: 201 }));
    expect(misses.map((m) => m.entry.id)).toEqual(['5', '2', '6']);
    expect(misses[0]!.differences).toEqual([{ field: 'status', expected: 201, actual: 400 }]);
    expect(misses[2]!.differences).toEqual([
      { field: 'method', expected: 'POST', actual: 'GET' },
      { field: 'status', expected: 201, actual: 200 },
    ]);
    expect(nearestMisses([], compiled({}))).toEqual([]);
  });
});

describe('waiting for requests on their way', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A source of additions, as the journal's `subscribe` is. */
  const additions = () => {
    const listeners = new Set<() => void>();
    return {
      subscribe: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      add: () => listeners.forEach((listener) => listener()),
      get listening() {
        return listeners.size;
      },
    };
  };

  it('answers at once when the count already holds, without subscribing', async () => {
    const source = additions();
    await expect(waitUntil(() => true, source.subscribe, 1000)).resolves.toBe(true);
    expect(source.listening).toBe(0);
  });

  it('re-checks after additions, once per burst, and stops listening as soon as it holds', async () => {
    vi.useFakeTimers();
    const source = additions();
    let count = 0;
    let checks = 0;
    const waiting = waitUntil(() => (checks++, count >= 2), source.subscribe, 5000);
    count = 1;
    source.add();
    await vi.advanceTimersToNextTimerAsync();
    count = 2;
    source.add();
    source.add();
    source.add();
    await vi.advanceTimersToNextTimerAsync();
    await expect(waiting).resolves.toBe(true);
    expect(checks).toBe(3);
    expect(source.listening).toBe(0);
  });

  it('gives up at once, timers never advanced, when the count can no longer hold', async () => {
    vi.useFakeTimers();
    const source = additions();
    await expect(
      waitUntil(
        () => false,
        source.subscribe,
        10_000,
        () => true,
      ),
    ).resolves.toBe(false);
    expect(source.listening).toBe(0);
    let count = 1;
    const waiting = waitUntil(
      () => count === 1 + 1,
      source.subscribe,
      10_000,
      () => count > 2,
    );
    count = 3;
    source.add();
    // One turn of the event loop (the re-check), not the 10 s window.
    await vi.advanceTimersToNextTimerAsync();
    await expect(waiting).resolves.toBe(false);
    expect(source.listening).toBe(0);
  });

  it('gives up at the deadline, never later than the longest wait', async () => {
    vi.useFakeTimers();
    const source = additions();
    const waiting = waitUntil(() => false, source.subscribe, 10 * MAX_WAIT_MS);
    await vi.advanceTimersByTimeAsync(MAX_WAIT_MS);
    await expect(waiting).resolves.toBe(false);
    expect(source.listening).toBe(0);
  });
});
