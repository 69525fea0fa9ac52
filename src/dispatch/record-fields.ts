import { answerMedia, answerResponse, listItems, propertyAt } from '../openapi/bindings.js';
import { escapePointerToken, follow, isObject } from '../openapi/json-pointer.js';
import { requiredOf } from '../openapi/required.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';

/**
 * A collection's record fields as the document describes them, worked out once per operation at
 * start-up: which a client may write, which the server keeps (timestamps, required ones), which are
 * never shown (`writeOnly`), and where an operation's record schema is.
 */

const CREATED = /^(created|creation|inserted)(_?(at|on|date|time|timestamp))?$|^date_?created$/i;
const UPDATED = /^(updated|modified|last_?modified|last_?updated|changed)(_?(at|on|date|time|timestamp))?$|^date_?(updated|modified)$/i;

/** The server-kept timestamp fields of a record schema, by name and `format: date-time`. */
export function timestampsOf(
  document: unknown,
  pointer: string | undefined,
  fields: ReadonlySet<string>,
  writable: ReadonlySet<string> | undefined,
): { readonly created: readonly string[]; readonly updated: readonly string[] } {
  const kept = [...fields].filter((name) => !writable?.has(name) && isDateTime(propertySchema(document, pointer, name)));
  return { created: kept.filter((name) => CREATED.test(name)), updated: kept.filter((name) => UPDATED.test(name)) };
}

const isDateTime = (schema: Readonly<Record<string, unknown>> | undefined): boolean =>
  schema?.format === 'date-time' && (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string')));

/** One property's schema in a record schema (through `allOf`), resolved; undefined when it has none. */
export function propertySchema(
  document: unknown,
  pointer: string | undefined,
  name: string,
): Readonly<Record<string, unknown>> | undefined {
  if (pointer === undefined) return undefined;
  const { value, pointer: at } = follow(document, pointer);
  return isObject(value) ? propertyAt(document, value, at, name)?.value : undefined;
}

export function recordPointerOf(model: ApiModel, op: OperationSpec, pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const { value, pointer: at } = follow(model.document, pointer);
  if (!isObject(value)) return at;
  if (op.binding.wrap !== undefined) return propertyAt(model.document, value, at, op.binding.wrap)?.pointer ?? at;
  if (op.binding.action !== 'list') return at;
  return listItems(model.document, value, at)?.pointer;
}

/** Property names of the schema at `pointer`, through `$ref` and `allOf`; readOnly ones only if asked. */
export function propertiesOf(
  document: unknown,
  pointer: string | undefined,
  includeReadOnly: boolean,
  depth = 0,
  leaveOut?: 'writeOnly',
): Set<string> {
  const names = new Set<string>();
  if (pointer === undefined || depth > 8) return names;
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return names;
  if (isObject(value.properties)) {
    for (const name of Object.keys(value.properties)) {
      const prop = follow(document, `${at}/properties/${escapePointerToken(name)}`).value;
      const marked = (keyword: string): boolean => isObject(prop) && prop[keyword] === true;
      if ((includeReadOnly || !marked('readOnly')) && (leaveOut === undefined || !marked(leaveOut))) names.add(name);
    }
  }
  if (Array.isArray(value.allOf)) {
    value.allOf.forEach((_, i) =>
      propertiesOf(document, `${at}/allOf/${i}`, includeReadOnly, depth + 1, leaveOut).forEach((n) => names.add(n)),
    );
  }
  return names;
}

export const NONE: ReadonlySet<string> = new Set();
const writeOnlyOf = new WeakMap<ApiModel, Map<string, ReadonlySet<string>>>();

/** The `writeOnly` properties of a collection's records, in any of its operations' request or answer schemas; once per model. */
export function writeOnlyFields(model: ApiModel, resource: string): ReadonlySet<string> {
  let byResource = writeOnlyOf.get(model);
  if (!byResource) writeOnlyOf.set(model, (byResource = new Map<string, ReadonlySet<string>>()));
  let found = byResource.get(resource);
  if (found) return found;
  const names = new Set<string>();
  for (const op of model.operations) {
    if (op.binding.resource !== resource) continue;
    const pointers = [
      ...(op.requestBody?.content.map((m) => m.schemaPointer) ?? []),
      recordPointerOf(model, op, answerMedia(answerResponse(op.responses))?.schemaPointer),
    ];
    for (const pointer of pointers) {
      const all = propertiesOf(model.document, pointer, true);
      const shown = propertiesOf(model.document, pointer, true, 0, 'writeOnly');
      for (const name of all) if (!shown.has(name)) names.add(name);
    }
  }
  byResource.set(resource, (found = names.size === 0 ? NONE : names));
  return found;
}

/** Fields a client may write: the request schema's, and for a patch the record's too (a JSON Patch body names none). */
export function writableFields(model: ApiModel, op: OperationSpec, recordPointer: string | undefined): Set<string> {
  const names = propertiesOf(model.document, recordPointer, false);
  for (const media of op.requestBody?.content ?? []) {
    // A request wrapped as the answer is (`{"order": {…}}`) writes the wrapped record's fields.
    const { value, pointer } =
      media.schemaPointer === undefined ? { value: undefined, pointer: '' } : follow(model.document, media.schemaPointer);
    const wrap = op.binding.wrap;
    const inner = wrap !== undefined && isObject(value) ? propertyAt(model.document, value, pointer, wrap)?.pointer : undefined;
    propertiesOf(model.document, inner ?? media.schemaPointer, false).forEach((n) => names.add(n));
  }
  // The store's row number is `id`; a record named by another property may hold an `id` of its own.
  const idProperty = op.binding.idProperty ?? 'id';
  if (idProperty === 'id') names.delete('id');
  names.delete(idProperty);
  return names;
}

export function ownedFieldsOf(
  document: unknown,
  pointer: string | undefined,
  writable: ReadonlySet<string> | undefined,
  idProperty: string,
): Set<string> {
  if (pointer === undefined) return new Set();
  const owned = new Set([...requiredOf(document, pointer), ...[...propertiesOf(document, pointer, true)].filter((n) => !writable?.has(n))]);
  owned.delete(idProperty);
  return owned;
}
