import { describe, expect, it } from 'vitest';
import {
  NO_PREFERENCES,
  NOTHING_PREFERRED,
  PREFERENCE_QUERY_PARAMETERS,
  preferenceApplied,
  readPreferences,
  type Preferences,
} from '../../src/pipeline/preferences.js';

type Headers = Record<string, string>;

const prefer = (value: string): Headers => ({ prefer: value });

// prettier-ignore
const READ: readonly [string, Headers, string, Preferences][] = [
  // RFC 7240 §2 grammar
  ['a code',                                   prefer('code=404'),                                     '', { code: 404 }],
  ['several preferences',                      prefer('code=404, example=missing, dynamic=true'),      '', { code: 404, example: 'missing', dynamic: true }],
  ['no spaces after commas',                   prefer('code=404,example=missing'),                     '', { code: 404, example: 'missing' }],
  ['names are case-insensitive',               prefer('CODE=404, Example=missing, DYNAMIC=true'),      '', { code: 404, example: 'missing', dynamic: true }],
  ['example names are case-sensitive',         prefer('example=NotFound'),                             '', { example: 'NotFound' }],
  ['booleans ignore case',                     prefer('dynamic=FALSE'),                                '', { dynamic: false }],
  ['a quoted value',                           prefer('example="not found"'),                          '', { example: 'not found' }],
  ['a quoted code',                            prefer('code="404"'),                                   '', { code: 404 }],
  ['escapes in a quoted value',                prefer('example="say \\"hi\\" \\\\ bye"'),              '', { example: 'say "hi" \\ bye' }],
  ['a comma inside quotes',                    prefer('example="a, b", code=500'),                     '', { code: 500, example: 'a, b' }],
  ['spaces around =',                          prefer('code = 404 ,  example =\tmissing'),             '', { code: 404, example: 'missing' }],
  ['parameters are ignored',                   prefer('code=404; foo=bar; baz, example=x;q="a,b"'),    '', { code: 404, example: 'x' }],
  ['parameters on an unknown preference',      prefer('respond-async; wait=10, code=202'),             '', { code: 202 }],
  ['unknown preferences are ignored',          prefer('return=minimal, handling=lenient, code=201'),   '', { code: 201 }],
  ['only unknown preferences: the constant',   prefer('return=representation'),                        '', {}],
  ['empty list elements are skipped',          prefer(', ,code=404,,'),                                '', { code: 404 }],
  ['the first of two wins',                    prefer('code=404, code=500'),                           '', { code: 404 }],
  ['a malformed repeat is not read',           prefer('code=404, code=abc'),                           '', { code: 404 }],
  ['two header lines, joined by the edge',     prefer('code=404, example=one, example=two'),           '', { code: 404, example: 'one' }],
  ['a broken unknown element is skipped',      prefer('wait=("x"), code=404'),                         '', { code: 404 }],
  ['a seed',                                   prefer('dynamic=true, seed=42'),                        '', { dynamic: true, seed: 42 }],
  ['seed 0',                                   prefer('seed=0'),                                       '', { seed: 0 }],
  ['delay and fault pass through',             prefer('delay=1500, fault=connection_reset'),           '', { delay: '1500', fault: 'connection_reset' }],
  ['delay passes through unchecked',           prefer('delay=soon'),                                   '', { delay: 'soon' }],
  ['code range ends',                          prefer('code=100'),                                     '', { code: 100 }],
  ['code range ends (599)',                    prefer('code=599'),                                     '', { code: 599 }],
  // query fallbacks: only without Prefer
  ['query fallbacks',                          {},  '__code=404&__example=missing&__dynamic=true&__seed=7', { code: 404, example: 'missing', dynamic: true, seed: 7 }],
  ['query delay and fault',                    {},  'a=1&__delay=200&__fault=timeout',                 { delay: '200', fault: 'timeout' }],
  ['query values are form-decoded',            {},  '__example=not+found%21',                          { example: 'not found!' }],
  ['the first query value wins',               {},  '__code=404&__code=500',                           { code: 404 }],
  ['other __ names are not preferences',       {},  '__proto__=1&__codes=404',                         {}],
  ['the query is ignored with a Prefer header', prefer('code=500'), '__code=404&__example=x',          { code: 500 }],
  ['even an unread Prefer header',             prefer('return=minimal'), '__code=404',                 {}],
  ['even an empty Prefer header',              prefer(''),  '__code=404',                              {}],
  // Postman's aliases
  ['x-mock-response-code',                     { 'x-mock-response-code': '404' },            '',       { code: 404 }],
  ['x-mock-response-name',                     { 'x-mock-response-name': 'Not found pet' },  '',       { example: 'Not found pet' }],
  ['Prefer wins over the aliases',             { prefer: 'code=500, example=a', 'x-mock-response-code': '404', 'x-mock-response-name': 'b' }, '', { code: 500, example: 'a' }],
  ['the aliases fill what Prefer leaves',      { prefer: 'example=a', 'x-mock-response-code': '404' }, '',  { code: 404, example: 'a' }],
  ['the aliases win over the query',           { 'x-mock-response-code': '404' }, '__code=500&__example=q', { code: 404, example: 'q' }],
];

