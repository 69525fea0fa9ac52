import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CACHE_BYTES, CACHE_ENTRIES, parseYaml } from '../../src/openapi/parse-yaml.js';

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-parse-cache-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'cache');
}

const entries = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

const TEXT = 'openapi: 3.1.0\ninfo: { title: Shop, version: "1" }\npaths:\n  /pets: {}\n';

describe('parseYaml', () => {
  it('parses as js-yaml does, without a cache directory', () => {
    expect(parseYaml(TEXT, null)).toEqual(load(TEXT));
  });

  it('writes one entry per text, and reads it back instead of parsing', () => {
    const dir = cacheDir();
    expect(parseYaml(TEXT, dir)).toEqual(load(TEXT));
    const [entry] = entries(dir);
    expect(entries(dir)).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.json$/)]);
    expect(JSON.parse(readFileSync(join(dir, entry as string), 'utf8'))).toEqual(load(TEXT));
    // What the entry says is what a second parse of the same text gives: the entry was read.
    writeFileSync(join(dir, entry as string), '{"from":"the entry"}');
    expect(parseYaml(TEXT, dir)).toEqual({ from: 'the entry' });
    expect(parseYaml(`${TEXT}# changed\n`, dir)).toEqual(load(TEXT));
    expect(entries(dir)).toHaveLength(2);
  });

  it('gives back a "__proto__" key from its entry as the parser gave it: a member, not a prototype', () => {
    const dir = cacheDir();
    const text = 'properties:\n  "__proto__": { type: string }\n  "200": { type: integer }\n  name: { type: string }\n';
    const parsed = parseYaml(text, dir) as { properties: Record<string, unknown> };
    const read = parseYaml(text, dir) as { properties: Record<string, unknown> };
    expect(entries(dir)).toHaveLength(1);
    expect(Object.hasOwn(read.properties, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(read.properties)).toBe(Object.prototype);
    expect(Object.keys(read.properties)).toEqual(Object.keys(parsed.properties));
    expect(read).toEqual(parsed);
  });

  it('parses again, and rewrites, an entry that is not JSON', () => {
    const dir = cacheDir();
    parseYaml(TEXT, dir);
    const [entry] = entries(dir);
    writeFileSync(join(dir, entry as string), '{"cut sho');
    expect(parseYaml(TEXT, dir)).toEqual(load(TEXT));
    expect(JSON.parse(readFileSync(join(dir, entry as string), 'utf8'))).toEqual(load(TEXT));
  });

  it.each([
    ['not a number', 'maximum: .nan\n'],
    ['an infinity', 'maximum: -.inf\n'],
    ['minus zero', 'minimum: -0.0\n'],
    ['a node two aliases share', 'a: &shared { type: string }\nb: *shared\n'],
  ])('keeps no entry for a value JSON would not give back exactly: %s', (_, text) => {
    const dir = cacheDir();
    expect(parseYaml(text, dir)).toEqual(load(text));
    expect(entries(dir)).toEqual([]);
  });

  it('throws js-yaml error, mark included, and keeps nothing for a text that does not parse', () => {
    const dir = cacheDir();
    expect(() => parseYaml('a: [1, 2\n', dir)).toThrow(/\(\d+:\d+\)/);
    expect(entries(dir)).toEqual([]);
  });

  it('parses, without a cache, where the directory cannot be made', () => {
    const dir = cacheDir();
    parseYaml('x: 1\n', dir);
    const [entry] = entries(dir);
    // A directory under a file cannot be made.
    expect(parseYaml(TEXT, join(dir, entry as string, 'below'))).toEqual(load(TEXT));
  });

  // Node 20's recursive mkdirSync never returns there (ENOENT under a parent that exists).
  it.runIf(existsSync('/proc/self'))('parses, without a cache, where the kernel refuses the directory', () => {
    expect(parseYaml(TEXT, '/proc/understudy/cache')).toEqual(load(TEXT));
  });

  it(`keeps the ${CACHE_ENTRIES} entries written last`, () => {
    const dir = cacheDir();
    for (let i = 0; i < CACHE_ENTRIES; i++) parseYaml(`n: ${i}\n`, dir);
    const first = entries(dir);
    expect(first).toHaveLength(CACHE_ENTRIES);
    // Written a second apart, in order: n: 0 is the oldest.
    const byValue = new Map(first.map((name) => [(JSON.parse(readFileSync(join(dir, name), 'utf8')) as { n: number }).n, name]));
    for (const [n, name] of byValue) utimesSync(join(dir, name), 1_000_000 + n, 1_000_000 + n);
    parseYaml('n: new\n', dir);
    const after = entries(dir);
    expect(after).toHaveLength(CACHE_ENTRIES);
    expect(after).not.toContain(byValue.get(0));
    expect(after).toContain(byValue.get(1));
    expect(after.filter((name) => !name.endsWith('.json'))).toEqual([]);
  });

  it(`keeps no more than ${CACHE_BYTES / 2 ** 20} MB, the entry just written always`, () => {
    const dir = cacheDir();
    parseYaml('n: old\n', dir);
    const [old] = entries(dir);
    // The older entry made as large as the bound (a sparse file): with the new one, it no longer fits.
    truncateSync(join(dir, old as string), CACHE_BYTES);
    utimesSync(join(dir, old as string), 1_000_000, 1_000_000);
    parseYaml('n: new\n', dir);
    expect(entries(dir)).toHaveLength(1);
    expect(entries(dir)).not.toContain(old);
  });
});
