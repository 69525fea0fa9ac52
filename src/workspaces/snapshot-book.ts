import { sizesOf, type SnapshotDocument, type SnapshotSizes } from './snapshot-document.js';

/** What the list shows of one snapshot. */
export interface SnapshotListing {
  readonly name: string;
  /** When it was taken, on its workspace's sandbox clock. */
  readonly takenAt: string;
  /** The workspace it was taken in (another, when it was imported from one). */
  readonly takenIn: string;
  readonly sizes: SnapshotSizes;
}

/** A held snapshot, and its JSON once something asked for it (the list's size, the replicas, the data file). */
interface Held {
  readonly document: SnapshotDocument;
  json?: string;
}

/** A snapshot as the data file keeps it. */
export interface KeptSnapshot {
  readonly workspace: string;
  readonly snapshot: SnapshotDocument;
}

const jsonOf = (held: Held): string => (held.json ??= JSON.stringify(held.document));
/** A shared entry's id: the workspace and the name, unambiguous whatever either holds. */
const entryId = (workspace: string, name: string): string => JSON.stringify([workspace, name]);

/**
 * The named snapshots of each workspace, held in memory (the data file and the other replicas keep
 * them through the snapshots' state part). A snapshot is a document that is never changed, only
 * replaced: what it holds of the records are the store's own immutable rows, so taking one copies no
 * record. Those imported at start (`--snapshot FILE`) are the start: a reset goes back to them. A
 * workspace that is gone (deleted, evicted, cleared by a reset) takes its snapshots with it.
 */
export class SnapshotBook {
  private held = new Map<string, Map<string, Held>>();
  private initial: readonly KeptSnapshot[] = [];

  /** @param known whether a workspace still exists: the snapshots of one that does not are dropped. */
  constructor(private readonly known: (workspace: string) => boolean) {}

  /** The workspace's snapshots, by name. */
  list(workspace: string): SnapshotListing[] {
    return [...this.of(workspace)]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, held]) => ({
        name,
        takenAt: held.document.takenAt,
        takenIn: held.document.workspace,
        sizes: sizesOf(held.document, jsonOf(held)),
      }));
  }

  get(workspace: string, name: string): SnapshotDocument | undefined {
    return this.of(workspace).get(name)?.document;
  }

  /** Holds a snapshot under its name, replacing one that had it. */
  put(workspace: string, document: SnapshotDocument): 'created' | 'replaced' {
    let named = this.held.get(workspace);
    if (!named) this.held.set(workspace, (named = new Map<string, Held>()));
    const replaced = named.has(document.name);
    named.set(document.name, { document });
    return replaced ? 'replaced' : 'created';
  }

  delete(workspace: string, name: string): boolean {
    return this.held.get(workspace)?.delete(name) ?? false;
  }

  /** A snapshot imported at start: held now, and again after every reset. */
  putInitial(workspace: string, document: SnapshotDocument): void {
    this.initial = [
      ...this.initial.filter((k) => k.workspace !== workspace || k.snapshot.name !== document.name),
      { workspace, snapshot: document },
    ];
    this.put(workspace, document);
  }

  /** Back to the snapshots imported at start. */
  reset(): void {
    this.held = new Map();
    for (const { workspace, snapshot } of this.initial) this.put(workspace, snapshot);
  }

  /** Every snapshot, for a data file. */
  save(): KeptSnapshot[] {
    return this.all().map(([workspace, , held]) => ({ workspace, snapshot: held.document }));
  }

  /** Snapshots kept in a data file, back after a restart. */
  load(kept: readonly KeptSnapshot[]): void {
    for (const { workspace, snapshot } of kept) this.put(workspace, snapshot);
  }

  /** Every snapshot as a shared entry: [workspace, name] → the document's JSON. */
  entries(): Map<string, string> {
    return new Map(this.all().map(([workspace, name, held]) => [entryId(workspace, name), jsonOf(held)]));
  }

  /** The snapshots become exactly these entries (another replica's); one whose JSON is unchanged is not parsed again. */
  replace(entries: ReadonlyMap<string, string>): void {
    const next = new Map<string, Map<string, Held>>();
    for (const [id, json] of entries) {
      const [workspace, name] = JSON.parse(id) as [string, string];
      const current = this.held.get(workspace)?.get(name);
      const held = current && jsonOf(current) === json ? current : { document: JSON.parse(json) as SnapshotDocument, json };
      let named = next.get(workspace);
      if (!named) next.set(workspace, (named = new Map<string, Held>()));
      named.set(name, held);
    }
    this.held = next;
  }

  /** The workspace's snapshots; none, and dropped, when it no longer exists. */
  private of(workspace: string): Map<string, Held> {
    if (this.known(workspace)) return this.held.get(workspace) ?? new Map<string, Held>();
    this.held.delete(workspace);
    return new Map<string, Held>();
  }

  private all(): [string, string, Held][] {
    return [...this.held.keys()].flatMap((workspace) =>
      [...this.of(workspace)].map(([name, held]): [string, string, Held] => [workspace, name, held]),
    );
  }
}
