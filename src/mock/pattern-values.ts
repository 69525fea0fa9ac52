import type { Faker } from '@faker-js/faker';
import { parsePattern, type Node } from './pattern-tree.js';

/**
 * Strings that match a schema's `pattern`, an ECMA-262 regular expression (JSON Schema 2020-12
 * validation §6.3.3). faker's `helpers.fromRegExp` knows neither `\d` nor groups, alternatives or
 * back-references, which real documents use (`^se(-[a-z0-9]+)+$`, `^\d{4}-\d{2}-\d{2}$`), so the
 * pattern is parsed here once into a small tree, cached by its text, and each value is drawn from
 * the tree with the seeded faker. Every value is tested against the pattern itself before it is
 * returned; lookarounds are read as matching nothing and left to that test.
 */

interface Compiled {
  readonly tree: Node | undefined;
  /** The pattern as the sandbox's validator compiles it (unicode mode, else plain), and plain too. */
  readonly tests: readonly RegExp[];
}

const cache = new Map<string, Compiled>();

/** A string's length in code points, as JSON Schema counts it (2020-12 validation §6.3.1). */
export const codePoints = (text: string): number => Array.from(text).length;

/** Whether `value` matches `pattern`; a pattern no mode compiles constrains nothing, as in the validator. */
export function matchesPattern(pattern: string, value: string): boolean {
  return compiled(pattern).tests.every((test) => test.test(value));
}

/**
 * A string matching `pattern` whose length (in code points, as JSON Schema counts) lies within the
 * bounds, or undefined when none was found.
 */
export function stringMatching(pattern: string, faker: Faker, minLength = 0, maxLength = Infinity): string | undefined {
  const { tree, tests } = compiled(pattern);
  if (tree === undefined || tests.length === 0) return undefined;
  const accepts = (text: string): boolean => tests.every((test) => test.test(text));
  // Open quantifiers repeat `floor` to `floor + spread` times past their minimum: more when the
  // value came out too short, fewer when too long, until the length is within the bounds.
  const pace = { floor: 0, spread: 3 };
  for (let attempt = 0; attempt < 16; attempt++) {
    let text = draw(tree, faker, pace, new Map());
    let length = codePoints(text);
    // A pattern not anchored at its end matches with anything after it.
    if (length < minLength && !pattern.endsWith('$') && accepts(text)) {
      text += 'x'.repeat(minLength - length);
      length = minLength;
    }
    if (length >= minLength && length <= maxLength && accepts(text)) return text;
    if (length < minLength) pace.floor += minLength - length;
    else if (length > maxLength) [pace.floor, pace.spread] = [Math.max(0, pace.floor - Math.ceil((length - maxLength) / 2)), 0];
  }
  return undefined;
}

function compiled(pattern: string): Compiled {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    const tests: RegExp[] = [];
    for (const flags of ['u', '']) {
      try {
        tests.push(new RegExp(pattern, flags));
      } catch {
        // Not valid in this mode: the validator falls back to the other (schema-compiler.ts).
      }
    }
    let tree: Node | undefined;
    try {
      tree = parsePattern(pattern);
    } catch {
      tree = undefined;
    }
    cache.set(pattern, (entry = { tree, tests }));
  }
  return entry;
}

interface Pace {
  readonly floor: number;
  readonly spread: number;
}

function draw(node: Node, faker: Faker, pace: Pace, groups: Map<string, string>): string {
  switch (node.kind) {
    case 'text':
      return node.text;
    case 'set':
      return pick(node, faker);
    case 'seq':
      return node.items.map((item) => draw(item, faker, pace, groups)).join('');
    case 'alt':
      return draw(faker.helpers.arrayElement([...node.options]), faker, pace, groups);
    case 'repeat': {
      const low = Math.min(node.max, node.min + pace.floor);
      const count = faker.number.int({ min: low, max: Math.min(node.max, low + pace.spread) });
      let out = '';
      for (let i = 0; i < count; i++) out += draw(node.node, faker, pace, groups);
      return out;
    }
    case 'group': {
      const text = draw(node.node, faker, pace, groups);
      if (node.key !== undefined) groups.set(node.key, text);
      return text;
    }
    case 'backref':
      return groups.get(node.key) ?? '';
  }
}

function pick(set: Extract<Node, { kind: 'set' }>, faker: Faker): string {
  let index = faker.number.int({ min: 0, max: set.size - 1 });
  for (const [low, high] of set.choices) {
    if (index <= high - low) return String.fromCodePoint(low + index);
    index -= high - low + 1;
  }
  return '';
}
