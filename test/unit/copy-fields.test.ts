import { describe, expect, it } from 'vitest';
import { copyFields } from '../../src/vocabulary/record.js';

describe('copyFields', () => {
  it('copies own fields in order, over what is there, leaving out the excepted one', () => {
    const into: Record<string, unknown> = { id: 7, name: 'old' };
    copyFields(into, { id: 99, name: 'Rex', status: 'sold' }, 'id');
    expect(into).toEqual({ id: 7, name: 'Rex', status: 'sold' });
    expect(Object.keys(into)).toEqual(['id', 'name', 'status']);
  });

  it('copies a field named __proto__ as a field, never as the prototype', () => {
    const from = JSON.parse('{"__proto__":{"polluted":1},"name":"x"}') as Record<string, unknown>;
    const into: Record<string, unknown> = {};
    copyFields(into, from);
    expect(Object.getPrototypeOf(into)).toBe(Object.prototype);
    expect(Object.hasOwn(into, '__proto__')).toBe(true);
    expect((into as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(into)).toBe('{"__proto__":{"polluted":1},"name":"x"}');
  });
});
