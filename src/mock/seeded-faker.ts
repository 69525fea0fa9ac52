import type { Faker } from '@faker-js/faker';
// Only the English locale: importing the package root loads every locale (about 40 MB and 110 ms
// of start-up, measured), of which the sandbox uses one.
import { faker as english } from '@faker-js/faker/locale/en';

/** The English faker, for checking that a generator named in a fixtures file exists. */
export const englishFaker: Faker = english;

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

const FakerClass = english.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker;

/** A faker of its own, seeded, with dates relative to `referenceDate`: the same seed, the same values. */
export const seededFaker = (seed: number, referenceDate: Date): Faker => {
  const faker = new FakerClass({ locale: english.rawDefinitions });
  faker.seed(seed);
  faker.setDefaultRefDate(referenceDate);
  return faker;
};
