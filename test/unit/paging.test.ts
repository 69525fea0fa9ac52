import { describe, expect, it } from 'vitest';
import { firstAfter, paginate } from '../../src/store/paging.js';
import type { Row } from '../../src/vocabulary/record.js';

const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({ id: (i + 1) * 2, colour: i % 3 === 0 ? 'red' : 'blue' }));

describe('firstAfter', () => {
  it.each([
    [undefined, 0],
    [0, 0],
    [2, 1],
    [3, 1],
    [19, 9],
    [20, 10],
    [99, 10],
  ])('after %s starts at index %s', (after, index) => {
    expect(firstAfter(rows, after)).toBe(index);
  });
});

describe('paginate', () => {
  it('returns a page and the cursor of the next one', () => {
    expect(paginate(rows, { after: undefined, limit: 3, filters: [] })).toEqual({ items: rows.slice(0, 3), nextAfter: 6 });
  });

  it('has no next cursor on an exactly full last page', () => {
    expect(paginate(rows, { after: 14, limit: 3, filters: [] })).toEqual({ items: rows.slice(7), nextAfter: undefined });
  });

  it('filters by field and by a list of accepted values', () => {
    const red = paginate(rows, { after: undefined, limit: 10, filters: [['colour', 'red']] });
    expect(red.items.map((r) => r.id)).toEqual([2, 8, 14, 20]);
    const either = paginate(rows, { after: undefined, limit: 100, filters: [['colour', ['red', 'blue']]] });
    expect(either.items).toHaveLength(10);
  });

  it('walks every row exactly once, page by page, for any page size', () => {
    for (let limit = 1; limit <= 11; limit++) {
      const seen: number[] = [];
      let after: number | undefined;
      do {
        const page = paginate(rows, { after, limit, filters: [] });
        seen.push(...page.items.map((r) => r.id));
        after = page.nextAfter;
      } while (after !== undefined);
      expect(seen).toEqual(rows.map((r) => r.id));
    }
  });

  it('is empty past the end and on an empty store', () => {
    expect(paginate(rows, { after: 20, limit: 5, filters: [] })).toEqual({ items: [], nextAfter: undefined });
    expect(paginate([], { after: undefined, limit: 5, filters: [] })).toEqual({ items: [], nextAfter: undefined });
  });
});
