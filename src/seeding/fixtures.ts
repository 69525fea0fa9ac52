import { readFile } from 'node:fs/promises';
import { isFakerGenerator } from '../mock/seeded-faker.js';
import { isObject } from '../openapi/json-pointer.js';
import { parseYaml } from '../openapi/parse-yaml.js';

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

export const NO_FIXTURES: FixtureDefinitions = {
  referenceDate: new Date('2026-01-01T00:00:00Z'),
  defaultCount: 10,
  collections: new Map(),
};

/**
 * Reads and checks a fixtures file; a mistake stops the start with the field it is in. `cacheDir`:
 * where parsed YAML is cached (openapi/parse-yaml.ts), or null.
 */
export async function loadFixtures(path: string, cacheDir: string | null = null): Promise<FixtureDefinitions> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(path, 'utf8'), cacheDir);
  } catch (error) {
    throw new Error(`cannot read the fixtures file ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!isObject(raw)) throw new Error(`the fixtures file ${path} is not a mapping`);
  const given = raw.referenceDate ?? NO_FIXTURES.referenceDate;
  // YAML reads an unquoted timestamp as a Date; a quoted one is a string.
  const referenceDate = given instanceof Date ? given : new Date(typeof given === 'string' ? given : NaN);
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
    if (!isFakerGenerator(raw.faker)) throw new Error(`${where}: faker.${raw.faker} is not a faker generator (module.method)`);
    if (raw.args !== undefined && !Array.isArray(raw.args)) throw new Error(`${where}.args must be a list`);
    return { faker: raw.faker, args: raw.args as unknown[] | undefined };
  }
  if (isObject(raw) && typeof raw.ref === 'string') return { ref: raw.ref };
  if (isObject(raw) && 'value' in raw) return { value: raw.value };
  if (isObject(raw) && Array.isArray(raw.oneOf) && raw.oneOf.length > 0) return { oneOf: raw.oneOf };
  throw new Error(`${where} must be one of {faker: module.method, args}, {ref: collection}, {value: v}, {oneOf: [..]}`);
}
