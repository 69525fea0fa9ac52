import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { debuglog } from 'node:util';
import { load } from 'js-yaml';

const debug = debuglog('understudy');

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
  const salt = cacheDir === null ? undefined : parserSalt();
  if (cacheDir === null || salt === undefined) return load(text);
  const file = join(cacheDir, `${createHash('sha256').update(salt).update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // No entry (or one that does not parse): the text is parsed, and the entry written.
  }
  const value = load(text);
  if (jsonFaithful(value, new Set())) keep(cacheDir, file, JSON.stringify(value));
  return value;
}

let identity: string | null | undefined;

/**
 * What besides the text decides a parse: js-yaml's version, read from its package.json (a new
 * version may read a text differently). Undefined when it cannot be read: nothing is then cached.
 */
function parserSalt(): string | undefined {
  if (identity === undefined) {
    try {
      const entry = createRequire(import.meta.url).resolve('js-yaml');
      const manifest = JSON.parse(readFileSync(join(dirname(entry), '../package.json'), 'utf8')) as { version?: unknown };
      identity = `understudy parsed YAML 1, js-yaml ${String(manifest.version)}\n`;
    } catch (error) {
      debug(`YAML parse cache off: js-yaml's version cannot be read (${(error as Error).message})`);
      identity = null;
    }
  }
  return identity ?? undefined;
}

/** Writes an entry whole or not at all (a temporary file renamed), then trims the directory to CACHE_ENTRIES and CACHE_BYTES. */
function keep(cacheDir: string, file: string, json: string): void {
  try {
    makeDirectory(cacheDir);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, json);
    renameSync(partial, file);
    const entries = readdirSync(cacheDir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => {
        const stat = statSync(join(cacheDir, name));
        return { path: join(cacheDir, name), at: stat.mtimeMs, bytes: stat.size };
      })
      .sort((a, b) => b.at - a.at);
    // The newest first: the one just written is always kept.
    let bytes = 0;
    entries.forEach((entry, i) => {
      bytes += entry.bytes;
      if (i > 0 && (i >= CACHE_ENTRIES || bytes > CACHE_BYTES)) rmSync(entry.path, { force: true });
    });
  } catch (error) {
    debug(`YAML parse cache: ${(error as Error).message}`);
  }
}

/**
 * Makes `dir` and any missing parent, one level at a time: Node 20's recursive mkdirSync never
 * returns for a directory the kernel refuses with ENOENT under a parent that exists (`/proc/x`).
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  for (const level of missing.reverse()) mkdirSync(level);
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
