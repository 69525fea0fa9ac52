import type { Seeder } from '../seeding/seeder.js';
import type { MintKey, Row } from '../vocabulary/record.js';
import type { Page, PageQuery } from './paging.js';

export type Lookup = { readonly kind: 'found'; readonly row: Row } | { readonly kind: 'not-found' };

/** What an `update` did: the changed record, no record with that id, or a change its function refused. */
export type Update = Lookup | { readonly kind: 'refused' };

/** What an `insert` did: stored the record, or found the key taken (the record holding it). */
export type Inserted = { readonly kind: 'created'; readonly row: Row } | { readonly kind: 'taken'; readonly row: Row };

/**
 * The record-store contract dispatch works through: records per workspace and collection (every
 * workspace starts from the same seeded records and sees only its own writes), each change atomic
 * and durable once its promise resolves (a change that cannot be made durable is undone and
 * rejects). Asynchronous, so a shared store (Redis, say) can fulfil it; the in-memory store,
 * optionally persisted to a file, is the default. Records are named by their key (a string:
 * vocabulary/record.ts): in a collection of whole-number ids the row number the store assigns, else
 * a key minted by `create` or chosen by the client (`insert`, `put`). The store assigns row numbers
 * and keeps keys: a client-sent `id` or key field is never honoured as one.
 */
export interface RecordStore {
  list(workspace: string, collection: string, query: PageQuery): Promise<Page>;
  get(workspace: string, collection: string, key: string): Promise<Lookup>;
  /** A new record under the next row number; with `mint`, under a key minted from it that no record holds. */
  create(workspace: string, collection: string, fields: Readonly<Record<string, unknown>>, mint?: MintKey): Promise<Row>;
  /** A new record under the key the client chose, unless a record holds it already (then nothing is written). */
  insert(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Inserted>;
  replace(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Lookup>;
  /**
   * Stores the record under `key`, creating it or replacing it (PUT semantics, RFC 9110 §9.3.4). In a
   * numbered collection (`keyed` false) the key is the row number, a whole number as text.
   */
  put(workspace: string, collection: string, key: string, fields: Readonly<Record<string, unknown>>, keyed: boolean): Promise<Row>;
  /**
   * Reads and changes one record in one atomic step (PATCH): `change` gets the record as stored and
   * returns its new fields (the id is kept), or undefined to leave it as it is (`refused`).
   */
  update(
    workspace: string,
    collection: string,
    key: string,
    change: (current: Row) => Readonly<Record<string, unknown>> | undefined,
  ): Promise<Update>;
  delete(workspace: string, collection: string, key: string): Promise<Lookup>;
  /** Every workspace back to the seeded state. */
  reset(): Promise<void>;
  /** One workspace back to the seeded state, every other untouched (a workspace reset or removed). */
  forget(workspace: string): Promise<void>;
  /** How many records the workspace has written since it was last forgotten or reset (for the admin list). */
  writes(workspace: string): number;
  /** A digest of one workspace's records (the default one's unless named), to prove that a failed request changed nothing. */
  digest(workspace?: string): Promise<string>;
  /** Makes every acknowledged change durable and lets go of the store's resources (files, connections). */
  close(): Promise<void>;
}

/** One collection's records as stored: the seed's (`workspace` undefined) or a workspace's own. */
export interface StoredRecords {
  readonly workspace: string | undefined;
  readonly collection: string;
  readonly rows: readonly Row[];
}

/** One of a workspace's own collections as a snapshot holds it: its records in row order, and the row number the next one takes. */
export interface CapturedCollection {
  readonly next: number;
  readonly rows: readonly Row[];
}

/** A workspace's own collections (those it has written), by name: none for a workspace that only read. */
export type CapturedRecords = Readonly<Record<string, CapturedCollection>>;

/** What the sandbox asks of its store beyond the request path: reloads, snapshots, and the data file's extra state. */
export interface SandboxStore extends RecordStore {
  /** The workspace's own collections as they are now (a snapshot's records); a workspace that never wrote has none. */
  capture(workspace: string): Promise<CapturedRecords>;
  /**
   * The workspace's own collections become exactly these, each with its next row number (a snapshot
   * restored): a collection not named reads the seed again. Durable once it resolves.
   */
  restore(workspace: string, records: CapturedRecords): Promise<void>;
  /** Seeds from a reloaded document from now on (collections seeded already keep their records). */
  useSeeder(seeder: Seeder): void;
  /** Every stored collection, for a reload to check against the new document. */
  stored(): Iterable<StoredRecords> | AsyncIterable<StoredRecords>;
  /** What the data file kept beside the records; undefined without one. */
  kept(): unknown;
  keep(value: unknown): Promise<void>;
}
