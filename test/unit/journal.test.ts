import { describe, expect, it } from 'vitest';
import { BODY_CAP } from '../../src/journal/entry.js';
import { Evictions, MAX_TRACKED } from '../../src/journal/evictions.js';
import { Journal, toJournalEntry, type JournalRecord } from '../../src/journal/journal.js';
import type { Exchange } from '../../src/vocabulary/exchange.js';

const exchange = (n: number, more: Partial<Exchange> = {}): Exchange => ({
  request: {
    id: String(n),
    method: 'GET',
    path: '/v1/pets',
    query: '',
    headers: {},
    clientAddress: '127.0.0.1',
    readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
  },
  response: { status: 200, headers: {}, body: [] },
  operationId: 'listPets',
  keyId: n % 2 === 0 ? 'key_even' : 'key_odd',
  workspace: n % 3 === 0 ? 'ws_third' : 'default',
  durationMs: 1,
  ...more,
});
const record = (n: number, more: Partial<Exchange> = {}): JournalRecord => toJournalEntry(exchange(n, more), n, 1000 + n);
const ids = (journal: Journal): string[] => journal.entries().map((e) => e.id);

describe('Journal', () => {
  it('keeps the newest entries up to its capacity; entries() newest first, recent() oldest first', () => {
    const journal = new Journal(3);
    for (let n = 1; n <= 5; n++) journal.add(record(n));
    expect(ids(journal)).toEqual(['5', '4', '3']);
    expect(journal.recent(2).map((e) => e.id)).toEqual(['4', '5']);
  });

  it('wants records while it keeps any or someone listens, and not at size 0 with nobody listening', () => {
    expect(new Journal(3).wants()).toBe(true);
    const off = new Journal(0);
    expect(off.wants()).toBe(false);
    const seen: string[] = [];
    const stop = off.subscribe((r) => seen.push(r.exchange.request.id));
    expect(off.wants()).toBe(true);
    off.add(record(7));
    expect(seen).toEqual(['7']);
    expect(off.entries()).toEqual([]);
    stop();
    expect(off.wants()).toBe(false);
  });

  it('returns what it has before it is full, and nothing after clear or at capacity 0', () => {
    const journal = new Journal(5);
    journal.add(record(1));
    journal.add(record(2));
    expect(ids(journal)).toEqual(['2', '1']);
    expect(journal.clear()).toBe(2);
    expect(journal.entries()).toEqual([]);
    const none = new Journal(0);
    none.add(record(1));
    expect(none.entries()).toEqual([]);
  });

  it('clears one key’s entries only, and keeps adding in order afterwards', () => {
    const journal = new Journal(4);
    for (let n = 1; n <= 6; n++) journal.add(record(n));
    expect(journal.clear({ keyId: 'key_even' })).toBe(2);
    expect(ids(journal)).toEqual(['5', '3']);
    for (let n = 7; n <= 9; n++) journal.add(record(n));
    expect(ids(journal)).toEqual(['9', '8', '7', '5']);
  });

  it('tallies what a full ring drops, per key and per workspace, and forgets a tally with the entries it clears', () => {
    const journal = new Journal(3);
    for (let n = 1; n <= 3; n++) journal.add(record(n));
    expect(journal.dropped()).toEqual({ count: 0, newestTime: undefined, exact: true });
    // 1 (odd, default) and 2 (even, default) are pushed out; then 3 (odd, ws_third).
    for (let n = 4; n <= 6; n++) journal.add(record(n));
    expect(ids(journal)).toEqual(['6', '5', '4']);
    expect(journal.dropped()).toEqual({ count: 3, newestTime: 3, exact: true });
    expect(journal.dropped({ keyId: 'key_odd' })).toEqual({ count: 2, newestTime: 3, exact: true });
    expect(journal.dropped({ keyId: 'key_even' })).toEqual({ count: 1, newestTime: 2, exact: true });
    expect(journal.dropped({ workspace: 'ws_third' })).toEqual({ count: 1, newestTime: 3, exact: true });
    expect(journal.dropped({ workspace: 'default' })).toEqual({ count: 2, newestTime: 2, exact: true });
    expect(journal.dropped({ keyId: 'key_none' })).toEqual({ count: 0, newestTime: undefined, exact: true });
    // Clearing a workspace forgets its tally and its keys' (a key works in one workspace: here, where it first dropped).
    journal.clear({ workspace: 'default' });
    expect(journal.dropped({ workspace: 'default' }).count).toBe(0);
    expect(journal.dropped({ keyId: 'key_odd' }).count).toBe(0);
    expect(journal.dropped({ keyId: 'key_even' }).count).toBe(0);
    expect(journal.dropped({ workspace: 'ws_third' }).count).toBe(1);
    journal.clear();
    expect(journal.dropped()).toEqual({ count: 0, newestTime: undefined, exact: true });
    expect(journal.retention).toBe(3);
  });

  it('tallies at most MAX_TRACKED keys, and then says a key’s tally may be short', () => {
    const evictions = new Evictions();
    for (let n = 0; n <= MAX_TRACKED; n++) evictions.note(`key_${n}`, 'default', n);
    expect(evictions.of({ keyId: 'key_0' })).toEqual({ count: 0, newestTime: undefined, exact: false });
    expect(evictions.of({ keyId: `key_${MAX_TRACKED}` })).toEqual({ count: 1, newestTime: MAX_TRACKED, exact: false });
    expect(evictions.of({})).toEqual({ count: MAX_TRACKED + 1, newestTime: MAX_TRACKED, exact: true });
  });

  it('builds an entry’s view once, when it is first read', () => {
    const journal = new Journal(2);
    const kept = record(1);
    journal.add(kept);
    expect(journal.view(kept)).toBe(journal.view(kept));
    expect(journal.view(kept)).toMatchObject({ id: '1', time: 1, wallTime: 1001, operationId: 'listPets', keyId: 'key_odd', status: 200 });
  });

  it('tells subscribers of each addition until they unsubscribe', () => {
    const journal = new Journal(1);
    const seen: string[] = [];
    const stop = journal.subscribe((r) => seen.push(r.exchange.request.id));
    journal.add(record(1));
    journal.add(record(2));
    stop();
    journal.add(record(3));
    expect(seen).toEqual(['1', '2']);
  });

  it('keeps only what an entry can show of a large request body, and its whole size; a small one by reference', () => {
    const body = Buffer.alloc(BODY_CAP * 4, 'a');
    const kept = record(1, { requestBody: body, request: { ...exchange(1).request, headers: { 'content-type': 'text/plain' } } });
    expect(kept.exchange.requestBody!.length).toBeLessThan(body.length);
    expect(kept.requestBodySize).toBe(body.length);
    const journal = new Journal(1);
    journal.add(kept);
    expect(journal.view(kept).request.body).toEqual({
      mimeType: 'text/plain',
      size: body.length,
      text: 'a'.repeat(BODY_CAP),
      truncated: true,
    });
    const small = Buffer.from('{}');
    expect(toJournalEntry(exchange(2, { requestBody: small }), 2).exchange.requestBody).toBe(small);
  });
});