// prettier-ignore
const INVALID: readonly [string, Headers, string, string][] = [
  ['code not a number',           prefer('code=abc'),                              '', 'header.prefer'],
  ['code below 100',              prefer('code=99'),                               '', 'header.prefer'],
  ['code above 599',              prefer('code=600'),                              '', 'header.prefer'],
  ['code with a fraction',        prefer('code=404.0'),                            '', 'header.prefer'],
  ['code without a value',        prefer('code'),                                  '', 'header.prefer'],
  ['code with an empty value',    prefer('code='),                                 '', 'header.prefer'],
  ['code with a broken quote',    prefer('code="404'),                             '', 'header.prefer'],
  ['code followed by junk',       prefer('code=404 500'),                          '', 'header.prefer'],
  ['the first of two malformed',  prefer('code=abc, code=404'),                    '', 'header.prefer'],
  ['dynamic maybe',               prefer('dynamic=maybe'),                         '', 'header.prefer'],
  ['dynamic without a value',     prefer('dynamic'),                               '', 'header.prefer'],
  ['seed negative',               prefer('seed=-1'),                               '', 'header.prefer'],
  ['seed not whole',              prefer('seed=1.5'),                              '', 'header.prefer'],
  ['an empty example name',       prefer('example=""'),                            '', 'header.prefer'],
  ['a bad alias code',            { 'x-mock-response-code': 'teapot' },            '', 'header.x-mock-response-code'],
  ['a bad query code',            {},                                              '__code=4o4', 'query.__code'],
  ['a bad query dynamic',         {},                                              '__dynamic', 'query.__dynamic'],
];

describe('readPreferences', () => {
  it.each(READ)('%s', (_name, headers, query, expected) => {
    expect(readPreferences(headers, query)).toEqual({ ok: true, preferences: expected });
  });

  it.each(INVALID)('%s: 400 invalid_preference at %s', (_name, headers, query, location) => {
    const read = readPreferences(headers, query);
    expect(read).toMatchObject({ ok: false, error: { code: 'invalid_preference', status: 400, details: [{ location }] } });
  });

  it('names the preference in the message', () => {
    const read = readPreferences(prefer('dynamic=maybe'), '');
    expect(read.ok ? '' : read.error.message).toMatch(/dynamic/);
  });

  it('a request with nothing preferred gets the shared constant, whatever its other headers and query', () => {
    expect(readPreferences({}, '')).toBe(NOTHING_PREFERRED);
    expect(readPreferences({ accept: 'application/json', authorization: 'Bearer x' }, 'limit=2&after=10')).toBe(NOTHING_PREFERRED);
    expect(readPreferences({}, 'a_b=1')).toBe(NOTHING_PREFERRED);
    expect(readPreferences(prefer('return=minimal'), '')).toBe(NOTHING_PREFERRED);
    expect(readPreferences({}, 'x=__code')).toBe(NOTHING_PREFERRED);
    expect(NOTHING_PREFERRED.ok && NOTHING_PREFERRED.preferences).toBe(NO_PREFERENCES);
  });

  it('returns frozen records', () => {
    const read = readPreferences(prefer('code=404'), '');
    expect(Object.isFrozen(NO_PREFERENCES)).toBe(true);
    expect(read.ok && Object.isFrozen(read.preferences)).toBe(true);
  });

  it('lists the query names validation must let through', () => {
    expect([...PREFERENCE_QUERY_PARAMETERS].sort()).toEqual(['__code', '__delay', '__dynamic', '__example', '__fault', '__seed']);
  });
});

// prettier-ignore
const APPLIED: readonly [Preferences, string | undefined][] = [
  [{},                                                     undefined],
  [{ code: 404 },                                          'code=404'],
  [{ example: 'missing', code: 404 },                      'code=404, example=missing'],
  [{ example: 'not found' },                               'example="not found"'],
  [{ example: 'say "hi" \\' },                             'example="say \\"hi\\" \\\\"'],
  [{ example: '' },                                        'example=""'],
  [{ example: 'café' },                                    'example="café"'],
  [{ example: 'a\nb☃' },                                   'example="a?b?"'],
  [{ dynamic: true, seed: 3 },                             'dynamic=true, seed=3'],
  [{ fault: 'timeout', delay: '200', dynamic: false },     'dynamic=false, delay=200, fault=timeout'],
];

describe('preferenceApplied (RFC 7240 §3)', () => {
  it.each(APPLIED)('%j → %s', (applied, expected) => {
    expect(preferenceApplied(applied)).toBe(expected);
  });

  it('reads back as what it names', () => {
    const applied: Preferences = { code: 404, example: 'a "quoted", name' };
    const text = preferenceApplied(applied) ?? '';
    expect(readPreferences(prefer(text), '')).toEqual({ ok: true, preferences: applied });
  });
});
