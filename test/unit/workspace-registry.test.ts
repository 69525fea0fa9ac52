import { describe, expect, it } from 'vitest';
import { WorkspaceClocks } from '../../src/clock/workspace-clocks.js';
import { WorkspaceRegistry } from '../../src/workspaces/registry.js';

/** A wall clock the test moves by hand. */
const wall = (start = 1_000) => {
  let now = start;
  return { read: () => now, move: (ms: number) => (now += ms) };
};

describe('WorkspaceRegistry', () => {
  it('holds the default workspace and the configured ones from the start, as permanent', () => {
    const registry = new WorkspaceRegistry(10, ['team-a', 'team-a', 'default']);
    expect(registry.list().map((w) => [w.id, w.permanent])).toEqual([
      ['default', true],
      ['team-a', true],
    ]);
  });

  it('creates private workspaces with distinct, path-safe ids', () => {
    const registry = new WorkspaceRegistry(100, []);
    const ids = Array.from({ length: 50 }, () => registry.create().id);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^ws_[A-Za-z0-9]{12}$/);
  });

  it('past the maximum evicts the least recently used workspace that is not permanent, and reports it', () => {
    const clock = wall();
    const registry = new WorkspaceRegistry(3, [], clock.read);
    const first = registry.create().id;
    clock.move(10);
    const second = registry.create().id;
    clock.move(10);
    registry.touch(first);
    clock.move(10);
    const third = registry.create();
    expect(third.evicted).toEqual({ id: second, createdAt: 1_010, lastUsedAt: 1_010, evictedAt: 1_030 });
    expect(registry.has(second)).toBe(false);
    expect(registry.evicted().map((e) => e.id)).toEqual([second]);
    expect(registry.list().map((w) => w.id)).toEqual(['default', first, third.id]);
  });

  it('never evicts nor deletes a permanent workspace', () => {
    const registry = new WorkspaceRegistry(1, []);
    const created = registry.create();
    expect(created.evicted).toBeUndefined();
    expect(registry.delete('default')).toBe('permanent');
    expect(registry.delete(created.id)).toBe('removed');
    expect(registry.delete(created.id)).toBe('unknown');
  });

  it('forgets created workspaces and evictions on reset', () => {
    const registry = new WorkspaceRegistry(2, []);
    registry.create();
    registry.create();
    registry.reset();
    expect(registry.list().map((w) => w.id)).toEqual(['default']);
    expect(registry.evicted()).toEqual([]);
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
