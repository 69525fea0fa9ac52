/**
 * A stored record: any fields, and the row number the store assigns (`id`: the order records are
 * listed in, and what a page's cursor continues after). A collection whose records are named by a
 * whole number shows the row number as the record's id; any other collection (UUIDs, `cus_…`,
 * usernames, slugs) keeps each record's own id, its key, under `KEY_FIELD` beside it.
 */
export type Row = Readonly<Record<string, unknown>> & { readonly id: number };

/** The field a record's key is kept in, in collections whose ids are not the row number; never shown in an answer. */
export const KEY_FIELD = '__key';

/**
 * Where a record named by another property keeps an `id` field of its own (a label named by `name`,
 * an issue by `number`, each with an `id` too): a row's `id` is its row number, so the record's is
 * stored beside it; never shown under this name.
 */
export const OWN_ID_FIELD = '__id';

/** What a record is named by in its item path: its key, else its row number (`"17"`). */
export function keyOf(row: Row): string {
  const key = row[KEY_FIELD];
  return typeof key === 'string' ? key : String(row.id);
}

/** Mints a new record's key from a salt unique to that record: the same salt always gives the same key. */
export type MintKey = (salt: string) => string;

/**
 * The field a nested collection's records keep their parent's path parameters in (`"1"` for
 * `/users/1/orders`, `"1/7"` two levels down); never shown in an answer.
 */
export const SCOPE_FIELD = '__scope';

/**
 * Copies `from`'s own fields onto `into`, but those named `except` and `alsoExcept`, in one pass (`{ ...a, ...b }`
 * less a field costs a copy per step on every write). A field named `__proto__` (a JSON body may
 * have one) is copied as a field like any other, never as the prototype.
 */
export function copyFields(
  into: Record<string, unknown>,
  from: Readonly<Record<string, unknown>>,
  except?: string,
  alsoExcept?: string,
): void {
  for (const name of Object.keys(from)) {
    if (name === except || name === alsoExcept) continue;
    if (name === '__proto__')
      Object.defineProperty(into, name, { value: from[name], enumerable: true, writable: true, configurable: true });
    else into[name] = from[name];
  }
}

/**
 * A change a request made to the store, as the journal (and later webhooks) read it: which record
 * of which collection in which workspace, what happened to it, and the record as the document
 * shows it before and after (no `before` for a create, no `after` for a delete).
 */
export interface StoreChange {
  readonly workspace: string;
  readonly collection: string;
  /** The record's id as its item path names it. */
  readonly id: string;
  readonly kind: 'created' | 'replaced' | 'patched' | 'deleted';
  readonly before?: Readonly<Record<string, unknown>>;
  readonly after?: Readonly<Record<string, unknown>>;
}

/** A change as the journal names it: `created pets/17`, `updated pets/3` (a patch or an action). */
export const describeChange = (change: StoreChange): string =>
  `${change.kind === 'patched' ? 'updated' : change.kind} ${change.collection}/${change.id}`;
