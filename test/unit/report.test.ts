import { describe, expect, it } from 'vitest';
import type { Dropped, JournalEntry } from '../../src/journal/journal.js';
import { backoffFinding } from '../../src/report/backoff.js';
import { bansFinding } from '../../src/report/bans.js';
import { coverageOf } from '../../src/report/coverage.js';
import { deprecatedFinding, type Deprecation } from '../../src/report/deprecation.js';
import { buildReport, type Subject } from '../../src/report/report.js';
import { retriesFinding } from '../../src/report/retries.js';
import { shapedFinding } from '../../src/report/shaped.js';
import { trafficOf } from '../../src/report/traffic.js';
import { validationFinding } from '../../src/report/validation.js';
import type { Applied } from '../../src/vocabulary/exchange.js';

/** The integration report's checks, each a scenario table over journal entries. */

const T0 = Date.parse('2026-11-22T10:00:00Z');
const link = (id: string): string => `/__sandbox/requests/${id}`;

interface Shape {
  readonly at?: number; // seconds after T0
  readonly method?: string;
  readonly path?: string;
  readonly query?: string;
  readonly op?: string;
  readonly status?: number;
  readonly code?: string;
  /** The key's id; null for a request without one. */
  readonly key?: string | null;
  readonly retryAfter?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly responseHeaders?: Record<string, string>;
  readonly violations?: readonly { location: string; message: string }[];
  readonly applied?: Applied;
  readonly lost?: boolean;
}

let counter = 0;
/** A journal entry as the journal builds it, with only what a row says. */
function entry(shape: Shape, id = `r${++counter}`): JournalEntry {
  const status = shape.status ?? 200;
  return {
    id,
    time: T0 + (shape.at ?? 0) * 1000,
    wallTime: 0,
    method: shape.method ?? 'GET',
    path: shape.path ?? '/v1/pets',
    query: shape.query ?? '',
    ...(shape.op === undefined ? { operationId: 'listPets' } : shape.op === '' ? {} : { operationId: shape.op }),
    ...(shape.key === null ? {} : { keyId: shape.key ?? 'key_a' }),
    ...(shape.key === undefined ? { keyName: 'client-a' } : {}),
    workspace: 'ws_1',
    status,
    ...(shape.code === undefined ? {} : { code: shape.code }),
    durationMs: 1,
    request: {
      headers: shape.headers ?? {},
      ...(shape.body === undefined ? {} : { body: { size: shape.body.length, text: shape.body, truncated: false } }),
    },
    response: { headers: { ...(shape.retryAfter === undefined ? {} : { 'retry-after': shape.retryAfter }), ...shape.responseHeaders } },
    ...(shape.violations ? { violations: shape.violations } : {}),
    ...(shape.applied ? { applied: shape.applied } : {}),
    ...(shape.lost ? { received: { kind: 'nothing', error: 'ECONNRESET' } } : {}),
  } as JournalEntry;
}
/** Rows named by id: `['a', {...}]` keeps `a` as the entry's id. */
const entries = (rows: readonly (readonly [string, Shape])[]): JournalEntry[] => rows.map(([id, shape]) => entry(shape, id));
const ids = (refs: readonly { id: string }[]): string[] => refs.map((r) => r.id);

