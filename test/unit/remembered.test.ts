import { describe, expect, it } from 'vitest';
import { remembered } from '../../src/vocabulary/remembered.js';

describe('remembered: a bounded memo', () => {
  it('works a value out once, an undefined answer included', () => {
    const calls: string[] = [];
    const lookup = remembered(4, (key) => {
      calls.push(key);
      return key === 'none' ? undefined : key.toUpperCase();
    });
    expect([lookup('a'), lookup('a'), lookup('none'), lookup('none')]).toEqual(['A', 'A', undefined, undefined]);
    expect(calls).toEqual(['a', 'none']);
  });

  it('holds at most its limit, forgetting everything when full, and still answers right', () => {
    const calls: string[] = [];
    const lookup = remembered(3, (key) => {
      calls.push(key);
      return key.length;
    });
    for (const key of ['a', 'bb', 'ccc', 'dddd', 'a']) expect(lookup(key)).toBe(key.length);
    // The fourth key found the memo full and started it afresh: `a` is worked out again.
    expect(calls).toEqual(['a', 'bb', 'ccc', 'dddd', 'a']);
    expect(lookup('dddd')).toBe(4);
    expect(calls).toHaveLength(5);
  });
});
