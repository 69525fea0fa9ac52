import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadEnglishFaker } from '../../src/mock/english-faker.js';
import { fakerGenerators } from '../../src/mock/seeded-faker.js';
import { loadFixtures } from '../../src/seeding/fixtures.js';

/** What a fixtures file may name as `faker: module.method`: the bundle holds the same list (scripts/bundle.mjs). */
describe("faker's generators", () => {
  const generators = fakerGenerators(loadEnglishFaker());

  it('are the methods of its modules, and only those', () => {
    expect(generators).toEqual(
      expect.arrayContaining(['person.firstName', 'animal.petName', 'number.int', 'helpers.arrayElement', 'date.soon']),
    );
    expect(generators.every((name) => /^[a-z]+\.[A-Za-z0-9]+$/.test(name))).toBe(true);
    for (const name of ['seed', 'setDefaultRefDate', 'person.constructor', 'rawDefinitions.animal', 'fakerCore.randomizer'])
      expect(generators).not.toContain(name);
  });

  const fixtures = (generator: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-generators-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'fixtures.yaml');
    writeFileSync(file, `collections:\n  pets:\n    count: 3\n    fields:\n      name: { faker: ${generator} }\n`);
    return file;
  };

  it.each(['person.firstName', 'animal.petName'])('%s is taken in a fixtures file', async (generator) => {
    const loaded = await loadFixtures(fixtures(generator));
    expect(loaded.collections.get('pets')?.fields.name).toEqual({ faker: generator });
  });

  it.each(['person.nickname', 'seed', 'person', 'rawDefinitions.animal.dog', 'helpers.arrayElement.call'])(
    '%s stops the start, named with its place',
    async (generator) => {
      await expect(loadFixtures(fixtures(generator))).rejects.toThrow(
        `collections.pets.fields.name: faker.${generator} is not a faker generator`,
      );
    },
  );
});
