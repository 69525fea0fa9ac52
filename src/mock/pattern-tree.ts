/**
 * ECMA-262 regular expressions (§22.2.1) read into a small tree that values are drawn from
 * (pattern-values.ts): literals, classes, groups, alternatives, quantifiers and back-references.
 * Lookarounds read as matching nothing; what the tree cannot express throws.
 */

export type Range = readonly [number, number];

export type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'set'; readonly choices: readonly Range[]; readonly size: number }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly options: readonly Node[] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly kind: 'group'; readonly node: Node; readonly key: string | undefined }
  | { readonly kind: 'backref'; readonly key: string };

const EMPTY: Node = { kind: 'text', text: '' };
const PRINTABLE: Range = [0x20, 0x7e];
const ALNUM: readonly Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x61, 0x7a],
];
const DIGIT: readonly Range[] = [[0x30, 0x39]];
const WORD: readonly Range[] = [...ALNUM, [0x5f, 0x5f]];
const SPACE: readonly Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
];

/** The tree of `source`; throws on what it cannot read (a PCRE `(?i)`, an empty class). */
export function parsePattern(source: string): Node {
  return new Parser(source).parse();
}

/** The code points of `ranges` within `within` (both sorted or not). */
function intersect(ranges: readonly Range[], within: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const [a, b] of ranges)
    for (const [c, d] of within) if (Math.max(a, c) <= Math.min(b, d)) out.push([Math.max(a, c), Math.min(b, d)]);
  return out;
}

/** The printable ASCII characters outside `ranges`, then Latin-1 letters if none is left. */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const universe of [PRINTABLE, [0xc0, 0xff] as const]) {
    let start = universe[0];
    for (let code = universe[0]; code <= universe[1] + 1; code++) {
      const inside = code > universe[1] || ranges.some(([low, high]) => code >= low && code <= high);
      if (inside) {
        if (code > start) out.push([start, code - 1]);
        start = code + 1;
      }
    }
    if (out.length > 0) return out;
  }
  return out;
}

/** A set node drawing realistic characters first: letters and digits, then printable ASCII, then any. */
function setOf(ranges: readonly Range[], negated: boolean): Node {
  const members = negated ? complement(ranges) : ranges;
  let choices: Range[] = intersect(members, ALNUM);
  if (choices.length === 0) choices = intersect(members, [PRINTABLE]);
  // Outside ASCII, never a lone surrogate (it would not survive JSON encoding).
  if (choices.length === 0)
    choices = intersect(members, [
      [0xa0, 0xd7ff],
      [0xe000, 0xfffd],
      [0x10000, 0x10ffff],
    ]);
  if (choices.length === 0) throw new Error('an empty character class');
  return { kind: 'set', choices, size: choices.reduce((sum, [low, high]) => sum + high - low + 1, 0) };
}

const CLASS_ESCAPES: Readonly<Record<string, readonly [readonly Range[], boolean]>> = {
  d: [DIGIT, false],
  D: [DIGIT, true],
  w: [WORD, false],
  W: [WORD, true],
  s: [SPACE, false],
  S: [SPACE, true],
};

const CONTROL: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', '0': '\0' };

/** A recursive-descent reader of the ECMA-262 pattern grammar (§22.2.1), as much as values need. */
class Parser {
  private at = 0;
  private groups = 0;
  constructor(private readonly source: string) {}

