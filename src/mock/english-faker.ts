import type { Faker } from '@faker-js/faker';
import { createRequire } from 'node:module';

/**
 * Loads faker's English locale (only it: the package root loads every locale, about 40 MB and
 * 110 ms, measured), the one faker the sandbox uses. Called on first use, never at module load:
 * faker costs a start about 30 ms (its code, and its locale's data built into objects), and a start
 * whose seed is kept (seeding/kept-seed.ts) never needs it. The bundle replaces this module by one
 * that runs faker's own bundle with its code cache (scripts/bundle.mjs).
 */
export function loadEnglishFaker(): Faker {
  return (createRequire(import.meta.url)('@faker-js/faker/locale/en') as { faker: Faker }).faker;
}
