import { join } from 'node:path';
import { load } from 'js-yaml';
import { entryName, packageVersion, readEntry, writeEntry } from './cache-files.js';

/** What a cache directory keeps at most: past either, the entries written first are removed. */
export const CACHE_ENTRIES = 64;
export const CACHE_BYTES = 128 * 1024 * 1024;

/**
 * Parses YAML text (a document, a fixtures file), through a cache of parsed texts in `cacheDir`
 * when there is one: the entry named by a digest of the text (and of the parser's version) holds
 * the parsed value as JSON. js-yaml spends most of a small document's start-up parse running cold,
 * uncompiled code (about 25 ms on the Pet Store's 20 kB, against under 1 ms for JSON.parse of the
 * entry); a large document's parse takes seconds. The cache is an optimisation and nothing more:
 * an entry that cannot be read or written, or a directory that cannot be made, is a parse, and a
 * value JSON would not give back exactly (a NaN, an infinity, -0, a node two aliases share) is
 * never cached. A text that does not parse throws js-yaml's error, with its mark, as without a cache.
 */
export function parseYaml(text: string, cacheDir: string | null): unknown {
  // What besides the text decides a parse: js-yaml's version (a new version may read a text
  // differently). When it cannot be read, nothing is cached.
  const parser = cacheDir === null ? undefined : packageVersion('js-yaml');
  if (cacheDir === null || parser === undefined) return load(text);
  const name = entryName([`understudy parsed YAML 1, js-yaml ${parser}`, text], '.json');
  const entry = readEntry(join(cacheDir, name));
  if (entry !== undefined) {
    try {
      return JSON.parse(entry);
    } catch {
      // An entry that does not parse: the text is parsed, and the entry written again.
    }
  }
  const value = load(text);
  if (jsonFaithful(value, new Set()))
    writeEntry(cacheDir, name, JSON.stringify(value), { suffix: '.json', entries: CACHE_ENTRIES, bytes: CACHE_BYTES });
  return value;
}

/**
 * Whether JSON gives `value` back exactly: plain objects and arrays, strings, booleans, null, and
 * finite numbers other than -0, each object reached once (YAML aliases share a node; JSON would
 * copy it).
 */
function jsonFaithful(value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.every((item) => jsonFaithful(item, seen));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((item) => jsonFaithful(item, seen));
}
