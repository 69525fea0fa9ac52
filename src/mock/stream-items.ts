import { follow, isObject } from '../openapi/json-pointer.js';
import { satisfies } from '../schemas/document-schemas.js';

/**
 * How many items a generated stream holds (decision 0020): enough to show it is a sequence, few
 * enough to read at a glance. A stream of stored records holds the page the list answers instead.
 */
export const GENERATED_ITEMS = 3;

/** Tries per item for a value that satisfies the item schema, as for any generated body. */
const ATTEMPTS = 8;

const JSON_TEXT = /^application\/(?:[\w.+-]*\+)?json$/;

/**
 * The items of a stream generated from its `itemSchema` (OpenAPI 3.2), each valid against it, the
 * same ones every time for the same seed. An SSE event whose `data` is JSON text describing a
 * `contentSchema` (`contentMediaType: application/json`, 3.2's convention for JSON in events) gets
 * a value of that schema as its text, so the event carries what the document says it does.
 *
 * @param generate a value for the schema at a pointer, by attempt (each attempt its own seed).
 */
export function generatedItems(
  document: unknown,
  itemSchemaPointer: string,
  generate: (pointer: string, attempt: number) => unknown,
): unknown[] {
  const item = follow(document, itemSchemaPointer);
  const data = isObject(item.value) && isObject(item.value.properties) ? follow(document, `${item.pointer}/properties/data`) : undefined;
  const embedded =
    data !== undefined &&
    isObject(data.value) &&
    data.value.contentSchema !== undefined &&
    JSON_TEXT.test(String(data.value.contentMediaType))
      ? `${data.pointer}/contentSchema`
      : undefined;
  const items: unknown[] = [];
  for (let i = 0; i < GENERATED_ITEMS; i++) {
    let value: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const seedOf = i * ATTEMPTS + attempt;
      value = generate(itemSchemaPointer, seedOf);
      if (embedded !== undefined && isObject(value)) value = { ...value, data: JSON.stringify(generate(embedded, seedOf)) };
      if (satisfies(document, itemSchemaPointer, value)) break;
    }
    items.push(value);
  }
  return items;
}
