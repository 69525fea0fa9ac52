import { createHash } from 'node:crypto';
import { Low, Memory, type Adapter } from 'lowdb';
import { seededFaker } from '../mock/seeded-faker.js';
import type { FixtureDefinitions } from '../seeding/fixtures.js';
import { itemSchemas, parentCollections } from '../seeding/item-schemas.js';
import { generateRows } from '../seeding/seed-rows.js';
import type { ApiModel } from '../vocabulary/operation.js';
import type { Row } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { Collection } from './collection.js';
import type { Page, PageQuery } from './paging.js';
import { SCOPE_FIELD, type Lookup, type RecordStore, type Update } from './record-store.js';

export type StoreData = Record<string, Row[]>;

/**
 * The default record store: one lowdb document holding a list of records per collection, seeded from
 * the fixtures with a fixed seed, so the same seed gives the same data byte for byte.
 *
 * In memory by default. With a data file, lowdb's file adapter persists the document: every write
 * goes to a temporary file that is then renamed over the old one (atomic on POSIX), and concurrent
 * writes are coalesced, each resolving once a file holding its change is in place.
 */
export class MemoryRecordStore implements RecordStore {
  private collections = new Map<string, Collection>();
  private readonly db: Low<StoreData>;

  private constructor(
    private readonly model: ApiModel,
    private readonly fixtures: FixtureDefinitions,
    private readonly seed: number,
    adapter: Adapter<StoreData>,
  ) {
    this.db = new Low<StoreData>(adapter, {});
  }

  /**
   * Opens the store: from the data file when it exists, else freshly seeded. A data file that
   * does not parse, or does not hold a store, stops the start and is left untouched.
   */
  static async open(
    model: ApiModel,
    fixtures: FixtureDefinitions,
    seed: number,
    dataFile: string | null = null,
  ): Promise<MemoryRecordStore> {
    // The file adapter is loaded only when there is a file to persist to.
    const adapter = dataFile
      ? new (await import('lowdb/node')).DataFile<StoreData>(dataFile, { parse: JSON.parse, stringify: JSON.stringify })
      : new Memory<StoreData>();
    const store = new MemoryRecordStore(model, fixtures, seed, adapter);
    if (!dataFile) {
      await store.reset();
      return store;
    }
    let saved: unknown;
    try {
      saved = await adapter.read();
    } catch (error) {
      throw new Error(`the data file ${dataFile} cannot be read (${(error as Error).message}); it was left untouched`, { cause: error });
    }
    if (saved === null) {
      await store.reset();
      return store;
    }
    const problem = storeProblem(saved);
    if (problem) throw new Error(`the data file ${dataFile} does not hold a sandbox store (${problem}); it was left untouched`);
    // Collections the document has gained since the file was written are seeded.
    const gained = [...itemSchemas(model).keys()].some((name) => !Object.hasOwn(saved as object, name));
    store.db.data = gained ? { ...store.seedData(), ...(saved as StoreData) } : (saved as StoreData);
    store.index();
    return store;
  }

  /** Back to the seeded state. */
  async reset(): Promise<void> {
    this.db.data = this.seedData();
    await this.db.write();
    this.index();
  }

  private index(): void {
    this.collections = new Map(Object.entries(this.db.data).map(([name, rows]) => [name, new Collection(name, rows)]));
  }

  list(workspace: string, collection: string, query: PageQuery): Promise<Page> {
    return Promise.resolve(this.collection(workspace, collection).list(query));
  }

  get(workspace: string, collection: string, id: number): Promise<Lookup> {
    return Promise.resolve(this.collection(workspace, collection).get(id));
  }

  async create(workspace: string, collection: string, fields: Readonly<Record<string, unknown>>): Promise<Row> {
    const records = this.collection(workspace, collection);
    const row = records.create(fields);
    await this.commitOr(() => records.delete(row.id));
    return row;
  }

  async replace(workspace: string, collection: string, id: number, fields: Readonly<Record<string, unknown>>): Promise<Lookup> {
    const records = this.collection(workspace, collection);
    const replaced = records.replace(id, fields);
    if (replaced.kind === 'not-found') return replaced;
    await this.commitOr(() => records.restore(replaced.before));
    return { kind: 'found', row: replaced.row };
  }

