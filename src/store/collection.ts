import { copyFields, KEY_FIELD, keyOf, type MintKey, type Row } from '../vocabulary/record.js';
import { firstAfter, paginate, type Page, type PageQuery } from './paging.js';
import type { Inserted, Lookup } from './record-store.js';

export type Replacement = { readonly kind: 'found'; readonly row: Row; readonly before: Row } | { readonly kind: 'not-found' };

/** How many minted keys a create tries before it gives up: each is tried only if the one before was taken. */
const MINT_ATTEMPTS = 64;

/**
 * One collection of records, kept in ascending row-number order with a key index beside it. It
 * knows nothing of HTTP. Row numbers are assigned synchronously from a counter, so concurrent
 * creates can never share one; a client-sent `id` is never honoured. A record is found by its key
 * (vocabulary/record.ts): the row number as text in a collection of whole-number ids, else the key
 * it was created under (minted, or the client's own).
 */
export class Collection {
  private readonly index = new Map<string, Row>();
  private nextId: number;

  /**
   * @param rows the backing array (the store's document); kept sorted by row number.
   * @param next the row number the next record takes, when known (a snapshot, a data file); else the one after the last row.
   */
  constructor(
    readonly name: string,
    private readonly rows: Row[],
    next?: number,
  ) {
    for (const row of rows) this.index.set(keyOf(row), row);
    this.nextId = Math.max(next ?? 0, (rows.at(-1)?.id ?? 0) + 1);
  }

  /** The row number the next record takes (before skipping numbers taken meanwhile by a put). */
  get next(): number {
    return this.nextId;
  }

  /** Whether `next` is past what the rows alone give (the last record was deleted): a data file then keeps it. */
  get nextKept(): boolean {
    return this.nextId !== (this.rows.at(-1)?.id ?? 0) + 1;
  }

  /** The next record takes at least this number (a logged delete replayed: numbers are never reused). */
  advance(next: number): void {
    if (next > this.nextId) this.nextId = next;
  }

  /** The records, in row order, as a new list (a workspace's first write copies the seed's). */
  rowsCopy(): Row[] {
    return [...this.rows];
  }

  get size(): number {
    return this.rows.length;
  }

  list(query: PageQuery): Page {
    return paginate(this.rows, query);
  }

  /** Whether a record has this key (a write checks before copying the seed for a workspace). */
  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): Lookup {
    const row = this.index.get(key);
    return row ? { kind: 'found', row } : { kind: 'not-found' };
  }

  /**
   * A new record under the next row number; with `mint`, under a key minted from that number (the
   * next numbers are tried while a minted key is taken: a client may have chosen it).
   */
  create(fields: Readonly<Record<string, unknown>>, mint?: MintKey): Row {
    // A number taken by a record put under it (PUT to a new id) is skipped: numbers are never reused.
    while (this.index.has(String(this.nextId)) && mint === undefined) this.nextId++;
    let key: string | undefined;
    for (let attempt = 0; mint !== undefined && key === undefined; attempt++) {
      const candidate = mint(String(this.nextId));
      if (!this.index.has(candidate)) key = candidate;
      else if (attempt === MINT_ATTEMPTS) throw new Error(`no free key for a new ${this.name} record after ${MINT_ATTEMPTS} tries`);
      else this.nextId++;
    }
    return this.add(rowOf(this.nextId++, fields, key));
  }

  /** A new record under the key the client chose, unless a record has it already. */
  insert(key: string, fields: Readonly<Record<string, unknown>>): Inserted {
    const taken = this.index.get(key);
    if (taken) return { kind: 'taken', row: taken };
    return { kind: 'created', row: this.add(rowOf(this.nextId++, fields, key)) };
  }

  replace(key: string, fields: Readonly<Record<string, unknown>>): Replacement {
    const before = this.index.get(key);
    if (!before) return { kind: 'not-found' };
    const row = rowOf(before.id, fields, keyField(before));
    this.rows[this.positionOf(before.id)] = row;
    this.index.set(key, row);
    return { kind: 'found', row, before };
  }

  /**
   * Stores a record under `key`, replacing one that has it or adding it (PUT, RFC 9110 §9.3.4): a
   * numbered collection's record takes the number the key names, a keyed one the next row number.
   */
  put(key: string, fields: Readonly<Record<string, unknown>>, keyed: boolean): { readonly row: Row; readonly before: Row | undefined } {
    const before = this.index.get(key);
    const id = before?.id ?? (keyed ? this.nextId++ : Number(key));
    const row = rowOf(id, fields, keyed ? key : undefined);
    this.restore(row);
    return { row, before };
  }

  /** Puts a record back as it was (undoing a replace or delete whose write failed). */
  restore(row: Row): void {
    const key = keyOf(row);
    // A keyed record's number was the counter's (a log replayed at start): the next create follows it.
    if (keyField(row) !== undefined && row.id >= this.nextId) this.nextId = row.id + 1;
    // Past the last row (a log replayed at start, in row order): appended, with no search.
    const last = this.rows.at(-1);
    if (last === undefined || row.id > last.id) {
      this.rows.push(row);
      this.index.set(key, row);
      return;
    }
    const at = this.positionOf(row.id);
    if (this.rows[at]?.id === row.id) this.rows[at] = row;
    else this.rows.splice(at, 0, row);
    this.index.set(key, row);
  }

  delete(key: string): Lookup {
    const row = this.index.get(key);
    if (!row) return { kind: 'not-found' };
    this.rows.splice(this.positionOf(row.id), 1);
    this.index.delete(key);
    return { kind: 'found', row };
  }

  /** Appends a new record: numbers only grow, so it goes last unless a record was put under a higher number. */
  private add(row: Row): Row {
    if ((this.rows.at(-1)?.id ?? 0) < row.id) this.rows.push(row);
    else this.rows.splice(this.positionOf(row.id), 0, row);
    this.index.set(keyOf(row), row);
    return row;
  }

  private positionOf(id: number): number {
    return firstAfter(this.rows, id - 1);
  }
}

const keyField = (row: Row): string | undefined => {
  const key = row[KEY_FIELD];
  return typeof key === 'string' ? key : undefined;
};

/** A row: the row number, the key where the collection is keyed, then every field but a sent `id` or key. */
function rowOf(id: number, fields: Readonly<Record<string, unknown>>, key: string | undefined): Row {
  const row: Record<string, unknown> = key === undefined ? { id } : { id, [KEY_FIELD]: key };
  copyFields(row, fields, 'id', KEY_FIELD);
  return row as Row;
}
