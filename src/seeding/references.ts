import { propertyNames, propertySchema } from '../openapi/bindings.js';
import { follow, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { singularOf } from '../resources/record-ids.js';

/**
 * Fields of a collection's records that name another collection's records, read from the names:
 * `categoryId`, `category_id`, `categoryID` or `category` name a record of `categories` (`ownerId` of
 * `owners`, `pet_id` of `pets`, Stripe's `customer` of `customers`), where the field's type fits the
 * other collection's ids (a number for whole-number ids, a string for any other). Seeded records
 * point such fields at records that exist; a fixtures file's own generator for a field wins.
 */
export function inferredReferences(
  document: unknown,
  schemas: ReadonlyMap<string, string | undefined>,
  keyed: (collection: string) => boolean,
): Map<string, Map<string, string>> {
  // Each collection by the singular of its last word; a top-level one wins over a nested one.
  const bySingular = new Map<string, string>();
  for (const name of [...schemas.keys()].sort((a, b) => a.split('/').length - b.split('/').length)) {
    const singular = singularOf(name);
    if (!bySingular.has(singular)) bySingular.set(singular, name);
  }
  const found = new Map<string, Map<string, string>>();
  for (const [name, pointer] of schemas) {
    if (pointer === undefined) continue;
    const { value: record, pointer: at } = follow(document, pointer);
    if (!isObject(record)) continue;
    const fields = new Map<string, string>();
    for (const field of propertyNames(document, record, at)) {
      const target = bySingular.get(field.replace(/(?:_id|Id|ID)$/, ''));
      if (target === undefined || target === name) continue;
      const prop = propertySchema(document, record, at, field);
      if (prop && fits(document, prop, keyed(target))) fields.set(field, target);
    }
    if (fields.size > 0) found.set(name, fields);
  }
  return found;
}

/** Whether a field can hold the other collection's ids: a number for whole numbers, a string for keys. */
function fits(document: unknown, schema: JsonObject, keyed: boolean): boolean {
  const s = typeof schema.$ref === 'string' ? follow(document, schema.$ref).value : schema;
  if (!isObject(s) || s.enum !== undefined || s.const !== undefined) return false;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return keyed ? types.includes('string') : types.includes('integer') || types.includes('number');
}
