import { join } from 'node:path';
import { entryName, readEntry, writeEntry, type CacheBounds } from '../openapi/cache-files.js';
import type { Row } from '../vocabulary/record.js';
import type { FixtureDefinitions } from './fixtures.js';

/** Kept seeds in a cache directory: a few documents' worth (an entry holds every collection seeded). */
export const KEPT_SEED_BOUNDS: CacheBounds = { suffix: '.seed.json', entries: 16, bytes: 64 * 1024 * 1024 };

/** What a kept seed is made from besides the records: the same parts, the same records. */
export interface SeedIdentity {
  /** The code that made the records (the build's digest: seeding's code and faker's). */
  readonly build: string;
  /** The digest of the document's JSON text. */
  readonly document: string;
  readonly seed: number;
  readonly fixtures: FixtureDefinitions;
}

/**
 * The records an earlier start seeded, kept in the cache directory, so that a start need not make
 * them again (seeding the Pet Store's fixtures was a tenth of a start, and faker, which only seeding
 * and generated answers run, another). Seeding is a function of the document, the seed, the
 * fixtures and the code (seeding/seeder.ts): an entry's name digests all four, so it is read only
 * where seeding would make the same records. Records are kept as JSON, so only records that are
 * JSON already are kept (every document the tests hold seeds only such).
 *
 * An entry is read once, when the first collection is asked for, and written by `save` when
 * collections were seeded since (the sandbox saves after its start and when it stops). A cache is
 * an optimisation: an entry that cannot be read or parsed is seeded again, one that cannot be
 * written is not kept.
 */
export class KeptSeed {
  private readonly name: string;
  private kept: Map<string, readonly Row[]> | undefined;
  private fresh = false;

  constructor(
    private readonly dir: string,
    identity: SeedIdentity,
  ) {
    this.name = entryName(
      ['understudy kept seed 1', identity.build, identity.document, String(identity.seed), fixturesText(identity.fixtures)],
      KEPT_SEED_BOUNDS.suffix,
    );
  }

  /** A collection's records as kept, or undefined. */
  rows(collection: string): readonly Row[] | undefined {
    return this.entry().get(collection);
  }

  /** Records just seeded, written by the next `save`; records that are not JSON (they read back otherwise) are not kept. */
  keep(collection: string, rows: readonly Row[]): void {
    if (!rows.every(isJson)) return;
    this.entry().set(collection, rows);
    this.fresh = true;
  }

  /** Writes the entry if collections were seeded since it was read or written. */
  save(): void {
    if (!this.fresh || this.kept === undefined) return;
    this.fresh = false;
    writeEntry(this.dir, this.name, JSON.stringify([...this.kept]), KEPT_SEED_BOUNDS);
  }

  private entry(): Map<string, readonly Row[]> {
    this.kept ??= parseEntry(readEntry(join(this.dir, this.name)));
    return this.kept;
  }
}

/** An entry's collections; none when it is missing or not what `save` writes. */
function parseEntry(text: string | undefined): Map<string, readonly Row[]> {
  const kept = new Map<string, readonly Row[]>();
  if (text === undefined) return kept;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return kept;
    for (const pair of parsed as unknown[]) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !Array.isArray(pair[1])) return new Map();
      kept.set(pair[0], pair[1] as Row[]);
    }
  } catch {
    return new Map();
  }
  return kept;
}

/** Whether `value` reads back from JSON as itself: no undefined field, no -0, NaN or Infinity, no Date or other class. */
function isJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        // for-of visits a hole as undefined, which JSON would write as null.
        for (const item of value as unknown[]) if (!isJson(item)) return false;
        return true;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      for (const field of Object.keys(value)) if (!isJson((value as Record<string, unknown>)[field])) return false;
      return true;
    }
    default:
      return false;
  }
}

/** The fixtures as text, every part in a fixed order. */
function fixturesText(fixtures: FixtureDefinitions): string {
  return JSON.stringify([fixtures.referenceDate.toISOString(), fixtures.defaultCount, [...fixtures.collections]]);
}
