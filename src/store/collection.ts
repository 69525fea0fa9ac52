import { copyFields, type Row } from '../vocabulary/record.js';
import { firstAfter, paginate, type Page, type PageQuery } from './paging.js';
import type { Lookup } from './record-store.js';

export type Replacement = { readonly kind: 'found'; readonly row: Row; readonly before: Row } | { readonly kind: 'not-found' };

/**
 * One collection of records, kept in ascending id order with an id index beside it. It knows
 * nothing of HTTP. Ids are assigned synchronously from a counter, so concurrent creates can never
 * share one; a client-sent id is never honoured.
 */
export class Collection {
  private readonly index = new Map<number, Row>();
  private nextId: number;

  /** @param rows the backing array (the store's document); kept sorted by id. */
  constructor(
    readonly name: string,
    private readonly rows: Row[],
  ) {
    for (const row of rows) this.index.set(row.id, row);
    this.nextId = (rows.at(-1)?.id ?? 0) + 1;
  }

  /** The records, in id order, as a new list (a workspace's first write copies the seed's). */
  rowsCopy(): Row[] {
    return [...this.rows];
  }

  get size(): number {
    return this.rows.length;
  }

  list(query: PageQuery): Page {
    return paginate(this.rows, query);
  }

  /** Whether a record has this id (a write checks before copying the seed for a workspace). */
  has(id: number): boolean {
    return this.index.has(id);
  }

  get(id: number): Lookup {
    const row = this.index.get(id);
    return row ? { kind: 'found', row } : { kind: 'not-found' };
  }

  create(fields: Readonly<Record<string, unknown>>): Row {
    // An id taken by a record put under it (PUT to a new id) is skipped: ids are never reused.
    while (this.index.has(this.nextId)) this.nextId++;
    const row = rowOf(this.nextId++, fields);
    // Rows stay in id order: at the end, unless a record was put under a higher id.
    if ((this.rows.at(-1)?.id ?? 0) < row.id) this.rows.push(row);
    else this.rows.splice(this.positionOf(row.id), 0, row);
    this.index.set(row.id, row);
    return row;
  }

  replace(id: number, fields: Readonly<Record<string, unknown>>): Replacement {
    const before = this.index.get(id);
    if (!before) return { kind: 'not-found' };
    const row = rowOf(id, fields);
    this.rows[this.positionOf(id)] = row;
    this.index.set(id, row);
    return { kind: 'found', row, before };
  }

  /** Stores a record under `id`, replacing one that has it or adding it (PUT, RFC 9110 §9.3.4). */
  put(id: number, fields: Readonly<Record<string, unknown>>): { readonly row: Row; readonly before: Row | undefined } {
    const before = this.index.get(id);
    const row = rowOf(id, fields);
    this.restore(row);
    return { row, before };
  }

  /** Puts a record back as it was (undoing a replace or delete whose write failed). */
  restore(row: Row): void {
    // Past the last id (a log replayed at start, in id order): appended, with no search.
    const last = this.rows.at(-1);
    if (last === undefined || row.id > last.id) {
      this.rows.push(row);
      this.index.set(row.id, row);
      return;
    }
    const at = this.positionOf(row.id);
    if (this.index.has(row.id)) this.rows[at] = row;
    else this.rows.splice(at, 0, row);
    this.index.set(row.id, row);
  }

  delete(id: number): Lookup {
    const row = this.index.get(id);
    if (!row) return { kind: 'not-found' };
    this.rows.splice(this.positionOf(id), 1);
    this.index.delete(id);
    return { kind: 'found', row };
  }

  private positionOf(id: number): number {
    return firstAfter(this.rows, id - 1);
  }
}

/** A row: the id, then every field but a client-sent `id`. */
function rowOf(id: number, fields: Readonly<Record<string, unknown>>): Row {
  const row: Record<string, unknown> = { id };
  copyFields(row, fields, 'id');
  return row as Row;
}
