import { createHash } from 'node:crypto';
import { follow, isObject } from '../openapi/json-pointer.js';
import { propertyAt } from '../openapi/bindings.js';
import { satisfies } from '../schemas/document-schemas.js';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { seededFaker } from '../mock/seeded-faker.js';
import { copyFields, KEY_FIELD, keyOf, OWN_ID_FIELD, SCOPE_FIELD, type Row } from '../vocabulary/record.js';
import type { ResolvedBinding } from './resolve-binding.js';

/** Records between the store and the answer: as the document shows them, and as they are stored. */

/**
 * A stored row as the document shows it: the id under its property (the key in a keyed collection,
 * else the row number), the row number of a keyed record and the parent scope hidden.
 */
export function present(row: Row, idProperty: string): Readonly<Record<string, unknown>> {
  // Most records need no change: answered as stored, with no copy per record of every page.
  if (idProperty === 'id' && !Object.hasOwn(row, SCOPE_FIELD) && !Object.hasOwn(row, KEY_FIELD)) return row;
  const { id: number, [SCOPE_FIELD]: _scope, [KEY_FIELD]: key, [OWN_ID_FIELD]: ownId, ...fields } = row;
  const id = typeof key === 'string' ? key : number;
  if (idProperty === 'id') return { id, ...fields };
  // A keyed record's own `id` field (a label named by `name` with a numeric `id` too) shows as `id`.
  return ownId === undefined ? { ...fields, [idProperty]: id } : { id: ownId, ...fields, [idProperty]: id };
}

/**
 * The fields to store for a record whose id property is not `id` (`username`, an issue's `number`):
 * an `id` field of its own is kept beside the row number (OWN_ID_FIELD), which would otherwise take its place.
 */
/** Stored fields as the record schema sees them: a keyed record's own id back under `id`. */
export function asShown(fields: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (!Object.hasOwn(fields, OWN_ID_FIELD)) return fields;
  const { [OWN_ID_FIELD]: id, ...rest } = fields;
  return { id, ...rest };
}

export function withOwnId<T extends Readonly<Record<string, unknown>>>(binding: ResolvedBinding, fields: T): T {
  if (binding.idProperty === 'id' || !Object.hasOwn(fields, 'id')) return fields;
  const { id, ...rest } = fields;
  return { ...rest, [OWN_ID_FIELD]: id } as unknown as T;
}

/**
 * A stored row as this operation answers it: presented, with any required field of the answer's
 * record schema it lacks generated, deterministically per operation and record. Rows written
 * through another operation of the collection may lack them; most rows lack none and are not copied.
 */
export function forAnswer(binding: ResolvedBinding, row: Row): Readonly<Record<string, unknown>> {
  const whole =
    binding.hidden.size === 0 ? present(row, binding.idProperty) : withoutHidden(present(row, binding.idProperty), binding.hidden);
  const presented = binding.closedTo === undefined ? whole : within(whole, binding.closedTo);
  const pointer = binding.recordPointer;
  if (pointer === undefined || hasAll(presented, binding.answerRequired)) return presented;
  const seed = createHash('sha256')
    .update(`${binding.operation.id}:${keyOf(row)}`)
    .digest()
    .readUInt32BE(0);
  const generated = fakeFromSchema(binding.document, pointer, seededFaker(seed, new Date('2026-01-01T00:00:00Z')));
  const out: Record<string, unknown> = { ...presented };
  for (const name of binding.answerRequired)
    if (!Object.hasOwn(out, name) && isObject(generated) && Object.hasOwn(generated, name)) out[name] = generated[name];
  return out;
}

/** Whether a record has every one of these fields (a loop: it runs for every record of every page). */
function hasAll(record: Readonly<Record<string, unknown>>, names: readonly string[]): boolean {
  for (const name of names) if (!Object.hasOwn(record, name)) return false;
  return true;
}

/** A record with only the fields a closed schema allows (the others stay stored, for the views that show them). */
function within(record: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>): Readonly<Record<string, unknown>> {
  if (Object.keys(record).every((name) => allowed.has(name))) return record;
  return Object.fromEntries(Object.entries(record).filter(([name]) => allowed.has(name)));
}

/** A record without its write-only fields (a password is stored, never sent back). */
function withoutHidden(record: Readonly<Record<string, unknown>>, hidden: ReadonlySet<string>): Readonly<Record<string, unknown>> {
  if (!Object.keys(record).some((name) => hidden.has(name))) return record;
  return Object.fromEntries(Object.entries(record).filter(([name]) => !hidden.has(name)));
}

