import { Low, Memory } from 'lowdb';
import type { Seeder } from '../seeding/seeder.js';
import type { Row } from '../vocabulary/record.js';
import { Collection } from './collection.js';
import { emptyDocument, nullObject, type NextNumbers, type StoreData } from './data-file-format.js';

/** Told how far the start-up seeding has gone, in records. */
export type SeedingProgress = (done: number, total: number) => void;

/**
 * The memory store's collections: one shared seed, and each workspace's own copies, made on its
 * first write to a collection (copy-on-write). The seed is one read-only collection per name, made
 * from the fixtures with a fixed seed (so the same seed gives the same data byte for byte) and shared
 * by every workspace; a workspace's first write to a collection copies the seed's list of records
 * (references to immutable rows) into a collection of its own. Workspaces that only read cost
 * nothing. The persisted document (`document`) holds the same row lists as the workspaces' own
 * collections: what a data file writes.
 */
export class WorkspaceViews {
  /** The seed: one collection per name, shared by every workspace and never written. */
  private readonly shared = new Map<string, Collection>();
  /**
   * Each workspace that has written: its own collections, and the shared ones it has read since
   * (kept beside them so that a read is two Map lookups). A workspace that never wrote has none.
   */
  private readonly views = new Map<string, Map<string, Collection>>();
  /** lowdb's document model, in memory: what the data file's log persists (see memory-store.ts). */
  private readonly db = new Low<StoreData>(new Memory<StoreData>(), emptyDocument());

  /** The persisted document: each workspace's own collections' rows, and what the sandbox keeps beside them. */
  get document(): StoreData {
    return this.db.data;
  }

  set document(value: StoreData) {
    this.db.data = value;
  }

  constructor(private seeder: Seeder) {}

  /** Seeds from a reloaded document from now on (collections seeded already keep their records). */
  useSeeder(seeder: Seeder): void {
    this.seeder = seeder;
  }

  /** Every collection the current document has. */
  get names(): readonly string[] {
    return this.seeder.names;
  }

  /** The collection a workspace reads: its own copy, else the shared seed (two Map lookups once warm). */
  collection(workspace: string, name: string): Collection {
    const view = this.views.get(workspace) ?? this.shared;
    return view.get(name) ?? this.borrowed(view, name);
  }

  /**
   * The workspace's own copy of a collection, to write to: made from the seed on its first write,
   * when `adopted` is told of the rows copied (the data file logs them).
   */
  owned(workspace: string, name: string, adopted?: (rows: readonly Row[]) => void): Collection {
    const current = this.views.get(workspace)?.get(name);
    if (current && current !== this.shared.get(name)) return current;
    // A copy of the shared collection's records: the seed as first made, even if the document was reloaded since.
    const rows = this.seeded(name).rowsCopy();
    adopted?.(rows);
    return this.adopt(workspace, name, [...rows]);
  }

  /** The collections the workspace has written (its own copies), by name; none for a workspace that only read. */
  ownCollections(workspace: string): [string, Collection][] {
    return [...(this.views.get(workspace) ?? [])].filter(([name, collection]) => collection !== this.shared.get(name));
  }

  /** Makes `rows` the workspace's own collection, in memory and in the persisted document; `next` as Collection takes it. */
  adopt(workspace: string, name: string, rows: Row[], next?: number): Collection {
    let view = this.views.get(workspace);
    if (!view) this.views.set(workspace, (view = new Map<string, Collection>()));
    const collection = new Collection(name, rows, next);
    view.set(name, collection);
    (this.document.workspaces[workspace] ??= nullObject<Row[]>())[name] = rows;
    return collection;
  }

  /** The workspace back to the seed; false when it had written nothing. */
  forget(workspace: string): boolean {
    Reflect.deleteProperty(this.document.workspaces, workspace);
    return this.views.delete(workspace);
  }

  /** Every workspace back to the seed (the seed itself is never written: nothing is seeded again). */
  clear(): void {
    this.views.clear();
    this.document = emptyDocument();
  }

  /**
   * Every stored collection with its records, the seed's (`workspace` undefined) and each
   * workspace's own: what a reload checks against the new document.
   */
  *stored(): Iterable<{ readonly workspace: string | undefined; readonly collection: string; readonly rows: readonly Row[] }> {
    for (const [collection, seeded] of this.shared) yield { workspace: undefined, collection, rows: seeded.rowsCopy() };
    for (const [workspace, collections] of Object.entries(this.document.workspaces)) {
      for (const [collection, rows] of Object.entries(collections)) yield { workspace, collection, rows };
    }
  }

  /** Each own collection's next row number where it is past its last row: what a data file keeps (`NextNumbers`). */
  nextNumbers(): NextNumbers {
    const next = nullObject<Record<string, number>>();
    for (const [workspace] of this.views) {
      for (const [name, collection] of this.ownCollections(workspace)) {
        if (collection.nextKept) (next[workspace] ??= nullObject<number>())[name] = collection.next;
      }
    }
    return next;
  }

  /** Seeds the collections the fixtures name, reporting progress in records. */
  seedNamed(onSeeding: SeedingProgress | undefined): void {
    this.seeder.seedNamed((name) => this.seeded(name), onSeeding);
  }

  /** The shared collection, kept in the view that lacked it so the next read finds it at once. */
  private borrowed(view: Map<string, Collection>, name: string): Collection {
    const shared = this.seeded(name);
    view.set(name, shared);
    return shared;
  }

  /** The shared, read-only collection of the seed, made on first use. An unknown name is a bug in the caller. */
  private seeded(name: string): Collection {
    const found = this.shared.get(name);
    if (found) return found;
    if (!this.seeder.has(name)) throw new Error(`unknown collection ${name}`);
    const collection = new Collection(name, [...this.seeder.rowsOf(name)]);
    this.shared.set(name, collection);
    return collection;
  }
}
