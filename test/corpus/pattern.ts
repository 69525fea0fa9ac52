/**
 * A string matching a regular expression, for the common shapes real documents use (anchors,
 * literals, classes, groups with alternatives, quantifiers). Each quantified atom is repeated as
 * few times as allowed, more when `minLength` asks for it. Returns undefined when the pattern is
 * beyond it; the result is always checked against the pattern itself.
 */
export function fromPattern(pattern: string, minLength = 0): string | undefined {
  for (const extra of [0, 1, 2, 4, 8, 16, 32]) {
    let built: string | undefined;
    try {
      built = new Builder(pattern, extra).alternatives();
    } catch {
      return undefined;
    }
    if (built === undefined) return undefined;
    if (!matches(pattern, built)) return undefined;
    if (built.length >= minLength) return built;
  }
  return undefined;
}

function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    try {
      return new RegExp(pattern).test(value);
    } catch {
      return false;
    }
  }
}

const CLASS_SAMPLE: Readonly<Record<string, string>> = { d: '1', w: 'a', s: ' ', D: 'a', W: '-', S: 'a' };

class Builder {
  private at = 0;
  constructor(
    private readonly source: string,
    private readonly extra: number,
  ) {}

  alternatives(): string | undefined {
    const first = this.sequence();
    while (this.source[this.at] === '|') {
      this.at++;
      this.sequence();
    }
    return first;
  }

  private sequence(): string | undefined {
    let out = '';
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      if (atom === undefined) return undefined;
      const [min, max] = this.quantifier();
      out += atom.repeat(Math.min(min + (max > min ? this.extra : 0), max));
    }
    return out;
  }

  private atom(): string | undefined {
    const c = this.source[this.at++];
    if (c === '^' || c === '$') return '';
    if (c === '.') return 'a';
    if (c === '\\') return this.escape();
    if (c === '[') return this.charClass();
    if (c === '(') {
      if (this.source[this.at] === '?') {
        if (this.source[this.at + 1] !== ':') return undefined; // lookarounds and named groups: not handled
        this.at += 2;
      }
      const inner = this.alternatives();
      if (this.source[this.at++] !== ')') return undefined;
      return inner;
    }
    return c;
  }

  private escape(): string | undefined {
    const c = this.source[this.at++];
    if (c === undefined) return undefined;
    return CLASS_SAMPLE[c] ?? (/[bB]/.test(c) ? '' : c);
  }

  private charClass(): string | undefined {
    const negated = this.source[this.at] === '^';
    if (negated) this.at++;
    let first: string | undefined;
    const members: string[] = [];
    while (this.at < this.source.length && this.source[this.at] !== ']') {
      let c = this.source[this.at++];
      if (c === '\\') c = this.escape() ?? '';
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']') this.at += 2; // a range: its start stands for it
      first ??= c;
      members.push(c ?? '');
    }
    this.at++;
    if (!negated) return first;
    return ['a', 'x', '1', 'Z', '_'].find((candidate) => !members.includes(candidate));
  }

  private quantifier(): [number, number] {
    const c = this.source[this.at];
    let range: [number, number] = [1, 1];
    if (c === '*') range = [0, Infinity];
    else if (c === '+') range = [1, Infinity];
    else if (c === '?') range = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (m) {
        const min = Number(m[1]);
        range = [min, m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity];
        this.at += m[0].length - 1;
      } else return range;
    } else return range;
    this.at++;
    if (this.source[this.at] === '?') this.at++; // lazy
    return range;
  }
}
