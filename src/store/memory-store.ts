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

/** One workspace's own collections (the ones it has written), by name. */
export type OwnCollections = Record<string, Row[]>;

/** The data file's format version: files without it hold the default workspace's collections alone. */
const FORMAT = 2;

/** The persisted document: only what the workspaces have written; everything else is the seed. */
export interface StoreData {
  readonly understudy: typeof FORMAT;
  readonly workspaces: Record<string, OwnCollections>;
  /** What the sandbox keeps beside the records (issued keys, workspaces, clocks), opaque to the store. */
  sandbox?: unknown;
}

/** Told how far the start-up seeding has gone, in records. */
export type SeedingProgress = (done: number, total: number) => void;

/** The answer for a record that is not there: one shared object, nothing allocated per miss. */
const NOT_FOUND: Lookup = { kind: 'not-found' };

/**
 * The default record store: many workspaces, copy-on-write from one shared seed. The seed is one
 * read-only collection per name, made from the fixtures with a fixed seed (so the same seed gives
 * the same data byte for byte) and shared by every workspace; a workspace's first write to a
 * collection copies the seed's list of records (references to immutable rows) into a collection of
 * its own. Workspaces that only read cost nothing. The collections the fixtures file names are
 * seeded at start; every other one when it is first used (see Seeder: the records are the same
 * either way).
 *
 * In memory by default. With a data file, lowdb's file adapter persists one document holding each
 * workspace's own collections: every write goes to a temporary file that is then renamed over the
 * old one (atomic on POSIX), and concurrent writes are coalesced, each resolving once a file
 * holding its change is in place.
 */
export class MemoryRecordStore implements RecordStore {
  /** The seed: one collection per name, shared by every workspace and never written. */
  private readonly shared = new Map<string, Collection>();
  /**
   * Each workspace that has written: its own collections, and the shared ones it has read since
   * (kept beside them so that a read is two Map lookups). A workspace that never wrote has none.
   */
  private readonly views = new Map<string, Map<string, Collection>>();
  /** Records written per workspace since it was last forgotten (absent: none). */
  private readonly counts = new Map<string, number>();
  private readonly db: Low<StoreData>;

  private constructor(
    private seeder: Seeder,
    adapter: Adapter<StoreData>,
  ) {
    this.db = new Low<StoreData>(adapter, emptyDocument());
  }

  /**
   * Opens the store: the fixtures' collections seeded, then the workspaces' writes read from the
   * data file when it exists (in either format). A data file that does not parse, or does not hold
   * a store, stops the start and is left untouched.
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
    const store = new MemoryRecordStore(new Seeder(model, fixtures, seed), adapter);
    store.seedNamed(onSeeding);
    const saved = dataFile ? await readDataFile(adapter, dataFile) : null;
    if (saved === null) await store.reset();
    else store.load(saved);
    return store;
  }

  /** Every workspace back to the seed (the seed itself is never written: nothing is seeded again). */
  async reset(): Promise<void> {
    this.views.clear();
    this.counts.clear();
    this.db.data = emptyDocument();
    await this.db.write();
  }

  /**
   * One workspace back to the seed, others untouched. Like `reset`, it is not undone if the file
   * cannot be written: memory then holds less than the file, until the next write succeeds.
   */
  async forget(workspace: string): Promise<void> {
    this.counts.delete(workspace);
    if (!this.views.delete(workspace)) return;
    Reflect.deleteProperty(this.db.data.workspaces, workspace);
    await this.db.write();
  }

  /**
   * Seeds from a new version of the document (a reload) from now on: collections seeded already
   * keep their records, in the seed and in every workspace; a collection first used from now on is
   * seeded from the new document and fixtures.
   */
  useModel(model: ApiModel, fixtures: FixtureDefinitions, seed: number): void {
    this.seeder = new Seeder(model, fixtures, seed);
  }

  /**
   * Every stored collection with its records, the seed's (`workspace` undefined) and each
   * workspace's own: what a reload checks against the new document.
   */
  *stored(): Iterable<{ readonly workspace: string | undefined; readonly collection: string; readonly rows: readonly Row[] }> {
    for (const [collection, seeded] of this.shared) yield { workspace: undefined, collection, rows: seeded.rowsCopy() };
    for (const [workspace, collections] of Object.entries(this.db.data.workspaces)) {
      for (const [collection, rows] of Object.entries(collections)) yield { workspace, collection, rows };
    }
  }

  /** What was kept beside the records (`keep`), as the data file held it at start; undefined without one. */
  kept(): unknown {
    return this.db.data.sandbox;
  }

