import { createHash } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import { seededFaker } from '../mock/seeded-faker.js';
import type { ApiModel } from '../vocabulary/operation.js';
import { keyOf, SCOPE_FIELD, type Row } from '../vocabulary/record.js';
import { fitsKind, minter } from '../resources/mint-id.js';
import type { CollectionFixture, FixtureDefinitions } from './fixtures.js';
import { idProperties, itemSchemas, keyedIdentities, parentCollections, type KeyedIdentity } from './item-schemas.js';
import type { KeptSeed } from './kept-seed.js';
import { inferredReferences } from './references.js';
import { generateRows } from './seed-rows.js';

/**
 * The seeded records of every collection, made on demand and kept: a collection's records depend
 * only on the seed, the collection's name and the document (each collection has a faker of its own,
 * seeded from both), never on which collection was seeded first or on what was written since. So a
 * collection can be seeded when first used (GitHub's description has about 300 collections, whose
 * seeding was most of its start-up time) and still answer byte for byte what it would at start.
 *
 * The lists handed out are the seed itself: callers copy before changing them. Given a kept seed
 * (kept-seed.ts), a collection it holds is read from it rather than made, and one made is kept.
 */
export class Seeder {
  /** Every collection the document has: the ones the fixtures name first, in their order. */
  readonly names: readonly string[];
  private readonly schemas: ReadonlyMap<string, string | undefined>;
  private readonly parents: ReadonlyMap<string, string | undefined>;
  private readonly keyed: ReadonlyMap<string, KeyedIdentity>;
  private readonly references: ReadonlyMap<string, ReadonlyMap<string, string>>;
  private readonly idProperties: ReadonlyMap<string, string>;
  private readonly seeded = new Map<string, readonly Row[]>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly model: ApiModel,
    private readonly fixtures: FixtureDefinitions,
    private readonly seed: number,
    private readonly kept?: KeptSeed,
  ) {
    this.schemas = itemSchemas(model);
    this.parents = parentCollections(model);
    this.keyed = keyedIdentities(model);
    this.idProperties = idProperties(model);
    this.references = inferredReferences(model.document, this.schemas, (name) => this.keyed.has(name));
    this.names = [...new Set([...fixtures.collections.keys(), ...this.schemas.keys()])].filter((name) => this.schemas.has(name));
  }

  has(name: string): boolean {
    return this.schemas.has(name);
  }

  /** The collections the fixtures file names: the ones a user sized on purpose, seeded at start. */
  get named(): readonly string[] {
    return this.names.filter((name) => this.fixtures.collections.has(name));
  }

  /** How many records a collection is seeded with. */
  countOf(name: string): number {
    return this.fixtureOf(name).count;
  }
  /** Seeds each collection the fixtures name with `seed` (the store's own way), reporting progress in records. */
  seedNamed(seed: (name: string) => unknown, onProgress: ((done: number, total: number) => void) | undefined): void {
    const total = this.named.reduce((sum, name) => sum + this.countOf(name), 0);
    let done = 0;
    for (const name of this.named) {
      seed(name);
      onProgress?.((done += this.countOf(name)), total);
    }
  }

  /**
   * A collection's seeded records. A `ref` field and a nested collection's parent are seeded first;
   * a cycle of `ref`s gives `null` where it closes (the collection is not seeded yet).
   */
  rowsOf(name: string): readonly Row[] {
    const done = this.seeded.get(name);
    if (done) return done;
    if (this.inProgress.has(name) || !this.schemas.has(name)) return [];
    const kept = this.kept?.rows(name);
    if (kept) {
      this.seeded.set(name, kept);
      return kept;
    }
    this.inProgress.add(name);
    try {
      const faker = seededFaker(collectionSeed(this.seed, name), this.fixtures.referenceDate);
      const identity = this.keyed.get(name);
      const mint = identity && minter(identity.idKind, name);
      const keys =
        identity && mint ? { idProperty: identity.idProperty, mint, fits: (v: string) => fitsKind(identity.idKind, v) } : undefined;
      const rows = generateRows(
        this.model.document,
        this.schemas.get(name),
        this.fixtureOf(name),
        faker,
        (ref) => this.rowsOf(ref),
        keys,
        this.references.get(name),
        this.idProperties.get(name),
      );
      const parent = this.parents.get(name);
      const seeded = this.parents.has(name) ? scoped(rows, parent === undefined ? [] : this.rowsOf(parent), faker) : rows;
      this.seeded.set(name, seeded);
      this.kept?.keep(name, seeded);
      return seeded;
    } finally {
      this.inProgress.delete(name);
    }
  }

  private fixtureOf(name: string): CollectionFixture {
    return this.fixtures.collections.get(name) ?? { count: this.fixtures.defaultCount, fields: {} };
  }
}

/** A collection's own seed: the sandbox's seed and the collection's name, hashed. */
const collectionSeed = (seed: number, name: string): number => createHash('sha256').update(`${seed}:${name}`).digest().readUInt32BE(0);

/** A nested collection's seeded records, each under a random parent record (none without parents). */
function scoped(rows: readonly Row[], parents: readonly Row[], faker: Faker): Row[] {
  if (parents.length === 0) return [];
  return rows.map((row) => {
    const parent = faker.helpers.arrayElement([...parents]);
    const above = parent[SCOPE_FIELD];
    return { ...row, [SCOPE_FIELD]: typeof above === 'string' ? `${above}/${keyOf(parent)}` : keyOf(parent) };
  });
}
