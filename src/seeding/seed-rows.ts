import type { Faker } from '@faker-js/faker';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { fakerMethod } from '../mock/seeded-faker.js';
import { isObject } from '../openapi/json-pointer.js';
import type { Row } from '../vocabulary/record.js';
import type { CollectionFixture, FieldGenerator } from './fixtures.js';

/**
 * Generates `count` records for a collection: every field from the item schema, then the fields the
 * fixtures define on top (a `ref` field picks a record of `seededRows(collection)`). Ids run 1..count.
 */
export function generateRows(
  document: unknown,
  itemPointer: string | undefined,
  fixture: CollectionFixture,
  faker: Faker,
  seededRows: (collection: string) => readonly Row[],
): Row[] {
  const rows: Row[] = [];
  for (let id = 1; id <= fixture.count; id++) {
    const generated = itemPointer ? fakeFromSchema(document, itemPointer, faker) : {};
    const record: Record<string, unknown> = isObject(generated) ? { ...generated } : {};
    for (const [field, generator] of Object.entries(fixture.fields)) record[field] = generate(generator, faker, seededRows);
    delete record.id;
    rows.push({ id, ...record });
  }
  return rows;
}

function generate(generator: FieldGenerator, faker: Faker, seededRows: (collection: string) => readonly Row[]): unknown {
  if ('faker' in generator) {
    const value = (fakerMethod(faker, generator.faker) as (...args: unknown[]) => unknown)(...(generator.args ?? []));
    return value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : value;
  }
  if ('ref' in generator) {
    const rows = seededRows(generator.ref);
    return rows.length === 0 ? null : faker.helpers.arrayElement(rows).id;
  }
  if ('value' in generator) return generator.value;
  return faker.helpers.arrayElement([...generator.oneOf]);
}