/** The parent path parameters' values of a nested collection (`"1"` under `/users/1/orders`), or undefined. */
export function scopeOf(binding: ResolvedBinding, path: Readonly<Record<string, unknown>>): string | undefined {
  return binding.scope.length === 0 ? undefined : binding.scope.map((name) => String(path[name])).join('/');
}

/** The parent fields of a nested view, with the path's values (`userId: 7` under `/users/7/orders`). */
export function parentValues(binding: ResolvedBinding, path: Readonly<Record<string, unknown>>): [field: string, value: unknown][] {
  return binding.parentFields.map(({ param, field, numeric }) => {
    const raw = path[param];
    const value = numeric && typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    return [field, value];
  });
}

/** Whether a record belongs under the parent the path names (always, outside a nested view). */
export function belongs(row: Row, parents: readonly [string, unknown][]): boolean {
  for (const [field, value] of parents) if (row[field] !== value && String(row[field]) !== String(value)) return false;
  return true;
}

/** Only the fields a client may write; anything else in the body is dropped, never stored. */
export function pick(body: unknown, writable: ReadonlySet<string> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(body) || !writable) return out;
  for (const name of writable) if (Object.hasOwn(body, name)) out[name] = body[name];
  return out;
}

/** Fields the client cannot write (`createdAt`), kept through a replace or a patch. */
export function serverFields(row: Row, writable: ReadonlySet<string> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row))
    if (name !== 'id' && name !== SCOPE_FIELD && name !== KEY_FIELD && !writable?.has(name)) out[name] = value;
  return out;
}

/**
 * The record to store from what the client wrote: its writable fields, over the server's own fields
 * (`createdAt`, `status`: kept from `base` on a replace, generated on a create) and any required
 * field still missing, generated from the record schema, deterministically from what was written.
 * Undefined when even that record would break the schema the operation answers with: then the
 * operation is answered from the document and nothing is stored.
 */
export function completeRecord(
  document: unknown,
  binding: ResolvedBinding,
  written: Readonly<Record<string, unknown>>,
  base: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> | undefined {
  const pointer = binding.recordPointer;
  const { idProperty } = binding;
  // `{ ...base, ...written }` without the id, in one pass (on every create and replace).
  const record: Record<string, unknown> = {};
  copyFields(record, base, idProperty);
  copyFields(record, written, idProperty);
  if (pointer === undefined) return record;
  let generated: unknown;
  const generate = (): unknown => {
    const seed = createHash('sha256')
      .update(`${binding.operation.id}:${JSON.stringify(written)}`)
      .digest()
      .readUInt32BE(0);
    return (generated ??= fakeFromSchema(document, pointer, seededFaker(seed, new Date('2026-01-01T00:00:00Z'))));
  };
  const missing: string[] = [];
  for (const name of binding.ownedFields) if (!Object.hasOwn(record, name)) missing.push(name);
  if (missing.length > 0) {
    const made = generate();
    for (const name of missing) if (isObject(made) && Object.hasOwn(made, name)) record[name] = made[name];
  }
  const valid = (): boolean => {
    const probe: Record<string, unknown> = { [idProperty]: binding.sampleId() };
    copyFields(probe, asShown(record));
    return satisfies(document, pointer, probe);
  };
  if (valid()) return withOwnId(binding, record);
  // A field the client wrote that the record types otherwise (GitHub's `repositories`: names in the
  // request, repositories in the record) takes a generated value, as a server would fill its own.
  const made = generate();
  const fixed = repairFields(document, pointer, record, Object.keys(written), (name) =>
    isObject(made) && Object.hasOwn(made, name) ? made[name] : undefined,
  );
  return fixed && valid() ? withOwnId(binding, record) : undefined;
}

/**
 * Replaces, in `record`, each of the `names` whose value breaks its property's schema in the record
 * schema at `pointer` by `fallback(name)` (removed when that is undefined). Whether any was replaced.
 */
export function repairFields(
  document: unknown,
  pointer: string,
  record: Record<string, unknown>,
  names: Iterable<string>,
  fallback: (name: string) => unknown,
): boolean {
  const { value: schema, pointer: at } = follow(document, pointer);
  if (!isObject(schema)) return false;
  let changed = false;
  for (const name of names) {
    if (!Object.hasOwn(record, name)) continue;
    const prop = propertyAt(document, schema, at, name);
    if (prop === undefined || satisfies(document, prop.pointer, record[name])) continue;
    const value = fallback(name);
    if (value === undefined) Reflect.deleteProperty(record, name);
    else record[name] = value;
    changed = true;
  }
  return changed;
}
