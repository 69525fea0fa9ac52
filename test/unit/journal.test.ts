import { describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../src/journal/journal.js';

const entry = (n: number): JournalEntry => ({
  id: String(n),
  time: n,
  method: 'GET',
  path: '/',
  query: '',
  operationId: undefined,
  status: 200,
  code: undefined,
  keyId: undefined,
  durationMs: 1,
});

describe('Journal', () => {
  it('keeps the newest entries up to its capacity, oldest first', () => {
    const journal = new Journal(3);
    for (let n = 1; n <= 5; n++) journal.add(entry(n));
    expect(journal.recent(10).map((e) => e.id)).toEqual(['3', '4', '5']);
    expect(journal.recent(2).map((e) => e.id)).toEqual(['4', '5']);
  });

  it('returns what it has before it is full, and nothing after clear or at capacity 0', () => {
    const journal = new Journal(5);
    journal.add(entry(1));
    journal.add(entry(2));
    expect(journal.recent(10).map((e) => e.id)).toEqual(['1', '2']);
    journal.clear();
    expect(journal.recent(10)).toEqual([]);
    const none = new Journal(0);
    none.add(entry(1));
    expect(none.recent(10)).toEqual([]);
  });
});
