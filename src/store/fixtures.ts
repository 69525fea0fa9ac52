import { readFile } from 'node:fs/promises';
import type { Faker } from '@faker-js/faker';
// Only the English locale: importing the package root loads every locale (about 40 MB and 110 ms
// of start-up, measured), of which the sandbox uses one.
import { faker as english } from '@faker-js/faker/locale/en';
import { load as parseYaml } from 'js-yaml';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { isObject } from '../spec/json-pointer.js';
import type { Row } from './paging.js';

/** How one field of a seeded record is made. */
export type FieldGenerator =
  | { readonly faker: string; readonly args?: readonly unknown[] }
  | { readonly ref: string }
  | { readonly value: unknown }
  | { readonly oneOf: readonly unknown[] };

export interface CollectionFixture {
  readonly count: number;
  readonly fields: Readonly<Record<string, FieldGenerator>>;
}

export interface FixtureDefinitions {
  /** The "now" that faker's date generators work from, so seeded dates never drift. */
  readonly referenceDate: Date;
  /** Records for a collection the definitions do not name. */
  readonly defaultCount: number;
  readonly collections: ReadonlyMap<string, CollectionFixture>;
}

export const NO_FIXTURES: FixtureDefinitions = { referenceDate: new Date('2026-01-01T00:00:00Z'), defaultCount: 10, collections: new Map() };

/** Reads and checks a fixtures file; a mistake stops the start with the field it is in. */
export async function loadFixtures(path: string): Promise<FixtureDefinitions> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the fixtures file ${path}: ${(error as Error).message}`);
  }
  if (!isObject(raw)) throw new Error(`the fixtures file ${path} is not a mapping`);
  const referenceDate = new Date(String(raw.referenceDate ?? NO_FIXTURES.referenceDate.toISOString()));
  if (Number.isNaN(referenceDate.getTime())) throw new Error(`${path}: referenceDate is not a date`);
  const defaults = isObject(raw.defaults) ? raw.defaults : {};
  const defaultCount = countOf(defaults.count ?? NO_FIXTURES.defaultCount, `${path}: defaults.count`);
  const collections = new Map<string, CollectionFixture>();
  for (const [name, spec] of Object.entries(isObject(raw.collections) ? raw.collections : {})) {
    const where = `${path}: collections.${name}`;
    if (!isObject(spec)) throw new Error(`${where} is not a mapping`);
    const fields: Record<string, FieldGenerator> = {};
    for (const [field, generator] of Object.entries(isObject(spec.fields) ? spec.fields : {})) {
      fields[field] = checkGenerator(generator, `${where}.fields.${field}`);
    }
    collections.set(name, { count: countOf(spec.count ?? defaultCount, `${where}.count`), fields });
  }
  return { referenceDate, defaultCount, collections };
}

function countOf(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Error(`${where} must be a whole number ≥ 0`);
  return value;
}

function checkGenerator(raw: unknown, where: string): FieldGenerator {
  if (isObject(raw) && typeof raw.faker === 'string') {
    if (typeof fakerMethod(english, raw.faker) !== 'function') throw new Error(`${where}: faker.${raw.faker} is not a faker generator`);
    if (raw.args !== undefined && !Array.isArray(raw.args)) throw new Error(`${where}.args must be a list`);
    return { faker: raw.faker, args: raw.args as unknown[] | undefined };
  }
  if (isObject(raw) && typeof raw.ref === 'string') return { ref: raw.ref };
  if (isObject(raw) && 'value' in raw) return { value: raw.value };
  if (isObject(raw) && Array.isArray(raw.oneOf) && raw.oneOf.length > 0) return { oneOf: raw.oneOf };
  throw new Error(`${where} must be one of {faker: module.method, args}, {ref: collection}, {value: v}, {oneOf: [..]}`);
}

function fakerMethod(faker: Faker, path: string): unknown {
  let node: unknown = faker;
  let owner: unknown = faker;
  for (const part of path.split('.')) {
    if (!isObject(node) && typeof node !== 'function') return undefined;
    owner = node;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'function' ? node.bind(owner) : undefined;
}

const FakerClass = english.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker;

export const seededFaker = (seed: number, referenceDate: Date): Faker => {
  const faker = new FakerClass({ locale: english.rawDefinitions });
  faker.seed(seed);
  faker.setDefaultRefDate(referenceDate);
  return faker;
};

/**
 * Generates `count` records for a collection: every field from the item schema, then the fields the
 * fixtures define on top. Ids run 1..count.
 */
export function generateRows(
  document: unknown,
  itemPointer: string | undefined,
  fixture: CollectionFixture,
  faker: Faker,
  seeded: ReadonlyMap<string, readonly Row[]>,
): Row[] {
  const rows: Row[] = [];
  for (let id = 1; id <= fixture.count; id++) {
    const generated = itemPointer ? fakeFromSchema(document, itemPointer, faker) : {};
    const record: Record<string, unknown> = isObject(generated) ? { ...generated } : {};
    for (const [field, generator] of Object.entries(fixture.fields)) record[field] = generate(generator, faker, seeded);
    delete record.id;
    rows.push({ id, ...record });
  }
  return rows;
}

function generate(generator: FieldGenerator, faker: Faker, seeded: ReadonlyMap<string, readonly Row[]>): unknown {
  if ('faker' in generator) {
    const value = (fakerMethod(faker, generator.faker) as (...args: unknown[]) => unknown)(...(generator.args ?? []));
    return value instanceof Date ? value.toISOString().replace(/\.\d{3}Z$/, 'Z') : value;
  }
  if ('ref' in generator) {
    const rows = seeded.get(generator.ref) ?? [];
    return rows.length === 0 ? null : faker.helpers.arrayElement(rows).id;
  }
  if ('value' in generator) return generator.value;
  return faker.helpers.arrayElement([...generator.oneOf]);
}
