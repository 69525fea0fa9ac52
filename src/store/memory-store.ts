import { createHash } from 'node:crypto';
import type { Seeder } from '../seeding/seeder.js';
import { KEY_FIELD, keyOf, type MintKey, type Row } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { Collection } from './collection.js';
import { DataLog, type FsyncPolicy, type LogOp } from './data-log.js';
import { isVersioned, nullObject, savedNext, savedWorkspaces, stateChunks, storeProblem } from './data-file-format.js';
import type { Page, PageQuery } from './paging.js';
import type { CapturedCollection, CapturedRecords, Inserted, Lookup, SandboxStore, Update } from './record-store.js';
import { WorkspaceViews, type SeedingProgress } from './workspace-views.js';

export type { SeedingProgress } from './workspace-views.js';

/** The answer for a record that is not there: one shared object, nothing allocated per miss. */
const NOT_FOUND: Lookup = { kind: 'not-found' };

/**
 * The default record store: many workspaces, copy-on-write from one shared seed (`WorkspaceViews`:
 * workspaces that only read cost nothing). The collections the fixtures file names are seeded at
 * start; every other one when it is first used (see Seeder: the records are the same either way).
 *
 * In memory by default. With a data file, every change is appended to a log beside it before it is
 * answered (`DataLog`: one append per group of changes, whatever the store's size), and the file
 * itself is a snapshot of each workspace's own collections, rewritten when the log outgrows it and
 * at start.
 */
export class MemoryRecordStore implements SandboxStore {
  /** Records written per workspace since it was last forgotten (absent: none). */
  private readonly counts = new Map<string, number>();
  private readonly views: WorkspaceViews;
  /** The data file's log, when there is one. */
  private log: DataLog | undefined;

  private constructor(seeder: Seeder) {
    this.views = new WorkspaceViews(seeder);
  }

  /**
   * Opens the store: the fixtures' collections seeded, then the workspaces' writes read from the
   * data file when it exists (in either format). A data file that does not parse, or does not hold
   * a store, stops the start and is left untouched.
   */
  static async open(
    seeder: Seeder,
    dataFile: string | null = null,
    onSeeding?: SeedingProgress,
    fsync: FsyncPolicy = 'everysec',
  ): Promise<MemoryRecordStore> {
    const store = new MemoryRecordStore(seeder);
    store.views.seedNamed(onSeeding);
    if (dataFile === null) return store;
    const recovered = await DataLog.recover(
      dataFile,
      (snapshot) => {
        if (snapshot === null) return;
        const problem = storeProblem(snapshot);
        if (problem) throw new Error(`the data file ${dataFile} does not hold a sandbox store (${problem}); it was left untouched`);
        store.load(snapshot as Record<string, unknown>);
      },
      (op) => store.replay(op),
    );
    store.log = await DataLog.open(dataFile, fsync, () => stateChunks(store.views.document, store.views.nextNumbers()));
    // A fresh snapshot of what was replayed: the log starts empty (and a missing file is created).
    if (recovered.snapshot === null || recovered.changes > 0 || recovered.tornBytes > 0) await store.log.compact();
    return store;
  }

  /** Writes a snapshot of the store now and starts the log again (with no data file, nothing to do); writes go on meanwhile. */
  async compact(): Promise<void> {
    await this.log?.compact();
  }

  /** Flushes the log and closes the data file (with none, nothing to do). */
  async close(): Promise<void> {
    await this.log?.close();
  }

  /** Every workspace back to the seed (the seed itself is never written: nothing is seeded again). */
  async reset(): Promise<void> {
    this.views.clear();
    this.counts.clear();
    // The log would only replay what this erases: a snapshot of the empty store replaces it.
    await this.log?.compact();
  }

  /**
   * One workspace back to the seed, others untouched. Like `reset`, it is not undone if the file
   * cannot be written: memory then holds less than the file, until the next write succeeds.
   */
  async forget(workspace: string): Promise<void> {
    this.counts.delete(workspace);
    if (!this.views.forget(workspace)) return;
    await this.log?.append({ op: 'forget', w: workspace });
  }

  /**
   * Seeds from a new version of the document (a reload) from now on: collections seeded already
   * keep their records, in the seed and in every workspace; a collection first used from now on is
   * seeded from the new document and fixtures.
   */
  useSeeder(seeder: Seeder): void {
    this.views.useSeeder(seeder);
  }