  async put(workspace: string, collection: string, id: number, fields: Readonly<Record<string, unknown>>): Promise<Row> {
    const records = this.collection(workspace, collection);
    const { row, before } = records.put(id, fields);
    await this.commitOr(() => (before ? records.restore(before) : records.delete(id)));
    return row;
  }

  async update(
    workspace: string,
    collection: string,
    id: number,
    change: (current: Row) => Readonly<Record<string, unknown>> | undefined,
  ): Promise<Update> {
    const records = this.collection(workspace, collection);
    const current = records.get(id);
    if (current.kind === 'not-found') return current;
    // Read and write with no await between them: no other change can slip in (no lost update).
    const fields = change(current.row);
    if (fields === undefined) return { kind: 'refused' };
    return this.replace(workspace, collection, id, fields);
  }

  async delete(workspace: string, collection: string, id: number): Promise<Lookup> {
    const records = this.collection(workspace, collection);
    const removed = records.delete(id);
    if (removed.kind === 'found') await this.commitOr(() => records.restore(removed.row));
    return removed;
  }

  digest(): Promise<string> {
    return Promise.resolve(createHash('sha256').update(JSON.stringify(this.db.data)).digest('hex'));
  }

  /** One default workspace today: every workspace name but that one is a bug in the caller. */
  private collection(workspace: string, name: string): Collection {
    if (workspace !== DEFAULT_WORKSPACE) throw new Error(`unknown workspace ${workspace}`);
    const found = this.collections.get(name);
    if (!found) throw new Error(`unknown collection ${name}`);
    return found;
  }

  /**
   * Makes a change durable before it is answered; if the write fails, the change is undone in
   * memory too (and the request fails with a 500), so memory never holds what the file does not.
   */
  private async commitOr(undo: () => unknown): Promise<void> {
    try {
      await this.db.write();
    } catch (error) {
      undo();
      throw error;
    }
  }

  private seedData(): StoreData {
    const faker = seededFaker(this.seed, this.fixtures.referenceDate);
    const schemas = itemSchemas(this.model);
    // Collections the fixtures name come first, in their order, so `ref` fields find their targets.
    const names = [...new Set([...this.fixtures.collections.keys(), ...schemas.keys()])].filter((n) => schemas.has(n));
    const parents = parentCollections(this.model);
    const seeded = new Map<string, Row[]>();
    // Parents before their nested collections, so children can be spread over them.
    for (const name of names.sort((a, b) => a.split('/').length - b.split('/').length)) {
      const fixture = this.fixtures.collections.get(name) ?? { count: this.fixtures.defaultCount, fields: {} };
      const rows = generateRows(this.model.document, schemas.get(name), fixture, faker, seeded);
      seeded.set(name, parents.has(name) ? scoped(rows, seeded.get(parents.get(name) ?? ''), faker) : rows);
    }
    return Object.fromEntries(names.map((name) => [name, seeded.get(name) ?? []]));
  }
}

/** A nested collection's seeded records, each under a random parent record (none without parents). */
function scoped(rows: readonly Row[], parents: readonly Row[] | undefined, faker: ReturnType<typeof seededFaker>): Row[] {
  if (parents === undefined || parents.length === 0) return [];
  return rows.map((row) => {
    const parent = faker.helpers.arrayElement([...parents]);
    const above = parent[SCOPE_FIELD];
    return { ...row, [SCOPE_FIELD]: typeof above === 'string' ? `${above}/${parent.id}` : String(parent.id) };
  });
}

/** Why a parsed data file is not a store (an object of lists of records with ascending ids), or undefined. */
function storeProblem(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  for (const [name, rows] of Object.entries(data)) {
    if (!Array.isArray(rows)) return `${name} is not a list`;
    let last = 0;
    for (const [i, row] of rows.entries()) {
      const id = (row as { id?: unknown } | null)?.id;
      if (typeof row !== 'object' || row === null || typeof id !== 'number' || !Number.isSafeInteger(id) || id <= last) {
        return `${name}[${i}] has no id, or ids are not ascending`;
      }
      last = id;
    }
  }
  return undefined;
}
