import type { Seeder } from '../seeding/seeder.js';
import { keyOf, type Row } from '../vocabulary/record.js';
import { Collection } from './collection.js';
import type { SeedingProgress } from './memory-store.js';

/**
 * The seed as the Redis record store holds it: in this replica's memory, never in Redis. The Seeder
 * makes the same records from the same document and seed on every replica, so a collection no
 * workspace has written reads the same everywhere without a round trip, and Redis holds only what
 * was written. The rules are the memory store's: a collection is seeded on first use and then kept,
 * a reload (`use`) seeds only collections first used after it, and an unknown name is an error.
 */
export class SharedSeed {
  private readonly shared = new Map<string, Collection>();
  /** Each collection's adoption payload (largest row number, then key/number/JSON triples), made once: the rows never change. */
  private readonly payloads = new Map<string, readonly string[]>();

  constructor(private seeder: Seeder) {}

  /** Seeds from a new document from now on (a reload); collections seeded already keep their records. */
  use(seeder: Seeder): void {
    this.seeder = seeder;
  }

  /** Every collection the current document has. */
  get names(): readonly string[] {
    return this.seeder.names;
  }

  /** Whether the collection has a seed (seeded already, or the document describes it). */
  has(name: string): boolean {
    return this.shared.has(name) || this.seeder.has(name);
  }

  /** The read-only seeded collection, made on first use. */
  collection(name: string): Collection {
    const found = this.shared.get(name);
    if (found) return found;
    if (!this.seeder.has(name)) throw new Error(`unknown collection ${name}`);
    const collection = new Collection(name, [...this.seeder.rowsOf(name)]);
    this.shared.set(name, collection);
    return collection;
  }

  /** The collections seeded so far, for `stored`. */
  seeded(): Iterable<[string, Collection]> {
    return this.shared.entries();
  }

  /**
   * The arguments that let a write script adopt the collection (redis-scripts.ts, OWN): 'seed', whether
   * the seed holds record `key` (undefined: the write copies the seed whatever the key, as create and
   * put do), the largest seeded row number (where the counter starts), then each record's key, number and JSON.
   */
  adoption(name: string, key: string | undefined): readonly string[] {
    const seeded = this.collection(name);
    const holds = key === undefined || seeded.has(key) ? '1' : '0';
    let payload = this.payloads.get(name);
    if (!payload) {
      const rows = seeded.rowsCopy();
      payload = [String(rows.at(-1)?.id ?? 0), ...rows.flatMap((row) => [keyOf(row), String(row.id), seedJson(row)])];
      this.payloads.set(name, payload);
    }
    return ['seed', holds, ...payload];
  }

  /** Seeds the collections the fixtures name (the ones a user sized on purpose), reporting progress in records. */
  seedNamed(onSeeding: SeedingProgress | undefined): void {
    this.seeder.seedNamed((name) => this.collection(name), onSeeding);
  }
}

/**
 * A seeded record as adoption stores it. `update` compares against this same text when the record
 * it changed was read from the seed, so both must come from here.
 */
export const seedJson = (row: Row): string => JSON.stringify(row);