  /**
   * Every stored collection with its records, the seed's (`workspace` undefined) and each
   * workspace's own: what a reload checks against the new document.
   */
  *stored(): Iterable<{ readonly workspace: string | undefined; readonly collection: string; readonly rows: readonly Row[] }> {
    yield* this.views.stored();
  }

  /** What was kept beside the records (`keep`), as the data file held it at start; undefined without one. */
  kept(): unknown {
    return this.views.document.sandbox;
  }

  /**
   * Keeps a value beside the records, written to the data file now (with a file; in memory it is
   * only held). The sandbox keeps its issued keys, workspaces and clocks here so they survive a restart.
   */
  async keep(value: unknown): Promise<void> {
    this.views.document.sandbox = value;
    await this.log?.append({ op: 'keep', value });
  }

  /** The workspace's own collections: lists of the same immutable rows, so a capture copies no record. */
  capture(workspace: string): Promise<CapturedRecords> {
    const records = nullObject<CapturedCollection>();
    for (const [name, collection] of this.views.ownCollections(workspace))
      records[name] = { next: collection.next, rows: collection.rowsCopy() };
    return Promise.resolve(records);
  }

  /**
   * The workspace's own collections become the captured ones, logged as one change (`restore`) with
   * their next row numbers. Like `forget`, it is not undone if the file cannot be written.
   */
  async restore(workspace: string, records: CapturedRecords): Promise<void> {
    this.restored(workspace, records);
    await this.log?.append({ op: 'restore', w: workspace, records });
  }

  writes(workspace: string): number {
    return this.counts.get(workspace) ?? 0;
  }

  list(workspace: string, collection: string, query: PageQuery): Promise<Page> {
    return Promise.resolve(this.collection(workspace, collection).list(query));
  }

  get(workspace: string, collection: string, key: string): Promise<Lookup> {
    return Promise.resolve(this.collection(workspace, collection).get(key));
  }

  async create(workspace: string, collection: string, fields: Readonly<Record<string, unknown>>, mint?: MintKey): Promise<Row> {
    const records = this.owned(workspace, collection);
    const row = records.create(fields, mint);
    if (this.log)
      await this.commitOr(this.log, workspace, { op: 'put', w: workspace, c: collection, row }, () => records.delete(keyOf(row)));
    else this.count(workspace);
    return row;
  }

