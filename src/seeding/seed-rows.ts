import type { Faker } from '@faker-js/faker';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { fakerMethod } from '../mock/seeded-faker.js';
import { isObject } from '../openapi/json-pointer.js';
import { KEY_FIELD, keyOf, OWN_ID_FIELD, type MintKey, type Row } from '../vocabulary/record.js';
import type { CollectionFixture, FieldGenerator } from './fixtures.js';

const NO_REFERENCES: ReadonlyMap<string, string> = new Map();

/** How a keyed collection's seeded records get their keys: the generated id where it is a fresh string, else a minted one. */
export interface SeedKeys {
  readonly idProperty: string;
  readonly mint: MintKey;
  /** Whether a generated id is one the collection could have minted (its prefix, pattern, lengths). */
  readonly fits: (value: string) => boolean;
}

/**
 * Generates `count` records for a collection: every field from the item schema, then the fields the
 * fixtures define on top (a `ref` field picks a record of `seededRows(collection)`), and the fields
 * that name another collection's records (`references`: field → collection) one of those. Row numbers run
 * 1..count; in a keyed collection each record's key is the id generated for it (a realistic
 * username or UUID) unless another record has it already or it does not fit the kind (a `cus_`
 * prefix the generator did not follow), then one minted from its row number.
 */
export function generateRows(
  document: unknown,
  itemPointer: string | undefined,
  fixture: CollectionFixture,
  faker: Faker,
  seededRows: (collection: string) => readonly Row[],
  keys?: SeedKeys,
  references: ReadonlyMap<string, string> = NO_REFERENCES,
  idProperty = 'id',
): Row[] {
  const rows: Row[] = [];
  const used = new Set<string>();
  for (let id = 1; id <= fixture.count; id++) {
    const generated = itemPointer ? fakeFromSchema(document, itemPointer, faker) : {};
    const record: Record<string, unknown> = isObject(generated) ? { ...generated } : {};
    for (const [field, generator] of Object.entries(fixture.fields)) record[field] = generate(generator, faker, seededRows);
    // A field naming another collection's record (references.ts) points at one that exists.
    for (const [field, target] of references) {
      if (Object.hasOwn(fixture.fields, field)) continue;
      const targets = seededRows(target);
      if (targets.length > 0) record[field] = refId(faker.helpers.arrayElement([...targets]));
    }
    if (keys === undefined) {
      // A record named by another property (an issue's `number`) keeps its own `id` beside the row number.
      const { id: generatedId, ...fields } = record;
      rows.push(idProperty !== 'id' && generatedId !== undefined ? { id, [OWN_ID_FIELD]: generatedId, ...fields } : { id, ...fields });
      continue;
    }
    const own = record[keys.idProperty];
    const key = typeof own === 'string' && keys.fits(own) && !used.has(own) ? own : keys.mint(String(id));
    used.add(key);
    const { id: generatedId, [keys.idProperty]: _own, ...fields } = record;
    // A record's own `id` beside another id property (a label's numeric `id`) is kept beside the row number.
    const ownId = keys.idProperty !== 'id' && generatedId !== undefined ? { [OWN_ID_FIELD]: generatedId } : {};
    rows.push({ id, [KEY_FIELD]: key, ...ownId, ...fields });
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
    return rows.length === 0 ? null : refId(faker.helpers.arrayElement(rows));
  }
  if ('value' in generator) return generator.value;
  return faker.helpers.arrayElement([...generator.oneOf]);
}

/** A referenced record's id as its collection shows it: its key, or its row number. */
const refId = (row: Row): string | number => (typeof row[KEY_FIELD] === 'string' ? keyOf(row) : row.id);
