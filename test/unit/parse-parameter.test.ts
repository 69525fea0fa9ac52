import { describe, expect, it } from 'vitest';
import type { ParameterSpec } from '../../src/vocabulary/operation.js';
import { firstAccepted, parseParameter, readingsOf } from '../../src/validation/parse-parameter.js';
import { parseQuery } from '../../src/validation/parse-query.js';

const spec = (overrides: Partial<ParameterSpec>): ParameterSpec => ({
  name: 'p',
  in: 'query',
  required: false,
  schemaPointer: undefined,
  kind: 'string',
  itemKind: 'any',
  style: 'form',
  explode: true,
  ...overrides,
});

describe('parseParameter', () => {
  const integer = spec({ kind: 'integer' });
  it.each(['0', '7', '-3', '9007199254740991'])('reads the integer %s', (text) => {
    expect(parseParameter(integer, [text])).toEqual({ ok: true, value: Number(text) });
  });
  it.each(['', ' 1', '1 ', '+1', '01', '-0', '1.0', '1.5', '1e3', '0x10', 'Infinity', 'NaN', '9007199254740992', '99999999999999999999'])(
    'refuses %j as an integer',
    (text) => {
      expect(parseParameter(integer, [text]).ok).toBe(false);
    },
  );

  it.each([
    ['1.5', 1.5],
    ['-0.25', -0.25],
    ['2e3', 2000],
    ['0', 0],
  ])('reads the number %s', (text, value) => {
    expect(parseParameter(spec({ kind: 'number' }), [text])).toEqual({ ok: true, value });
  });
  it.each(['.5', '1.', 'Infinity', '1e999', '0x1'])('refuses %j as a number', (text) => {
    expect(parseParameter(spec({ kind: 'number' }), [text]).ok).toBe(false);
  });

  it('reads booleans only as true and false', () => {
    expect(parseParameter(spec({ kind: 'boolean' }), ['true'])).toEqual({ ok: true, value: true });
    expect(parseParameter(spec({ kind: 'boolean' }), ['1']).ok).toBe(false);
  });

  it('refuses a scalar given twice', () => {
    expect(parseParameter(spec({}), ['a', 'b'])).toEqual({ ok: false, message: 'must be given once' });
  });

  it('reads exploded and comma-separated arrays', () => {
    expect(parseParameter(spec({ kind: 'array', itemKind: 'integer' }), ['1', '2'])).toEqual({ ok: true, value: [1, 2] });
    expect(parseParameter(spec({ kind: 'array', itemKind: 'integer', explode: false }), ['1,2'])).toEqual({ ok: true, value: [1, 2] });
    expect(parseParameter(spec({ kind: 'array', itemKind: 'integer' }), ['1', 'x']).ok).toBe(false);
  });
});

describe('parseQuery', () => {
  it('keeps repetitions, decodes + and percent-encoding', () => {
    const parsed = parseQuery('a=1&a=2&b=x+y&c=%C3%A9&d');
    expect(parsed.ok && [...parsed.values]).toEqual([
      ['a', ['1', '2']],
      ['b', ['x y']],
      ['c', ['é']],
      ['d', ['']],
    ]);
  });

  // Where pairs start and end, as URLSearchParams cuts them (empty pairs skipped, `=` only at the first).
  it.each(['a=1', 'a=1&', '&a=1', '&&a=1&&b=2&&', 'a', 'a=&b', '=1', 'a==1&b=2=3', '&', '&&', 'a=1&b=2&c=3&d=4&e=5'])(
    'cuts %j into the pairs URLSearchParams finds',
    (raw) => {
      const parsed = parseQuery(raw);
      const expected = new Map<string, string[]>();
      for (const [name, value] of new URLSearchParams(raw)) expected.set(name, [...(expected.get(name) ?? []), value]);
      expect(parsed.ok && [...parsed.values]).toEqual([...expected]);
    },
  );

  it('refuses broken percent-encoding', () => {
    expect(parseQuery('a=%E0%A4%A').ok).toBe(false);
    expect(parseQuery('%zz=1').ok).toBe(false);
  });

  it('treats __proto__ as just a name', () => {
    const parsed = parseQuery('__proto__=1&constructor=2');
    expect(parsed.ok && parsed.values.get('__proto__')).toEqual(['1']);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });
});

describe('firstAccepted: a value of several types, read each way its schema allows', () => {
  const union = spec({
    in: 'path',
    style: 'simple',
    kind: 'any',
    variants: [
      { kind: 'integer', itemKind: 'any' },
      { kind: 'array', itemKind: 'boolean' },
      { kind: 'string', itemKind: 'any' },
    ],
  });
  // The schema: an integer below 10, a list of booleans, or a string of three letters.
  const accepts = (value: unknown): boolean =>
    (typeof value === 'number' && value < 10) ||
    (Array.isArray(value) && value.every((v) => typeof v === 'boolean')) ||
    (typeof value === 'string' && /^[a-z]{3}$/.test(value));
  const read = (text: string) => firstAccepted(readingsOf(union), (s) => parseParameter(s, [text]), accepts);

  // prettier-ignore
  it.each([
    ['7', { ok: true, value: 7 }],
    ['true,false', { ok: true, value: [true, false] }],
    ['abc', { ok: true, value: 'abc' }],
    // None accepted: the first reading that parses, so the schema says why.
    ['12', { ok: true, value: 12 }],
    ['ab', { ok: true, value: 'ab' }],
  ])('%j → %j', (text, expected) => {
    expect(read(text)).toEqual(expected);
  });

  it('reads a spec without variants one way, unvalidated', () => {
    expect(readingsOf(spec({ kind: 'integer' }))).toHaveLength(1);
    expect(firstAccepted(readingsOf(spec({ kind: 'integer' })), (s) => parseParameter(s, ['x']), accepts)).toMatchObject({ ok: false });
  });
});
