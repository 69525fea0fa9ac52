import { describe, expect, it } from 'vitest';
import { bearerChallenge, readBearer } from '../../src/auth/bearer.js';
import { KeyRegistry } from '../../src/auth/key-registry.js';
import { SandboxClock, unixSeconds } from '../../src/clock/clock.js';

describe('SandboxClock', () => {
  it('stands still when frozen, moves only when advanced, and resets to its source', () => {
    const clock = new SandboxClock(() => 5, 1_000_000);
    expect(clock.now()).toBe(1_000_000);
    expect(clock.advance(61_000)).toBe(1_061_000);
    expect(unixSeconds(clock.now())).toBe(1061);
    clock.reset();
    expect(clock.now()).toBe(1_000_000);
  });

  it('follows its source when not frozen', () => {
    let t = 10;
    const clock = new SandboxClock(() => t);
    t = 20;
    clock.advance(5);
    expect(clock.now()).toBe(25);
  });
});

describe('readBearer (RFC 6750 §2.1)', () => {
  it.each([
    [undefined, { kind: 'missing' }],
    ['  ', { kind: 'missing' }],
    ['Bearer abc.DEF-123_~+/=', { kind: 'token', token: 'abc.DEF-123_~+/=' }],
    ['bearer   abc', { kind: 'token', token: 'abc' }],
  ])('reads %j', (header, expected) => {
    expect(readBearer(header)).toEqual(expected);
  });
  it.each(['Basic abc', 'Bearer', 'Bearer a b', 'Bearer a"b', 'Bearer =abc', 'Token abc'])('refuses %j as malformed', (header) => {
    expect(readBearer(header).kind).toBe('malformed');
  });
  it('builds challenges without an error code when nothing was sent', () => {
    expect(bearerChallenge('r')).toBe('Bearer realm="r"');
    expect(bearerChallenge('r', { code: 'invalid_token', description: 'bad "key"' })).toBe(
      'Bearer realm="r", error="invalid_token", error_description="bad key"',
    );
  });
});

describe('KeyRegistry', () => {
  it('finds configured and issued keys, forgets issued ones on reset, and never exposes the key in its id', () => {
    const keys = new KeyRegistry([{ key: 'demo-free', plan: 'free' }]);
    expect(keys.find('demo-free')).toEqual({ id: expect.stringMatching(/^key_[0-9a-f]{12}$/), plan: 'free', workspace: 'default' });
    expect(keys.find('demo-fre')).toBeUndefined();
    const issued = keys.issue('pro');
    expect(keys.find(issued.key)).toEqual(issued.record);
    expect(keys.byId(issued.record.id)).toEqual(issued.record);
    keys.reset();
    expect(keys.find(issued.key)).toBeUndefined();
    expect(keys.find('demo-free')?.id).not.toContain('demo');
  });
});
