import { describe, expect, it } from 'vitest';
import { backoffFinding } from '../../src/report/backoff.js';
import { bansFinding } from '../../src/report/bans.js';
import { deprecatedFinding, type Deprecation } from '../../src/report/deprecation.js';
import { retriesFinding } from '../../src/report/retries.js';
import { shapedFinding } from '../../src/report/shaped.js';
import { validationFinding } from '../../src/report/validation.js';
import { entries, entry, ids, link, T0, type Shape } from '../support/report-entries.js';

/** The integration report's findings, each a scenario table over journal entries. */

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