  async insert(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Inserted> {
    // A taken key writes nothing, so it copies nothing.
    const held = this.collection(workspace, collection).get(key);
    if (held.kind === 'found') return { kind: 'taken', row: held.row };
    const records = this.owned(workspace, collection);
    const inserted = records.insert(key, fields);
    if (inserted.kind !== 'created') return inserted;
    if (this.log)
      await this.commitOr(this.log, workspace, { op: 'put', w: workspace, c: collection, row: inserted.row }, () => records.delete(key));
    else this.count(workspace);
    return inserted;
  }

  async replace(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Lookup> {
    // A miss writes nothing, so it copies nothing.
    if (!this.collection(workspace, collection).has(key)) return NOT_FOUND;
    const records = this.owned(workspace, collection);
    const replaced = records.replace(key, fields);
    if (replaced.kind === 'not-found') return replaced;
    if (this.log)
      await this.commitOr(this.log, workspace, { op: 'put', w: workspace, c: collection, row: replaced.row }, () =>
        records.restore(replaced.before),
      );
    else this.count(workspace);
    return { kind: 'found', row: replaced.row };
  }

  async put(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>, keyed: boolean): Promise<Row> {
    const records = this.owned(workspace, collection);
    const { row, before } = records.put(key, fields, keyed);
    if (this.log)
      await this.commitOr(this.log, workspace, { op: 'put', w: workspace, c: collection, row }, () =>
        before ? records.restore(before) : records.delete(key),
      );
    else this.count(workspace);
    return row;
  }

  async update(
    workspace: string,
    collection: string,
    key: string,
    change: (current: Row) => Readonly<Record<string, unknown>> | undefined,
  ): Promise<Update> {
    const current = this.collection(workspace, collection).get(key);
    if (current.kind === 'not-found') return current;
    // Read and write with no await between them: no other change can slip in (no lost update).
    const fields = change(current.row);
    if (fields === undefined) return { kind: 'refused' };
    return this.replace(workspace, collection, key, fields);
  }

  async delete(workspace: string, collection: string, key: string): Promise<Lookup> {
    // A miss writes nothing, so it copies nothing.
    if (!this.collection(workspace, collection).has(key)) return NOT_FOUND;
    const records = this.owned(workspace, collection);
    const removed = records.delete(key);
    if (removed.kind === 'found') {
      const { row } = removed;
      if (this.log) {
        const n = records.next;
        const op: LogOp =
          typeof row[KEY_FIELD] === 'string'
            ? { op: 'del', w: workspace, c: collection, id: row.id, k: key, n }
            : { op: 'del', w: workspace, c: collection, id: row.id, n };
        await this.commitOr(this.log, workspace, op, () => records.restore(row));
      } else this.count(workspace);
    }
    return removed;
  }

  /** Every collection the workspace sees (seeded ones included, whether used yet or not), in name order. */
  digest(workspace: string = DEFAULT_WORKSPACE): Promise<string> {
    const own = Object.keys(this.views.document.workspaces[workspace] ?? {});
    const names = [...new Set([...this.views.names, ...own])].sort();
    const state = names.map((name) => [
      name,
      this.collection(workspace, name).list({ after: undefined, limit: Infinity, filters: [] }).items,
    ]);
    return Promise.resolve(createHash('sha256').update(JSON.stringify(state)).digest('hex'));
  }

  /** The collection a workspace reads: its own copy, else the shared seed. */
  private collection(workspace: string, name: string): Collection {
    return this.views.collection(workspace, name);
  }

  /**
   * The workspace's own copy of a collection, to write to. A first write logs the seed's records
   * whole, so that a restart on another document or seed still finds them; the write that follows
   * goes out in the same append, and fails with it.
   */
  private owned(workspace: string, name: string): Collection {
    return this.views.owned(workspace, name, (rows) => {
      this.log?.append({ op: 'adopt', w: workspace, c: name, rows }).catch(() => undefined);
    });
  }

  /** The workspace's own collections become these, in memory (a restore, or its replay). A restore starts its count of writes again. */
  private restored(workspace: string, records: CapturedRecords): void {
    this.views.forget(workspace);
    this.counts.delete(workspace);
    for (const [name, { next, rows }] of Object.entries(records)) this.views.adopt(workspace, name, [...rows], next);
  }

  /** Takes the workspaces' writes from a checked data file. Collections it does not hold read the seed. */
  private load(saved: Record<string, unknown>): void {
    const next = savedNext(saved);
    for (const [workspace, collections] of Object.entries(savedWorkspaces(saved))) {
      for (const [name, rows] of Object.entries(collections)) this.views.adopt(workspace, name, rows, next[workspace]?.[name]);
    }
    if (isVersioned(saved) && saved.sandbox !== undefined) this.views.document.sandbox = saved.sandbox;
  }

  /** Applies a logged change (at start, after the snapshot): each is idempotent. */
  private replay(op: LogOp): void {
    switch (op.op) {
      case 'adopt':
        this.views.adopt(op.w, op.c, [...op.rows]);
        return;
      case 'put':
        this.owned(op.w, op.c).restore(op.row);
        return;
      case 'del': {
        const records = this.owned(op.w, op.c);
        records.delete(op.k ?? String(op.id));
        if (op.n !== undefined) records.advance(op.n);
        return;
      }
      case 'restore':
        this.restored(op.w, op.records);
        return;
      case 'forget':
        this.views.forget(op.w);
        return;
      case 'keep':
        this.views.document.sandbox = op.value;
        return;
    }
  }

  /**
   * Makes a change durable before it is answered, and counts it; if the append fails, the change is
   * undone in memory too (and the request fails with a 500), so memory never holds what the file does not.
   */
  private async commitOr(log: DataLog, workspace: string, op: LogOp, undo: () => unknown): Promise<void> {
    try {
      await log.append(op);
    } catch (error) {
      undo();
      throw error;
    }
    this.count(workspace);
  }

  /** One more write by the workspace. In memory only, a change needs no log entry nor undo: it is counted, and done. */
  private count(workspace: string): void {
    this.counts.set(workspace, this.writes(workspace) + 1);
  }
}
