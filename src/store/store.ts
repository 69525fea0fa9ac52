import { createHash } from 'node:crypto';
import { Low, Memory } from 'lowdb';
import type { ApiModel } from '../spec/operation-model.js';
import { Collection } from './collection.js';
import { generateRows, seededFaker, type FixtureDefinitions } from './fixtures.js';
import { itemSchemas } from './item-schemas.js';
import type { Row } from './paging.js';

export type StoreData = Record<string, Row[]>;

/**
 * The sandbox's state: one lowdb document holding a list of records per collection, seeded from
 * the fixtures with a fixed seed, so the same seed gives the same data byte for byte.
 */
export class Store {
  private collections = new Map<string, Collection>();
  private readonly db = new Low<StoreData>(new Memory<StoreData>(), {});

  private constructor(
    private readonly model: ApiModel,
    private readonly fixtures: FixtureDefinitions,
    private readonly seed: number,
  ) {}

  static async open(model: ApiModel, fixtures: FixtureDefinitions, seed: number): Promise<Store> {
    const store = new Store(model, fixtures, seed);
    await store.reset();
    return store;
  }

  /** Back to the seeded state. */
  async reset(): Promise<void> {
    this.db.data = this.seedData();
    await this.db.write();
    this.collections = new Map(Object.entries(this.db.data).map(([name, rows]) => [name, new Collection(name, rows)]));
  }

  collection(name: string): Collection | undefined {
    return this.collections.get(name);
  }

  /** Makes the latest change durable (a no-op for the in-memory adapter). */
  async commit(): Promise<void> {
    await this.db.write();
  }

  /** A digest of the whole state, to prove a failed request changed nothing. */
  digest(): string {
    return createHash('sha256').update(JSON.stringify(this.db.data)).digest('hex');
  }

  private seedData(): StoreData {
    const faker = seededFaker(this.seed, this.fixtures.referenceDate);
    const schemas = itemSchemas(this.model);
    // Collections the fixtures name come first, in their order, so `ref` fields find their targets.
    const names = [...new Set([...this.fixtures.collections.keys(), ...schemas.keys()])].filter((n) => schemas.has(n));
    const seeded = new Map<string, Row[]>();
    for (const name of names) {
      const fixture = this.fixtures.collections.get(name) ?? { count: this.fixtures.defaultCount, fields: {} };
      seeded.set(name, generateRows(this.model.document, schemas.get(name), fixture, faker, seeded));
    }
    return Object.fromEntries(seeded);
  }
}