  /**
   * Keeps a value beside the records, written to the data file now (with a file; in memory it is
   * only held). The sandbox keeps its issued keys, workspaces and clocks here so they survive a restart.
   */
  async keep(value: unknown): Promise<void> {
    this.db.data.sandbox = value;
    await this.db.write();
  }

  writes(workspace: string): number {
    return this.counts.get(workspace) ?? 0;
  }

  list(workspace: string, collection: string, query: PageQuery): Promise<Page> {
    return Promise.resolve(this.collection(workspace, collection).list(query));
  }

  get(workspace: string, collection: string, id: number): Promise<Lookup> {
    return Promise.resolve(this.collection(workspace, collection).get(id));
  }

  async create(workspace: string, collection: string, fields: Readonly<Record<string, unknown>>): Promise<Row> {
    const records = this.owned(workspace, collection);
    const row = records.create(fields);
    await this.commitOr(workspace, () => records.delete(row.id));
    return row;
  }

  async replace(workspace: string, collection: string, id: number, fields: Readonly<Record<string, unknown>>): Promise<Lookup> {
    // A miss writes nothing, so it copies nothing.
    if (!this.collection(workspace, collection).has(id)) return NOT_FOUND;
    const records = this.owned(workspace, collection);
    const replaced = records.replace(id, fields);
    if (replaced.kind === 'not-found') return replaced;
    await this.commitOr(workspace, () => records.restore(replaced.before));
    return { kind: 'found', row: replaced.row };
  }

  async put(workspace: string, collection: string, id: number, fields: Readonly<Record<string, unknown>>): Promise<Row> {
    const records = this.owned(workspace, collection);
    const { row, before } = records.put(id, fields);
    await this.commitOr(workspace, () => (before ? records.restore(before) : records.delete(id)));
    return row;
  }

  async update(
    workspace: string,
    collection: string,
    id: number,
    change: (current: Row) => Readonly<Record<string, unknown>> | undefined,
  ): Promise<Update> {
    const current = this.collection(workspace, collection).get(id);
    if (current.kind === 'not-found') return current;
    // Read and write with no await between them: no other change can slip in (no lost update).
    const fields = change(current.row);
    if (fields === undefined) return { kind: 'refused' };
    return this.replace(workspace, collection, id, fields);
  }

  async delete(workspace: string, collection: string, id: number): Promise<Lookup> {
    // A miss writes nothing, so it copies nothing.
    if (!this.collection(workspace, collection).has(id)) return NOT_FOUND;
    const records = this.owned(workspace, collection);
    const removed = records.delete(id);
    if (removed.kind === 'found') await this.commitOr(workspace, () => records.restore(removed.row));
    return removed;
  }

  /** Every collection the workspace sees (seeded ones included, whether used yet or not), in name order. */
  digest(workspace: string = DEFAULT_WORKSPACE): Promise<string> {
    const own = Object.keys(this.db.data.workspaces[workspace] ?? {});
    const names = [...new Set([...this.seeder.names, ...own])].sort();
    const state = names.map((name) => [
      name,
      this.collection(workspace, name).list({ after: undefined, limit: Infinity, filters: [] }).items,
    ]);
    return Promise.resolve(createHash('sha256').update(JSON.stringify(state)).digest('hex'));
  }

  /** The collection a workspace reads: its own copy, else the shared seed (two Map lookups once warm). */
  private collection(workspace: string, name: string): Collection {
    const view = this.views.get(workspace) ?? this.shared;
    return view.get(name) ?? this.borrowed(view, name);
  }

  /** The shared collection, kept in the view that lacked it so the next read finds it at once. */
  private borrowed(view: Map<string, Collection>, name: string): Collection {
    const shared = this.seeded(name);
    view.set(name, shared);
    return shared;
  }

  /** The shared, read-only collection of the seed, made on first use. */
  private seeded(name: string): Collection {
    const found = this.shared.get(name);
    if (found) return found;
    const collection = new Collection(name, [...this.seedRows(name)]);
    this.shared.set(name, collection);
    return collection;
  }

  /** The workspace's own copy of a collection, to write to: made from the seed on its first write. */
  private owned(workspace: string, name: string): Collection {
    const current = this.views.get(workspace)?.get(name);
    if (current && current !== this.shared.get(name)) return current;
    // A copy of the shared collection's records: the seed as first made, even if the document was reloaded since.
    return this.adopt(workspace, name, this.seeded(name).rowsCopy());
  }

  /** A collection's seeded records: the Seeder's own list, to copy. An unknown name is a bug in the caller. */
  private seedRows(name: string): readonly Row[] {
    if (!this.seeder.has(name)) throw new Error(`unknown collection ${name}`);
    return this.seeder.rowsOf(name);
  }