describe('backoff: requests sent before Retry-After had passed', () => {
  const limited = { status: 429, code: 'rate_limited', retryAfter: '30' };
  // prettier-ignore
  const rows: readonly (readonly [string, readonly (readonly [string, Shape])[], 'pass' | 'fail', readonly string[]])[] = [
    ['no 429 at all', [['a', {}], ['b', { at: 1 }]], 'pass', []],
    ['waits out Retry-After to the second', [['a', limited], ['b', { at: 30 }]], 'pass', []],
    ['comes back a second early', [['a', limited], ['b', { at: 29, ...limited }], ['c', { at: 60 }]], 'fail', ['b']],
    ['hammers on a frozen clock', [['a', limited], ['b', limited], ['c', limited]], 'fail', ['b', 'c']],
    ['an HTTP-date Retry-After', [['a', { ...limited, retryAfter: new Date(T0 + 10_000).toUTCString() }], ['b', { at: 5 }], ['c', { at: 10 }]], 'fail', ['b']],
    ['a 429 without Retry-After is not judged', [['a', { status: 429, code: 'rate_limited' }], ['b', {}]], 'pass', []],
    ['another key may go on', [['a', limited], ['b', { key: 'key_b' }]], 'pass', []],
    ['requests without a key are not judged', [['a', { ...limited, key: null }], ['b', { key: null }]], 'pass', []],
    ['a longer Retry-After is not cut short by a shorter one', [['a', { ...limited, retryAfter: '600' }], ['b', { at: 1, ...limited, retryAfter: '1' }], ['c', { at: 100 }]], 'fail', ['b', 'c']],
  ];
  it.each(rows)('%s', (_, rows, verdict, early) => {
    const finding = backoffFinding(entries(rows), link);
    expect(finding.verdict).toBe(verdict);
    expect(ids(finding.entries)).toEqual(early);
    expect(finding.count).toBe(early.length);
  });

  it('counts the 429s each key received, and links to the early requests', () => {
    const finding = backoffFinding(
      entries([
        ['a', limited],
        ['b', { at: 2 }],
        ['c', { key: 'key_b', ...limited }],
        ['d', { key: 'key_b', at: 40 }],
      ]),
      link,
    );
    expect(finding.groups).toEqual([
      expect.objectContaining({
        keyId: 'key_a',
        keyName: 'client-a',
        received: 1,
        count: 1,
        entries: [{ id: 'b', time: '2026-11-22T10:00:02.000Z', link: '/__sandbox/requests/b' }],
      }),
      expect.objectContaining({ keyId: 'key_b', received: 1, count: 0, entries: [] }),
    ]);
    expect(finding.sentence).toBe(
      'Sent 1 request before Retry-After had passed, after 2 429s (client-a 1). Wait the seconds Retry-After gives before sending again: a client that does not is banned.',
    );
    expect(
      backoffFinding(
        entries([
          ['a', limited],
          ['b', { at: 30 }],
        ]),
        link,
      ).sentence,
    ).toBe('Received one 429 and waited out Retry-After after it.');
  });
});

describe('validation: violations by operation, field and rule', () => {
  it('groups every violation, most frequent first, one entry once per group', () => {
    const finding = validationFinding(
      entries([
        [
          'a',
          {
            method: 'POST',
            op: 'createPet',
            status: 400,
            code: 'validation_failed',
            violations: [
              { location: 'body.name', message: 'must be string' },
              { location: 'body.categoryId', message: 'is required' },
            ],
          },
        ],
        [
          'b',
          {
            method: 'POST',
            op: 'createPet',
            status: 400,
            code: 'validation_failed',
            violations: [{ location: 'body.name', message: 'must be string' }],
          },
        ],
        ['c', {}],
      ]),
      link,
    );
    expect(finding.verdict).toBe('warn');
    expect(ids(finding.entries)).toEqual(['a', 'b']);
    expect(finding.groups.map((g) => [g.operationId, g.field, g.rule, g.count, ids(g.entries)])).toEqual([
      ['createPet', 'body.name', 'must be string', 2, ['a', 'b']],
      ['createPet', 'body.categoryId', 'is required', 1, ['a']],
    ]);
    expect(finding.sentence).toContain('2 requests broke the document, in 2 ways: body.name must be string (createPet), 2 times');
  });

  it('passes when no request broke the document', () => {
    expect(validationFinding(entries([['a', { status: 404, code: 'route_not_found' }]]), link)).toMatchObject({
      verdict: 'pass',
      count: 0,
      groups: [],
    });
  });
});

