import type { Faker } from '@faker-js/faker';
import { loadEnglishFaker } from './english-faker.js';

let english: Faker | undefined;
/** The English faker, loaded on first use. */
const englishFaker = (): Faker => (english ??= loadEnglishFaker());

/** The generator at `path` (`person.firstName`), bound to its module, or undefined. */
export function fakerMethod(faker: Faker, path: string): unknown {
  let node: unknown = faker;
  let owner: unknown = faker;
  for (const part of path.split('.')) {
    if ((typeof node !== 'object' || node === null) && typeof node !== 'function') return undefined;
    owner = node;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'function' ? node.bind(owner) : undefined;
}

/** A faker of its own, seeded, with dates relative to `referenceDate`: the same seed, the same values. */
export const seededFaker = (seed: number, referenceDate: Date): Faker => {
  const english = englishFaker();
  const FakerClass = english.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker;
  const faker = new FakerClass({ locale: english.rawDefinitions });
  faker.seed(seed);
  faker.setDefaultRefDate(referenceDate);
  return faker;
};

/**
 * Every generator a fixtures file may name, `module.method` (`person.firstName`): each function of
 * each of faker's modules (the modules are the faker's own properties that are class instances;
 * their methods are on their prototypes).
 */
export function fakerGenerators(faker: Faker): string[] {
  const names: string[] = [];
  for (const [module, value] of Object.entries(faker)) {
    if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) === Object.prototype) continue;
    const methods = new Set<string>();
    for (let at: object | null = value as object; at !== null && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
      for (const name of Object.getOwnPropertyNames(at)) {
        if (name !== 'constructor' && typeof (value as Record<string, unknown>)[name] === 'function') methods.add(name);
      }
    }
    for (const method of [...methods].sort()) names.push(`${module}.${method}`);
  }
  return names;
}

/**
 * Set in the bundle the bin runs (scripts/bundle.mjs), as JSON: fakerGenerators of the faker it
 * holds. A start checks the generators a fixtures file names without loading faker.
 */
declare const UNDERSTUDY_FAKER_GENERATORS: string | undefined;
let generators: ReadonlySet<string> | undefined;

/** Whether `path` names a faker generator (`person.firstName`). */
export function isFakerGenerator(path: string): boolean {
  generators ??= new Set(
    typeof UNDERSTUDY_FAKER_GENERATORS === 'string'
      ? (JSON.parse(UNDERSTUDY_FAKER_GENERATORS) as string[])
      : fakerGenerators(englishFaker()),
  );
  return generators.has(path);
}
