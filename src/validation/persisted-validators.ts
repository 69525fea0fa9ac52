import { createRequire } from 'node:module';
import { join } from 'node:path';
import { debuglog } from 'node:util';
import type { ValidateFunction } from 'ajv';
import { documentDigest, entryName, packageVersion, readEntry, trimEntries, writeEntry } from '../openapi/cache-files.js';

const debug = debuglog('understudy');

/** What the validators directory keeps at most: past either, the entries written first go. */
export const VALIDATOR_BOUNDS = { suffix: '.js', entries: 1024, bytes: 64 * 1024 * 1024 } as const;

/** Where the generated code finds what it needs besides Ajv's runtime: names the compiler gives Ajv (schema-compiler.ts). */
export const FORMATS_MODULE = 'understudy:formats';
export const PATTERN_ENGINE_MODULE = 'understudy:pattern-engine';

/** A compiled validator kept between starts as code, by pointer, for one document. */
export interface PersistedValidators {
  /** The validator kept for `pointer`, or undefined (none, or one that does not load). */
  load(pointer: string): ValidateFunction | undefined;
  /**
   * Keeps what `code` gives (Ajv's standalone output for `pointer`'s validator; undefined: nothing),
   * later: see `later`.
   */
  keep(pointer: string, code: () => string | undefined): void;
}

/**
 * Entries waiting to be written. Writing them is work for the next start, not this one: it waits
 * until a second after the last was queued (a start queues its validators within a few ms; each
 * write is a file made and renamed, slow on some disks), or for the process's exit, whichever is
 * first; the timer never holds the process open.
 */
const waiting: { readonly dir: string; readonly name: string; readonly code: () => string | undefined }[] = [];
let timer: NodeJS.Timeout | undefined;
const WRITE_AFTER_MS = 1000;

function later(entry: (typeof waiting)[number]): void {
  if (waiting.length === 0) process.once('exit', writeWaiting);
  waiting.push(entry);
  clearTimeout(timer);
  timer = setTimeout(writeWaiting, WRITE_AFTER_MS).unref();
}

/** Writes every waiting entry, then trims each directory written once. */
export function writeWaiting(): void {
  clearTimeout(timer);
  process.off('exit', writeWaiting);
  const written = new Set<string>();
  for (const { dir, name, code } of waiting.splice(0)) {
    let text;
    try {
      text = code();
    } catch (error) {
      debug(`validator cache: ${(error as Error).message}`);
    }
    if (text === undefined) continue;
    writeEntry(dir, name, text, VALIDATOR_BOUNDS, false);
    written.add(dir);
  }
  for (const dir of written) trimEntries(dir, VALIDATOR_BOUNDS);
}

/**
 * Validators kept in `dir` as Ajv's standalone code, for the document `document` compiled under
 * `compiler` (what decides the code besides the document and the pointer: the dialect, the
 * options). An entry's name digests the document's JSON text, the pointer, the compiler and the
 * versions of Ajv and ajv-formats, so that none of them can change without the entry changing too.
 * `modules`: what the code's `require`s of FORMATS_MODULE and PATTERN_ENGINE_MODULE give; every
 * other `require` (Ajv's runtime helpers) is Node's. Undefined when Ajv's version cannot be read.
 */
export function persistedValidators(
  dir: string,
  document: unknown,
  compiler: string,
  modules: Readonly<Record<string, unknown>>,
): PersistedValidators | undefined {
  const ajv = packageVersion('ajv');
  const formats = packageVersion('ajv-formats');
  if (ajv === undefined || formats === undefined) return undefined;
  const identity = documentDigest(document);
  const nameOf = (pointer: string): string =>
    entryName([`understudy validators 1, ajv ${ajv}, ajv-formats ${formats}`, compiler, identity, pointer], VALIDATOR_BOUNDS.suffix);
  const nodeRequire = createRequire(import.meta.url);
  const requireFor = (id: string): unknown => (Object.hasOwn(modules, id) ? modules[id] : nodeRequire(id));
  return {
    load(pointer) {
      const code = readEntry(join(dir, nameOf(pointer)));
      if (code === undefined) return undefined;
      try {
        const module: { exports: unknown } = { exports: {} };
        // The entry is code this sandbox wrote into its own cache directory (Ajv's standalone output).
        // eslint-disable-next-line @typescript-eslint/no-implied-eval
        const run = new Function('module', 'exports', 'require', code) as (
          module: { exports: unknown },
          exports: unknown,
          require: (id: string) => unknown,
        ) => void;
        run(module, module.exports, requireFor);
        const validate = module.exports;
        return typeof validate === 'function' ? (validate as ValidateFunction) : undefined;
      } catch (error) {
        debug(`validator cache: ${pointer}: ${(error as Error).message}`);
        return undefined;
      }
    },
    keep(pointer, code) {
      later({ dir, name: nameOf(pointer), code });
    },
  };
}
