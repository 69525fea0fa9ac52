import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { debuglog } from 'node:util';

const debug = debuglog('understudy');

/** What one kind of entry in a cache directory may take at most: past either, the entries written first go. */
export interface CacheBounds {
  /** The entries' file names end so (`.json`): only they are counted. */
  readonly suffix: string;
  readonly entries: number;
  readonly bytes: number;
}

/** An entry's file name: the SHA-256 of its parts, each ended by a newline. */
export function entryName(parts: readonly string[], suffix: string): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\n');
  return `${hash.digest('hex')}${suffix}`;
}

/** An entry's text, or undefined when there is none (or it cannot be read). */
export function readEntry(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Writes an entry whole or not at all (a temporary file renamed, so two processes writing the same
 * entry at once leave one good one), then trims its kind to `bounds` (unless `trim` is false: a
 * batch trims once, after its last). A cache is an optimisation: a directory that cannot be made
 * or written is skipped, never an error.
 */
export function writeEntry(dir: string, name: string, text: string, bounds: CacheBounds, trim = true): void {
  try {
    makeDirectory(dir);
    const file = join(dir, name);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, file);
    if (trim) trimEntries(dir, bounds);
  } catch (error) {
    debug(`cache ${dir}: ${(error as Error).message}`);
  }
}

/** Removes the entries of a kind written first, past `bounds`; the newest is always kept. */
export function trimEntries(dir: string, bounds: CacheBounds): void {
  try {
    const entries = readdirSync(dir)
      .filter((entry) => entry.endsWith(bounds.suffix))
      .map((entry) => {
        const stat = statSync(join(dir, entry));
        return { path: join(dir, entry), at: stat.mtimeMs, bytes: stat.size };
      })
      .sort((a, b) => b.at - a.at);
    let bytes = 0;
    entries.forEach((entry, i) => {
      bytes += entry.bytes;
      if (i > 0 && (i >= bounds.entries || bytes > bounds.bytes)) rmSync(entry.path, { force: true });
    });
  } catch (error) {
    debug(`cache ${dir}: ${(error as Error).message}`);
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

/** Digests already made, by document. */
const digests = new WeakMap<object, string>();

/** The SHA-256 of a document's JSON text (what names its cache entries), made once per document object. */
export function documentDigest(document: unknown): string {
  const known = typeof document === 'object' && document !== null ? digests.get(document) : undefined;
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(JSON.stringify(document)).digest('hex');
  if (typeof document === 'object' && document !== null) digests.set(document, digest);
  return digest;
}

/**
 * Set in the bundle the bin runs (scripts/bundle.mjs): the SHA-256 of the bundle's text and faker's
 * script, written over a placeholder of the same length once both are built.
 */
declare const UNDERSTUDY_BUILD: string | undefined;

/**
 * The digest of the code that runs, for cache entries whose contents our own code makes (a kept
 * seed): undefined outside the bundle (the sources, a library's import), where there is none and such
 * entries are not kept.
 */
export const buildIdentity = (): string | undefined => (typeof UNDERSTUDY_BUILD === 'string' ? UNDERSTUDY_BUILD : undefined);

/** Versions already read, by package (a process asks once per compiler: three per document). */
const versions = new Map<string, string | undefined>();

/**
 * Set in the bundle the bin runs (scripts/bundle.mjs), as JSON: the versions of the packages whose
 * code the bundle holds. They are the code that runs there, whatever node_modules holds now, and a
 * start need not look for their package.json (resolving a package costs a start milliseconds).
 */
declare const UNDERSTUDY_BUNDLED_VERSIONS: string | undefined;
const bundled: Readonly<Record<string, string>> =
  typeof UNDERSTUDY_BUNDLED_VERSIONS === 'string' ? (JSON.parse(UNDERSTUDY_BUNDLED_VERSIONS) as Record<string, string>) : {};

/**
 * The version of an installed package (`js-yaml`), from its package.json, found from where the
 * package's main module resolves; undefined when it cannot be read. What an entry was made with
 * goes into its name, so that another version never reads it. Read once per process.
 */
export function packageVersion(name: string): string | undefined {
  if (Object.hasOwn(bundled, name)) return bundled[name];
  if (!versions.has(name)) versions.set(name, readVersion(name));
  return versions.get(name);
}

function readVersion(name: string): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    for (let at = dirname(require.resolve(name)); dirname(at) !== at; at = dirname(at)) {
      const manifest = readEntry(join(at, 'package.json'));
      if (manifest === undefined) continue;
      const parsed = JSON.parse(manifest) as { name?: unknown; version?: unknown };
      if (parsed.name === name) return String(parsed.version);
    }
  } catch (error) {
    debug(`cache: the version of ${name} cannot be read (${(error as Error).message})`);
  }
  return undefined;
}
