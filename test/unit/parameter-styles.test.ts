import { describe, expect, it } from 'vitest';
import { parseMembers, parseParameter } from '../../src/validation/parse-parameter.js';
import { readCookies } from '../../src/validation/read-cookies.js';
import type { ParameterLocation, ParameterSpec, ParameterStyle, ValueKind } from '../../src/vocabulary/operation.js';

const COLOR_KINDS = new Map<string, ValueKind>([
  ['R', 'integer'],
  ['G', 'integer'],
  ['B', 'integer'],
]);

const spec = (style: ParameterStyle, explode: boolean, kind: ValueKind, location: ParameterLocation): ParameterSpec => ({
  name: 'color',
  in: location,
  required: false,
  schemaPointer: undefined,
  kind,
  itemKind: kind === 'array' ? 'string' : 'any',
  style,
  explode,
  ...(kind === 'object' ? { propertyKinds: COLOR_KINDS } : {}),
});

const BLUE = 'blue';
const COLORS = ['blue', 'black', 'brown'];
const RGB = { R: 100, G: 200, B: 150 };

/**
 * The "Style Examples" table of OpenAPI 3.1 §4.8.12.4, row by row, read backwards: what the
 * client sends (after the query or path is split and percent-decoded) and the value it means.
 */
// prettier-ignore
const TABLE: readonly (readonly [ParameterStyle, boolean, ParameterLocation, ValueKind, readonly string[], unknown])[] = [
  ['matrix', false, 'path', 'string', [';color=blue'], BLUE],
  ['matrix', false, 'path', 'string', [';color'], ''],
  ['matrix', true, 'path', 'string', [';color=blue'], BLUE],
  ['matrix', false, 'path', 'array', [';color=blue,black,brown'], COLORS],
  ['matrix', true, 'path', 'array', [';color=blue;color=black;color=brown'], COLORS],
  ['matrix', false, 'path', 'object', [';color=R,100,G,200,B,150'], RGB],
  ['matrix', true, 'path', 'object', [';R=100;G=200;B=150'], RGB],
  ['label', false, 'path', 'string', ['.blue'], BLUE],
  ['label', false, 'path', 'string', ['.'], ''],
  ['label', true, 'path', 'string', ['.blue'], BLUE],
  ['label', false, 'path', 'array', ['.blue,black,brown'], COLORS],
  ['label', true, 'path', 'array', ['.blue.black.brown'], COLORS],
  ['label', false, 'path', 'object', ['.R,100,G,200,B,150'], RGB],
  ['label', true, 'path', 'object', ['.R=100.G=200.B=150'], RGB],
  ['simple', false, 'path', 'string', ['blue'], BLUE],
  ['simple', true, 'path', 'string', ['blue'], BLUE],
  ['simple', false, 'path', 'array', ['blue,black,brown'], COLORS],
  ['simple', true, 'path', 'array', ['blue,black,brown'], COLORS],
  ['simple', false, 'path', 'object', ['R,100,G,200,B,150'], RGB],
  ['simple', true, 'path', 'object', ['R=100,G=200,B=150'], RGB],
  ['simple', false, 'header', 'array', ['blue, black ,brown'], COLORS],
  ['simple', true, 'header', 'object', ['R=100, G=200, B=150'], RGB],
  ['form', false, 'query', 'string', ['blue'], BLUE],
  ['form', false, 'query', 'string', [''], ''],
  ['form', true, 'query', 'string', ['blue'], BLUE],
  ['form', false, 'query', 'array', ['blue,black,brown'], COLORS],
  ['form', false, 'query', 'array', [''], []],
  ['form', true, 'query', 'array', ['blue', 'black', 'brown'], COLORS],
  ['form', false, 'query', 'object', ['R,100,G,200,B,150'], RGB],
  ['form', false, 'cookie', 'array', ['blue,black,brown'], COLORS],
  ['form', true, 'cookie', 'array', ['blue', 'black', 'brown'], COLORS],
  ['form', false, 'cookie', 'object', ['R,100,G,200,B,150'], RGB],
  ['spaceDelimited', false, 'query', 'array', ['blue black brown'], COLORS],
  ['spaceDelimited', false, 'query', 'object', ['R 100 G 200 B 150'], RGB],
  ['spaceDelimited', true, 'query', 'array', ['blue', 'black', 'brown'], COLORS],
  ['pipeDelimited', false, 'query', 'array', ['blue|black|brown'], COLORS],
  ['pipeDelimited', false, 'query', 'object', ['R|100|G|200|B|150'], RGB],
  ['pipeDelimited', true, 'query', 'array', ['blue', 'black', 'brown'], COLORS],
];