  /** Makes `rows` the workspace's own collection, in memory and in the persisted document. */
  private adopt(workspace: string, name: string, rows: Row[]): Collection {
    let view = this.views.get(workspace);
    if (!view) this.views.set(workspace, (view = new Map<string, Collection>()));
    const collection = new Collection(name, rows);
    view.set(name, collection);
    (this.db.data.workspaces[workspace] ??= nullObject<Row[]>())[name] = rows;
    return collection;
  }

  /** Seeds the collections the fixtures name, reporting progress in records. */
  private seedNamed(onSeeding: SeedingProgress | undefined): void {
    const named = this.seeder.named;
    const total = named.reduce((sum, name) => sum + this.seeder.countOf(name), 0);
    let done = 0;
    for (const name of named) {
      this.seeded(name);
      onSeeding?.((done += this.seeder.countOf(name)), total);
    }
  }

  /** Takes the workspaces' writes from a checked data file. Collections it does not hold read the seed. */
  private load(saved: Record<string, unknown>): void {
    for (const [workspace, collections] of Object.entries(savedWorkspaces(saved))) {
      for (const [name, rows] of Object.entries(collections)) this.adopt(workspace, name, rows);
    }
    if (isVersioned(saved) && saved.sandbox !== undefined) this.db.data.sandbox = saved.sandbox;
  }

  /**
   * Makes a change durable before it is answered, and counts it; if the write fails, the change is
   * undone in memory too (and the request fails with a 500), so memory never holds what the file does not.
   */
  private async commitOr(workspace: string, undo: () => unknown): Promise<void> {
    try {
      await this.db.write();
    } catch (error) {
      undo();
      throw error;
    }
    this.counts.set(workspace, this.writes(workspace) + 1);
  }
}

/** A document with no writes. Null-prototype maps: any workspace name is a plain key (even `__proto__`). */
const emptyDocument = (): StoreData => ({ understudy: FORMAT, workspaces: nullObject<OwnCollections>() });

const nullObject = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** The parsed data file, null when there is none yet; one that cannot be read or is not a store throws. */
async function readDataFile(adapter: Adapter<StoreData>, dataFile: string): Promise<Record<string, unknown> | null> {
  let saved: unknown;
  try {
    saved = await adapter.read();
  } catch (error) {
    throw new Error(`the data file ${dataFile} cannot be read (${(error as Error).message}); it was left untouched`, { cause: error });
  }
  if (saved === null) return null;
  const problem = storeProblem(saved);
  if (problem) throw new Error(`the data file ${dataFile} does not hold a sandbox store (${problem}); it was left untouched`);
  return saved as Record<string, unknown>;
}

/** The workspaces a checked data file holds: the old format's collections are the default workspace's. */
function savedWorkspaces(saved: Record<string, unknown>): Record<string, OwnCollections> {
  return isVersioned(saved) ? (saved.workspaces as Record<string, OwnCollections>) : { [DEFAULT_WORKSPACE]: saved as OwnCollections };
}

/** Whether a file is in the versioned format (in the old one, `understudy` could only be a collection: a list). */
const isVersioned = (data: Record<string, unknown>): boolean => Object.hasOwn(data, 'understudy') && !Array.isArray(data.understudy);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a parsed data file is not a store, or undefined. Either format: `{ "understudy": 2,
 * "workspaces": { workspace: { collection: [rows] } } }`, or the old `{ collection: [rows] }`.
 */
function storeProblem(data: unknown): string | undefined {
  if (!isObject(data)) return 'not a JSON object';
  if (!isVersioned(data)) return collectionsProblem(data, '');
  if (data.understudy !== FORMAT) return `understudy is ${JSON.stringify(data.understudy)}: this version reads format ${FORMAT}`;
  if (!isObject(data.workspaces)) return 'workspaces is not a JSON object';
  for (const [workspace, collections] of Object.entries(data.workspaces)) {
    const path = `workspaces.${workspace}`;
    const problem = isObject(collections) ? collectionsProblem(collections, `${path}.`) : `${path} is not a JSON object`;
    if (problem) return problem;
  }
  return undefined;
}

/** Why an object is not a set of collections (lists of records with ascending ids), or undefined. */
function collectionsProblem(collections: Record<string, unknown>, prefix: string): string | undefined {
  for (const [name, rows] of Object.entries(collections)) {
    if (!Array.isArray(rows)) return `${prefix}${name} is not a list`;
    let last = 0;
    for (const [i, row] of rows.entries()) {
      const id = (row as { id?: unknown } | null)?.id;
      if (typeof row !== 'object' || row === null || typeof id !== 'number' || !Number.isSafeInteger(id) || id <= last) {
        return `${prefix}${name}[${i}] has no id, or ids are not ascending`;
      }
      last = id;
    }
  }
  return undefined;
}