  parse(): Node {
    const tree = this.alternatives();
    if (this.at < this.source.length) throw new Error(`unexpected ${this.source[this.at] ?? ''}`);
    return tree;
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.at + offset];
  }

  private alternatives(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] ?? EMPTY) : { kind: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      const bounds = this.quantifier();
      items.push(bounds === undefined ? atom : { kind: 'repeat', node: atom, min: bounds[0], max: bounds[1] });
    }
    return items.length === 1 ? (items[0] ?? EMPTY) : { kind: 'seq', items };
  }

  private atom(): Node {
    const c = this.source[this.at++] ?? '';
    if (c === '^' || c === '$') return EMPTY;
    if (c === '.') return setOf(ALNUM, false);
    if (c === '[') return this.charClass();
    if (c === '(') return this.group();
    if (c === '\\') return this.escape();
    if ('*+?'.includes(c) || (c === '{' && this.quantifierAhead(this.at - 1))) throw new Error(`nothing to repeat at ${c}`);
    return { kind: 'text', text: c };
  }

  private group(): Node {
    let key: string | undefined;
    let lookaround = false;
    if (this.peek() === '?') {
      const named = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.source.slice(this.at));
      if (this.peek(1) === ':') this.at += 2;
      else if (named) {
        key = named[1];
        this.groups++;
        this.at += named[0].length;
      } else if (/^\?<?[=!]/.test(this.source.slice(this.at))) {
        lookaround = true;
        this.at += this.peek(1) === '<' ? 3 : 2;
      } else throw new Error('an unsupported group');
    } else key = String(++this.groups);
    const inner = this.alternatives();
    if (this.source[this.at++] !== ')') throw new Error('an unclosed group');
    if (lookaround) return EMPTY;
    return { kind: 'group', node: inner, key };
  }

  private escape(): Node {
    const c = this.source[this.at] ?? '';
    const shorthand = CLASS_ESCAPES[c];
    if (shorthand) {
      this.at++;
      return setOf(...shorthand);
    }
    if (c === 'b' || c === 'B') {
      this.at++;
      return EMPTY;
    }
    const numbered = /^[1-9]\d*/.exec(this.source.slice(this.at));
    if (numbered) {
      this.at += numbered[0].length;
      return { kind: 'backref', key: numbered[0] };
    }
    const named = /^k<([^>]+)>/.exec(this.source.slice(this.at));
    if (named?.[1] !== undefined) {
      this.at += named[0].length;
      return { kind: 'backref', key: named[1] };
    }
    const property = this.property();
    if (property) return property;
    return { kind: 'text', text: this.escapedChar() };
  }

  /** `\p{L}`, `\p{N}` and their kin, approximated by their ASCII members (unicode mode only). */
  private property(): Node | undefined {
    const m = /^([pP])\{([^}]+)\}/.exec(this.source.slice(this.at));
    if (!m) return undefined;
    this.at += m[0].length;
    const name = m[2] ?? '';
    const ranges = /^(L|Letter|Lu|Ll|Alphabetic|Alpha)$/.test(name)
      ? intersect(ALNUM, [[0x41, 0x7a]])
      : /^(N|Nd|Number)$/.test(name)
        ? DIGIT
        : undefined;
    if (ranges === undefined) throw new Error(`an unknown property ${name}`);
    return setOf(ranges, m[1] === 'P');
  }

  /** One character after a backslash: a control escape, `\xHH`, `\uHHHH`, `\u{H…}`, `\cX`, else itself. */
  private escapedChar(): string {
    const rest = this.source.slice(this.at);
    const hex = /^x([0-9A-Fa-f]{2})|^u([0-9A-Fa-f]{4})|^u\{([0-9A-Fa-f]+)\}/.exec(rest);
    if (hex) {
      this.at += hex[0].length;
      return String.fromCodePoint(parseInt(hex[1] ?? hex[2] ?? hex[3] ?? '0', 16));
    }
    const control = /^c([A-Za-z])/.exec(rest);
    if (control?.[1] !== undefined) {
      this.at += 2;
      return String.fromCharCode(control[1].charCodeAt(0) % 32);
    }
    const c = this.source[this.at++];
    if (c === undefined) throw new Error('a trailing backslash');
    return CONTROL[c] ?? c;
  }

  private charClass(): Node {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const ranges: Range[] = [];
    // In ECMA-262 a `]` right after `[` closes the class (`[]` matches nothing, `[^]` anything).
    while (this.peek() !== ']') {
      if (this.at >= this.source.length) throw new Error('an unclosed class');
      const low = this.classAtom();
      if (typeof low !== 'number') {
        ranges.push(...low);
        continue;
      }
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== 'number') {
          // `[\w-.]`: outside unicode mode the dash is a literal next to a class escape.
          ranges.push([low, low], [0x2d, 0x2d], ...high);
          continue;
        }
        if (high < low) throw new Error('a range out of order');
        ranges.push([low, high]);
      } else ranges.push([low, low]);
    }
    this.at++;
    return setOf(ranges, negated);
  }

  /** A code point, or the ranges of a class escape (`\d`, `\W`). */
  private classAtom(): number | readonly Range[] {
    const c = this.source[this.at++] ?? '';
    if (c !== '\\') return c.codePointAt(0) ?? 0;
    const e = this.peek() ?? '';
    const shorthand = CLASS_ESCAPES[e];
    if (shorthand) {
      this.at++;
      return shorthand[1] ? complement(shorthand[0]) : shorthand[0];
    }
    if (e === 'b') {
      this.at++;
      return 0x08;
    }
    if (e === '-') {
      this.at++;
      return 0x2d;
    }
    return this.escapedChar().codePointAt(0) ?? 0;
  }

  private quantifierAhead(at: number): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.source.slice(at));
  }

  private quantifier(): readonly [number, number] | undefined {
    const c = this.peek();
    let bounds: readonly [number, number] | undefined;
    if (c === '*') bounds = [0, Infinity];
    else if (c === '+') bounds = [1, Infinity];
    else if (c === '?') bounds = [0, 1];
    if (bounds) this.at++;
    else if (c === '{' && this.quantifierAhead(this.at)) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!m) return undefined;
      const min = Number(m[1]);
      bounds = [min, m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity];
      this.at += m[0].length;
    } else return undefined;
    if (this.peek() === '?') this.at++; // lazy: the same strings
    return bounds;
  }
}
