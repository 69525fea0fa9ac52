import { describe, expect, it } from 'vitest';
import { roomFor, type EvictionCandidate, type WorkspacePool } from '../../src/workspaces/eviction.js';

const at = (id: string, pool: WorkspacePool, lastUsedAt: number, useOrder = 0): EvictionCandidate => ({ id, pool, lastUsedAt, useOrder });
const limits = { max: 4, visitors: 2, idleMs: 60_000 };
const NOW = 1_000_000;
const idle = NOW - 60_000;
const busy = NOW - 1_000;

describe('roomFor: which workspace makes room for a new one', () => {
  it.each([
    // [pool asking, held, expected room]
    ['issued', [at('default', 'permanent', 0)], { kind: 'free' }],
    ['visitor', [at('default', 'permanent', 0), at('v1', 'visitor', busy)], { kind: 'free' }],
    // The visitors' cap reached: only an idle visitor makes room, never an idle admin-issued workspace.
    ['visitor', [at('i1', 'issued', idle), at('v1', 'visitor', idle + 1), at('v2', 'visitor', idle)], { kind: 'evict', id: 'v2' }],
    [
      'visitor',
      [at('i1', 'issued', 0), at('v1', 'visitor', busy), at('v2', 'visitor', NOW - 30_000)],
      { kind: 'full', retryAfterMs: 30_000 },
    ],
    // All held: visitors still take only visitors' places.
    [
      'visitor',
      [at('default', 'permanent', 0), at('i1', 'issued', 0), at('i2', 'issued', 0), at('v1', 'visitor', busy)],
      { kind: 'full', retryAfterMs: 59_000 },
    ],
    [
      'visitor',
      [at('default', 'permanent', 0), at('i1', 'issued', 0), at('i2', 'issued', 0), at('i3', 'issued', 0)],
      { kind: 'full', retryAfterMs: 60_000 },
    ],
    // An admin-issued workspace prefers an idle visitor's, then the least recently used idle one; never a busy one nor a permanent one.
    [
      'issued',
      [at('default', 'permanent', 0), at('i1', 'issued', 0), at('v1', 'visitor', idle), at('i2', 'issued', 5)],
      { kind: 'evict', id: 'v1' },
    ],
    [
      'issued',
      [at('default', 'permanent', 0), at('i1', 'issued', 7), at('v1', 'visitor', busy), at('i2', 'issued', 5)],
      { kind: 'evict', id: 'i2' },
    ],
    [
      'issued',
      [at('default', 'permanent', 0), at('i1', 'issued', busy), at('v1', 'visitor', busy), at('i2', 'issued', busy)],
      { kind: 'full', retryAfterMs: 59_000 },
    ],
  ] as const)('a new %s workspace (#%#)', (pool, held, room) => {
    expect(roomFor(pool, held, limits, NOW)).toEqual(room);
  });

  it('breaks a tie on a clock that stands still by the order of use', () => {
    const held = [at('a', 'visitor', 0, 3), at('b', 'visitor', 0, 1), at('c', 'visitor', 0, 2)];
    expect(roomFor('visitor', held, { max: 3, visitors: 3, idleMs: 0 }, 0)).toEqual({ kind: 'evict', id: 'b' });
  });

  it('asks a refused visitor to wait at least a second', () => {
    const held = [at('v1', 'visitor', NOW - 59_999)];
    expect(roomFor('visitor', held, { max: 1, visitors: 1, idleMs: 60_000 }, NOW)).toEqual({ kind: 'full', retryAfterMs: 1_000 });
  });
});