describe('deprecated: calls to deprecated operations, and after their sunset', () => {
  const sunset = Date.parse('2030-12-05T00:00:00Z');
  const deprecations = new Map<string, Deprecation>([['getPet', { sunset, replacedBy: 'listPets' }]]);
  // prettier-ignore
  const rows: readonly (readonly [string, readonly (readonly [string, Shape])[], 'pass' | 'warn' | 'fail', readonly string[]])[] = [
    ['no deprecated operation', [['a', {}]], 'pass', []],
    ['the document deprecates it', [['a', { op: 'getPet', path: '/v1/pets/1' }], ['b', {}], ['c', { op: 'getPet', path: '/v1/pets/2' }]], 'warn', ['a', 'c']],
    ['past its sunset: 410', [['a', { op: 'getPet' }], ['b', { op: 'getPet', status: 410, code: 'operation_removed' }]], 'fail', ['a', 'b']],
    ['the answer said so (Deprecation header)', [['a', { op: 'oldThing', responseHeaders: { deprecation: '@0', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' } }]], 'warn', ['a']],
  ];
  it.each(rows)('%s', (_, rows, verdict, calls) => {
    const finding = deprecatedFinding(entries(rows), deprecations, link);
    expect(finding.verdict).toBe(verdict);
    expect(ids(finding.entries)).toEqual(calls);
  });

  it('names the sunset and the replacement', () => {
    const finding = deprecatedFinding(
      entries([
        ['a', { op: 'getPet' }],
        ['b', { op: 'getPet' }],
      ]),
      deprecations,
      link,
    );
    expect(finding.groups).toEqual([
      expect.objectContaining({
        operationId: 'getPet',
        sunset: '2030-12-05T00:00:00.000Z',
        replacedBy: 'listPets',
        count: 2,
        afterSunset: 0,
      }),
    ]);
    expect(finding.sentence).toBe(
      'Called 1 deprecated operation 2 times: getPet: 2 calls (removed on 2030-12-05; use listPets). Move off them before their sunset.',
    );
  });
});

describe('bans: requests answered while banned', () => {
  it('fails on any key_banned answer, grouped by key', () => {
    const banned = { status: 429, code: 'key_banned', retryAfter: '600' };
    const finding = bansFinding(
      entries([
        ['a', { status: 429, code: 'rate_limited' }],
        ['b', banned],
        ['c', banned],
      ]),
      link,
    );
    expect(finding).toMatchObject({ verdict: 'fail', count: 2, groups: [{ keyId: 'key_a', count: 2 }] });
    expect(bansFinding(entries([['a', {}]]), link)).toMatchObject({ verdict: 'pass', sentence: 'No ban was hit.' });
  });
});

describe('retries: a POST or PATCH resent without an Idempotency-Key', () => {
  const post = { method: 'POST', op: 'createPet', status: 201, body: '{"name":"Rex"}' };
  // prettier-ignore
  const rows: readonly (readonly [string, readonly (readonly [string, Shape])[], 'pass' | 'warn', readonly string[]])[] = [
    ['two different bodies', [['a', post], ['b', { ...post, body: '{"name":"Tess"}' }]], 'pass', []],
    ['the same body again', [['a', post], ['b', { ...post, at: 5 }]], 'warn', ['b']],
    ['resent after a 503', [['a', { ...post, status: 503 }], ['b', { ...post, at: 1 }]], 'warn', ['b']],
    ['resent after a connection reset', [['a', { ...post, lost: true }], ['b', { ...post, at: 1 }]], 'warn', ['b']],
    ['resent after a 400: nothing was done', [['a', { ...post, status: 400 }], ['b', post]], 'pass', []],
    ['resent after a 429: nothing was done', [['a', { ...post, status: 429 }], ['b', post]], 'pass', []],
    ['with an Idempotency-Key', [['a', post], ['b', { ...post, headers: { 'idempotency-key': 'k1' } }]], 'pass', []],
    ['past the 60 s window', [['a', post], ['b', { ...post, at: 61 }]], 'pass', []],
    ['at the edge of the window', [['a', post], ['b', { ...post, at: 60 }]], 'warn', ['b']],
    ['by another key', [['a', post], ['b', { ...post, key: 'key_b' }]], 'pass', []],
    ['a PUT is idempotent', [['a', { ...post, method: 'PUT' }], ['b', { ...post, method: 'PUT' }]], 'pass', []],
    ['a PATCH is not', [['a', { ...post, method: 'PATCH' }], ['b', { ...post, method: 'PATCH' }]], 'warn', ['b']],
    ['a chain, each measured from the last', [['a', { ...post, status: 503 }], ['b', { ...post, at: 50, status: 503 }], ['c', { ...post, at: 100 }]], 'warn', ['b', 'c']],
  ];
  it.each(rows)('%s', (_, rows, verdict, resent) => {
    const finding = retriesFinding(entries(rows), link);
    expect(finding.verdict).toBe(verdict);
    expect(ids(finding.entries)).toEqual(resent);
  });

  it('names the first request of each resent one', () => {
    const finding = retriesFinding(
      entries([
        ['a', { ...post, status: 503 }],
        ['b', post],
      ]),
      link,
    );
    expect(finding.groups).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/pets', count: 1, firstEntry: expect.objectContaining({ id: 'a' }) }),
    ]);
    expect(finding.groups[0]?.label).toBe('POST /v1/pets resent 1 time, the first answered 503');
  });
});

describe('shaped: the share of forced or faulted answers', () => {
  // prettier-ignore
  const rows: readonly (readonly [string, readonly Shape[], 'pass' | 'warn', number])[] = [
    ['none', [{}, {}], 'pass', 0],
    ['a delay alone is the API’s own answer', [{ applied: { delayMs: 200 } }], 'pass', 0],
    ['half', [{ applied: { preference: 'code=429' } }, {}], 'pass', 0.5],
    ['most', [{ applied: { rule: 'rule_1' } }, { applied: { fault: 'connection_reset' } }, {}], 'warn', 0.667],
    ['every one', [{ applied: { injectedStatus: 503 } }], 'warn', 1],
  ];
  it.each(rows)('%s', (_, shapes, verdict, share) => {
    const finding = shapedFinding(
      shapes.map((shape) => entry(shape)),
      link,
    );
    expect(finding.verdict).toBe(verdict);
    expect(finding.share).toBe(share);
  });
});

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
