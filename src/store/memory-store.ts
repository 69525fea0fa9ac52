import { createHash } from 'node:crypto';
import { Low, Memory, type Adapter } from 'lowdb';
import type { FixtureDefinitions } from '../seeding/fixtures.js';
import { Seeder } from '../seeding/seeder.js';
import type { ApiModel } from '../vocabulary/operation.js';
import type { Row } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { Collection } from './collection.js';
import type { Page, PageQuery } from './paging.js';
import type { Lookup, RecordStore, Update } from './record-store.js';

export type StoreData = Record<string, Row[]>;

/** Told how far the start-up seeding has gone, in records. */
export type SeedingProgress = (done: number, total: number) => void;

/**
 * The default record store: one lowdb document holding a list of records per collection, seeded from
 * the fixtures with a fixed seed, so the same seed gives the same data byte for byte. The collections
 * the fixtures file names are seeded at start; every other one when it is first used (see Seeder:
 * the records are the same either way).
 *
 * In memory by default. With a data file, lowdb's file adapter persists the document: every write
 * goes to a temporary file that is then renamed over the old one (atomic on POSIX), and concurrent
 * writes are coalesced, each resolving once a file holding its change is in place.
 */
export class MemoryRecordStore implements RecordStore {
  private collections = new Map<string, Collection>();
  private readonly db: Low<StoreData>;

  private constructor(
    private readonly seeder: Seeder,
    adapter: Adapter<StoreData>,
    private readonly onSeeding: SeedingProgress | undefined,
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
    onSeeding?: SeedingProgress,
  ): Promise<MemoryRecordStore> {
    // The file adapter is loaded only when there is a file to persist to.
    const adapter = dataFile
      ? new (await import('lowdb/node')).DataFile<StoreData>(dataFile, { parse: JSON.parse, stringify: JSON.stringify })
      : new Memory<StoreData>();
    const store = new MemoryRecordStore(new Seeder(model, fixtures, seed), adapter, onSeeding);
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
    // Collections the file does not hold (the document gained them, or they were never used) are
    // seeded when first used, as in a fresh store.
    store.db.data = saved as StoreData;
    store.collections = new Map(Object.entries(store.db.data).map(([name, rows]) => [name, new Collection(name, rows)]));
    return store;
  }

  /** Back to the seeded state. */
  async reset(): Promise<void> {
    this.db.data = {};
    this.collections = new Map();
    const named = this.seeder.named;
    const total = named.reduce((sum, name) => sum + this.seeder.countOf(name), 0);
    let done = 0;
    for (const name of named) {
      this.seeded(name);
      this.onSeeding?.((done += this.seeder.countOf(name)), total);
    }
    await this.db.write();
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

  /** Every collection (seeded ones included, whether used yet or not), in name order. */
  digest(): Promise<string> {
    const names = [...new Set([...this.seeder.names, ...Object.keys(this.db.data)])].sort();
    const state = names.map((name) => [
      name,
      this.collection(DEFAULT_WORKSPACE, name).list({ after: undefined, limit: Infinity, filters: [] }).items,
    ]);
    return Promise.resolve(createHash('sha256').update(JSON.stringify(state)).digest('hex'));
  }

  /** One default workspace today: every workspace name but that one is a bug in the caller. */
  private collection(workspace: string, name: string): Collection {
    if (workspace !== DEFAULT_WORKSPACE) throw new Error(`unknown workspace ${workspace}`);
    const found = this.collections.get(name) ?? (this.seeder.has(name) ? this.seeded(name) : undefined);
    if (!found) throw new Error(`unknown collection ${name}`);
    return found;
  }

  /** A collection as seeded, now part of the store (its records copied: the seed stays as it is). */
  private seeded(name: string): Collection {
    const rows = [...this.seeder.rowsOf(name)];
    this.db.data[name] = rows;
    const collection = new Collection(name, rows);
    this.collections.set(name, collection);
    return collection;
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
