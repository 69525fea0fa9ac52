import { describe, expect, it } from 'vitest';
import type { Dropped, JournalEntry } from '../../src/journal/journal.js';
import { coverageOf } from '../../src/report/coverage.js';
import { buildReport, type Subject } from '../../src/report/report.js';
import { trafficOf } from '../../src/report/traffic.js';
import { entries, entry, link, T0, type Shape } from '../support/report-entries.js';

/** The integration report as a whole: its coverage, its requests by operation, its verdict and summary (the findings: report-findings.test.ts). */

describe('coverage: what the journal still holds', () => {
  const kept = entries([
    ['a', { at: 100 }],
    ['b', { at: 200 }],
  ]);
  // prettier-ignore
  const rows = [
    ['nothing dropped', {}, { count: 0, newestTime: undefined, exact: true }, true, 0, 'The journal dropped none of them.'],
    ['dropped before the range', { from: T0 + 50_000 }, { count: 7, newestTime: T0 + 40_000, exact: true }, true, 0, 'The journal dropped none of them.'],
    ['dropped inside the range', { from: T0 }, { count: 7, newestTime: T0 + 40_000, exact: true }, false, 7, 'dropped 7 older requests of key client-a, the newest answered at 2026-11-22T10:00:40.000Z'],
    ['dropped, no range', {}, { count: 1, newestTime: T0, exact: true }, false, 1, 'dropped 1 older request'],
    ['maybe dropped', {}, { count: 0, newestTime: undefined, exact: false }, false, 0, 'may have dropped some of key client-a'],
  ] as const;
  it.each(rows)('%s', (_, range, dropped, complete, count, sentence) => {
    const coverage = coverageOf(kept, range, dropped, 1000, 'key client-a');
    expect(coverage).toMatchObject({
      complete,
      dropped: count,
      requests: 2,
      first: '2026-11-22T10:01:40.000Z',
      last: '2026-11-22T10:03:20.000Z',
    });
    expect(coverage.sentence).toContain(sentence);
  });

  it('says when the journal keeps nothing, or holds nothing of the subject', () => {
    const none = { count: 0, newestTime: undefined, exact: true };
    expect(coverageOf([], {}, none, 0, 'key client-a').sentence).toBe(
      'The journal keeps no requests (journalSize 0): there is nothing to judge.',
    );
    expect(coverageOf([], { to: T0 }, none, 10, 'key client-a').sentence).toBe(
      'The journal holds no request of key client-a between the first and 2026-11-22T10:00:00.000Z. The journal dropped none of them.',
    );
  });
});

describe('the report as a whole', () => {
  const subject: Subject = { kind: 'key', keyId: 'key_a', keyName: 'client-a' };
  const none: Dropped = { count: 0, newestTime: undefined, exact: true };
  const report = (list: readonly JournalEntry[], dropped = none) =>
    buildReport({ subject, entries: list, range: {}, dropped, journalSize: 1000, deprecations: new Map([['getPet', {}]]), link });

  // prettier-ignore
  const rows: readonly (readonly [string, readonly Shape[], 'pass' | 'warn' | 'fail', string])[] = [
    ['nothing to judge', [], 'warn', 'Nothing to judge: no request was journaled in the range.'],
    ['a well-behaved client', [{}, { method: 'POST', op: 'createPet', status: 201, body: '{}' }], 'pass', 'Ready for go-live: every check passed over 2 requests.'],
    ['a deprecated call', [{ op: 'getPet' }], 'warn', 'Ready for go-live over 1 request, with things to look at: deprecated operations.'],
    ['a ban and a deprecated call', [{ op: 'getPet' }, { status: 429, code: 'key_banned' }], 'fail', 'Not ready for go-live over 2 requests: it fails bans, and should look at deprecated operations.'],
  ];
  it.each(rows)('%s', (_, shapes, verdict, summary) => {
    const built = report(shapes.map((shape) => entry(shape)));
    expect(built.verdict).toBe(verdict);
    expect(built.summary).toBe(summary);
    expect(built.findings.map((f) => f.id)).toEqual(['validation', 'deprecated', 'backoff', 'bans', 'retries', 'shaped']);
    expect(built.subject).toEqual({ key: { id: 'key_a', name: 'client-a' } });
  });

  it('says in its summary that the journal dropped what it cannot judge', () => {
    expect(report([entry({})], { count: 3, newestTime: T0, exact: true }).summary).toContain('The journal dropped older requests');
  });

  it('counts requests by operation and status, unmatched ones by method and path', () => {
    const rows = trafficOf([
      entry({ status: 200 }),
      entry({ status: 200 }),
      entry({ status: 429 }),
      entry({ op: '', path: '/v1/nope', status: 404 }),
    ]);
    expect(rows).toEqual([
      { operationId: 'listPets', method: 'GET', status: 200, count: 2 },
      { operationId: 'listPets', method: 'GET', status: 429, count: 1 },
      { method: 'GET', path: '/v1/nope', status: 404, count: 1 },
    ]);
  });

  it('links each finding to at most 50 entries and says how many more there are', () => {
    const many = Array.from({ length: 60 }, () => entry({ status: 429, code: 'key_banned' }));
    const bans = report(many).findings.find((f) => f.id === 'bans');
    expect(bans).toMatchObject({ count: 60, moreEntries: 10 });
    expect(bans?.entries).toHaveLength(50);
    expect(bans?.groups[0]?.entries).toHaveLength(20);
  });
});
