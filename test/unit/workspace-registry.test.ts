import { describe, expect, it } from 'vitest';
import { WorkspaceClocks } from '../../src/clock/workspace-clocks.js';
import { WorkspaceRegistry, type Creation } from '../../src/workspaces/registry.js';

/** A clock the test moves by hand. */
const wall = (start = 1_000) => {
  let now = start;
  return { read: () => now, move: (ms: number) => (now += ms) };
};

/** A registry holding at most `max` workspaces (`visitors` of them visitors'), idle after `idleMs`. */
const registryOf = (max: number, configured: string[] = [], clock = () => 1_000, visitors = max, idleMs = 0) =>
  new WorkspaceRegistry(() => ({ max, visitors, idleMs }), configured, clock);

/** The creation's id (it must have been made). */
const made = (creation: Creation) => {
  if (creation.kind !== 'created') throw new Error(`refused: ${JSON.stringify(creation)}`);
  return creation;
};

describe('WorkspaceRegistry', () => {
  it('holds the default workspace and the configured ones from the start, as permanent', () => {
    const registry = registryOf(10, ['team-a', 'team-a', 'default']);
    expect(registry.list().map((w) => [w.id, w.permanent])).toEqual([
      ['default', true],
      ['team-a', true],
    ]);
  });

  it('creates private workspaces with distinct, path-safe ids', () => {
    const registry = registryOf(100);
    const ids = Array.from({ length: 50 }, () => made(registry.create()).id);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^ws_[A-Za-z0-9]{12}$/);
  });

  it('past the maximum evicts the least recently used workspace that is not permanent, and reports it', () => {
    const clock = wall();
    const registry = registryOf(3, [], clock.read);
    const first = made(registry.create()).id;
    clock.move(10);
    const second = made(registry.create()).id;
    clock.move(10);
    registry.touch(first);
    clock.move(10);
    const third = made(registry.create());
    expect(third.evicted).toEqual({ id: second, createdAt: 1_010, lastUsedAt: 1_010, evictedAt: 1_030 });
    expect(registry.has(second)).toBe(false);
    expect(registry.evicted().map((e) => e.id)).toEqual([second]);
    expect(registry.list().map((w) => w.id)).toEqual(['default', first, third.id]);
  });

  it('never evicts nor deletes a permanent workspace', () => {
    const registry = registryOf(1);
    const created = made(registry.create());
    expect(created.evicted).toBeUndefined();
    expect(registry.delete('default')).toBe('permanent');
    expect(registry.delete(created.id)).toBe('removed');
    expect(registry.delete(created.id)).toBe('unknown');
  });

  it('forgets created workspaces and evictions on reset', () => {
    const registry = registryOf(2);
    registry.create();
    registry.create();
    registry.reset();
    expect(registry.list().map((w) => w.id)).toEqual(['default']);
    expect(registry.evicted()).toEqual([]);
  });

  it('never evicts a workspace used within the idle time: visitors are refused, admin-issued ones go past the maximum', () => {
    const clock = wall();
    const registry = registryOf(3, [], clock.read, 3, 60_000);
    const issued = made(registry.create('issued')).id;
    made(registry.create('visitor'));
    clock.move(59_999);
    registry.touch(issued);
    expect(registry.create('visitor')).toEqual({ kind: 'full', retryAfterMs: 1_000 });
    const past = made(registry.create('issued'));
    expect(past.evicted).toBeUndefined();
    expect(registry.list()).toHaveLength(4);
  });

  it('lets a visitor take an idle visitor’s place only, and keeps the pool in a snapshot', () => {
    const clock = wall();
    const registry = registryOf(10, [], clock.read, 1, 60_000);
    const issued = made(registry.create('issued')).id;
    const visitor = made(registry.create('visitor')).id;
    clock.move(60_000);
    const next = made(registry.create('visitor'));
    expect(next.evicted?.id).toBe(visitor);
    expect(registry.has(issued)).toBe(true);
    expect(registry.snapshot().created.map((w) => [w.id, w.visitor])).toEqual([
      [issued, undefined],
      [next.id, true],
    ]);
    const restored = registryOf(10, [], clock.read, 1, 60_000);
    restored.restore(registry.snapshot());
    expect(restored.create('visitor').kind).toBe('full');
  });
});

describe('WorkspaceClocks', () => {
  it('lets every workspace follow the shared clock until its own is moved, then keeps its own offset', () => {
    const clocks = new WorkspaceClocks(() => 0, 1_000_000);
    clocks.advance('ws_a', 60_000);
    expect(clocks.of('ws_a').now()).toBe(1_060_000);
    expect(clocks.of('ws_b').now()).toBe(1_000_000);
    clocks.advance('default', 5_000);
    expect(clocks.of('ws_b').now()).toBe(1_005_000);
    expect(clocks.of('ws_a').now()).toBe(1_060_000);
    expect([clocks.follows('ws_a'), clocks.follows('ws_b')]).toEqual([false, true]);
  });

  it('starts a workspace’s own clock where the shared one stands', () => {
    const clocks = new WorkspaceClocks(() => 0, 0);
    clocks.advance('default', 30_000);
    clocks.advance('ws_a', 1_000);
    expect(clocks.of('ws_a').now()).toBe(31_000);
  });

  it('makes a forgotten workspace follow again; forgetting the default one puts the shared clock back', () => {
    const clocks = new WorkspaceClocks(() => 0, 0);
    clocks.advance('default', 10_000);
    clocks.advance('ws_a', 1_000);
    clocks.forget('ws_a');
    expect(clocks.of('ws_a').now()).toBe(10_000);
    clocks.forget('default');
    expect(clocks.of('ws_a').now()).toBe(0);
  });
});