describe('the style table of OpenAPI 3.1 §4.8.12.4', () => {
  it.each(TABLE)('%s explode=%s in %s, %s: %j', (style, explode, location, kind, texts, value) => {
    expect(parseParameter(spec(style, explode, kind, location), texts)).toEqual({ ok: true, value });
  });

  it('reads exploded objects sent as several keys (form explode, deepObject)', () => {
    const pairs = [
      ['R', '100'],
      ['G', '200'],
      ['B', '150'],
    ] as const;
    expect(parseMembers(spec('form', true, 'object', 'query'), pairs)).toEqual({ ok: true, value: RGB });
    expect(parseMembers(spec('deepObject', true, 'object', 'query'), pairs)).toEqual({ ok: true, value: RGB });
  });

  // prettier-ignore
  const REFUSED: readonly (readonly [string, ParameterSpec, readonly string[], string | undefined])[] = [
    ['label without its dot', spec('label', false, 'string', 'path'), ['blue'], undefined],
    ['matrix under another name', spec('matrix', false, 'string', 'path'), [';colour=blue'], undefined],
    ['exploded matrix array with a foreign member', spec('matrix', true, 'array', 'path'), [';color=blue;size=2'], undefined],
    ['an odd name/value list', spec('simple', false, 'object', 'path'), ['R,100,G'], undefined],
    ['an exploded member without =', spec('simple', true, 'object', 'path'), ['R=100,G'], undefined],
    ['a property that is not canonical', spec('simple', true, 'object', 'path'), ['R=0100'], 'R'],
    ['a property given twice', spec('label', true, 'object', 'path'), ['.R=1.R=2'], 'R'],
    ['a primitive given twice', spec('form', true, 'string', 'cookie'), ['a', 'b'], undefined],
  ];
  it.each(REFUSED)('refuses %s', (_, parameter, texts, at) => {
    const parsed = parseParameter(parameter, texts);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.at).toBe(at);
  });

  it('keeps undeclared properties as text and __proto__ as a plain name', () => {
    const parsed = parseParameter(spec('simple', true, 'object', 'path'), ['R=1,__proto__=x,extra=2']);
    expect(parsed.ok && parsed.value).toEqual(
      Object.fromEntries([
        ['R', 1],
        ['__proto__', 'x'],
        ['extra', '2'],
      ]),
    );
    expect(parsed.ok && Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
  });

  it('parses content-typed parameters by their media type', () => {
    const json: ParameterSpec = { ...spec('form', true, 'any', 'query'), mediaType: 'application/json' };
    expect(parseParameter(json, ['{"a":[1]}'])).toEqual({ ok: true, value: { a: [1] } });
    expect(parseParameter(json, ['{a:1}']).ok).toBe(false);
    expect(parseParameter({ ...json, mediaType: 'application/vnd.x+json' }, ['3'])).toEqual({ ok: true, value: 3 });
    expect(parseParameter({ ...json, mediaType: 'text/plain' }, ['{a:1}'])).toEqual({ ok: true, value: '{a:1}' });
  });
});

describe('readCookies (RFC 6265 §4.2.1)', () => {
  it('splits on semicolons, keeps repetitions, unquotes and percent-decodes', () => {
    const cookies = readCookies('a=1; b="x y";a=2;  c=%41%2CB; broken; d=%E0%A4%A');
    expect([...cookies]).toEqual([
      ['a', ['1', '2']],
      ['b', ['x y']],
      ['c', ['A,B']],
      ['d', ['%E0%A4%A']],
    ]);
    expect(readCookies(undefined).size).toBe(0);
  });
});
