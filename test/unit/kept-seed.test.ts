import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { loadFixtures, NO_FIXTURES, type FixtureDefinitions } from '../../src/seeding/fixtures.js';
import { KeptSeed, type SeedIdentity } from '../../src/seeding/kept-seed.js';
import { Seeder } from '../../src/seeding/seeder.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';

const DOCUMENTS = [...readdirSync('test/documents').map((name) => `test/documents/${name}`), 'openapi/petstore.yaml'];

const modelOf = async (path: string): Promise<ApiModel> => {
  const loaded = await readDocument(path);
  return buildApiModel(loaded.document, loaded.locate);
};

/**
 * A kept seed is JSON: it can stand in for seeding only if every seeded record is JSON already
 * (no undefined field, no Date, no NaN), which this pins for every document the tests hold.
 */
describe('seeded records are JSON', () => {
  it.each(DOCUMENTS)('%s: each collection reads back from JSON exactly as seeded', async (path) => {
    const model = await modelOf(path);
    const fixtures = path === 'openapi/petstore.yaml' ? await loadFixtures('fixtures/petstore.yaml') : NO_FIXTURES;
    const seeder = new Seeder(model, fixtures, 7);
    for (const name of seeder.names) {
      const rows = seeder.rowsOf(name);
      expect(JSON.parse(JSON.stringify(rows))).toStrictEqual(rows);
    }
  });
});

describe('a kept seed', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const cacheDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-kept-seed-'));
    dirs.push(dir);
    return dir;
  };
  const entries = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.seed.json'));

  const setUp = async () => {
    const model = await modelOf('openapi/petstore.yaml');
    const fixtures = await loadFixtures('fixtures/petstore.yaml');
    const identity: SeedIdentity = { build: 'build one', document: 'document one', seed: 7, fixtures };
    return { model, fixtures, identity, dir: cacheDir() };
  };

  /** Seeds `pets` through a kept seed in `dir`, saves, and changes the first pet's name in the entry. */
  const keepAndTamper = (dir: string, model: ApiModel, fixtures: FixtureDefinitions, identity: SeedIdentity): void => {
    const kept = new KeptSeed(dir, identity);
    new Seeder(model, fixtures, identity.seed, kept).rowsOf('pets');
    kept.save();
    const [entry] = entries(dir);
    if (entry === undefined) throw new Error('no entry written');
    const file = join(dir, entry);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as [string, Record<string, unknown>[]][];
    const pets = saved.find(([name]) => name === 'pets')?.[1];
    if (!pets?.[0]) throw new Error('no pets kept');
    pets[0].name = 'from the kept seed';
    writeFileSync(file, JSON.stringify(saved));
  };

  it('is read instead of seeding: a later seeder with the same identity gives what the entry holds', async () => {
    const { model, fixtures, identity, dir } = await setUp();
    const made = new Seeder(model, fixtures, 7).rowsOf('pets');
    keepAndTamper(dir, model, fixtures, identity);
    const read = new Seeder(model, fixtures, 7, new KeptSeed(dir, identity)).rowsOf('pets');
    expect(read).toHaveLength(made.length);
    expect(read[0]).toEqual({ ...made[0], name: 'from the kept seed' });
    expect(read.slice(1)).toEqual(made.slice(1));
  });

  it.each<[string, (identity: SeedIdentity, fixtures: FixtureDefinitions) => SeedIdentity]>([
    ['another build', (identity) => ({ ...identity, build: 'build two' })],
    ['another document', (identity) => ({ ...identity, document: 'document two' })],
    ['another seed', (identity) => ({ ...identity, seed: 8 })],
    [
      'other fixtures',
      (identity, fixtures) => ({
        ...identity,
        fixtures: { ...fixtures, collections: new Map([...fixtures.collections].map(([n, c]) => [n, { ...c, count: c.count + 1 }])) },
      }),
    ],
    ['another reference date', (identity, fixtures) => ({ ...identity, fixtures: { ...fixtures, referenceDate: new Date(0) } })],
  ])('is never read under %s', async (_, change) => {
    const { model, fixtures, identity, dir } = await setUp();
    keepAndTamper(dir, model, fixtures, identity);
    const other = change(identity, fixtures);
    const rows = new Seeder(model, other.fixtures, other.seed, new KeptSeed(dir, other)).rowsOf('pets');
    expect(rows).toEqual(new Seeder(model, other.fixtures, other.seed).rowsOf('pets'));
    expect(rows[0]?.name).not.toBe('from the kept seed');
  });

  it('keeps a collection seeded after the last save at the next one, beside those kept before', async () => {
    const { model, fixtures, identity, dir } = await setUp();
    const first = new KeptSeed(dir, identity);
    const seeder = new Seeder(model, fixtures, 7, first);
    seeder.rowsOf('pets');
    first.save();
    seeder.rowsOf('orders');
    first.save();
    const entry = JSON.parse(readFileSync(join(dir, entries(dir)[0] ?? ''), 'utf8')) as [string, unknown[]][];
    expect(entry.map(([name]) => name)).toEqual(['pets', 'orders']);
    expect(entry[1]?.[1]).toEqual(new Seeder(model, fixtures, 7).rowsOf('orders'));
  });

  it.each<[string, unknown]>([
    ['an undefined field', undefined],
    ['a Date', new Date(0)],
    ['NaN', Number.NaN],
    ['-0', -0],
  ])('does not keep records that are not JSON (%s)', async (_, value) => {
    const { identity, dir } = await setUp();
    const kept = new KeptSeed(dir, identity);
    kept.keep('json', [{ id: 1, value: [1, 'two', { three: null }] }]);
    kept.keep('not json', [{ id: 1, nested: [{ value }] }]);
    kept.save();
    expect(JSON.parse(readFileSync(join(dir, entries(dir)[0] ?? ''), 'utf8'))).toEqual([
      ['json', [{ id: 1, value: [1, 'two', { three: null }] }]],
    ]);
    expect(new KeptSeed(dir, identity).rows('not json')).toBeUndefined();
  });

  it('writes nothing when nothing was seeded', async () => {
    const { model, fixtures, identity, dir } = await setUp();
    keepAndTamper(dir, model, fixtures, identity);
    const before = readFileSync(join(dir, entries(dir)[0] ?? ''), 'utf8');
    const kept = new KeptSeed(dir, identity);
    new Seeder(model, fixtures, 7, kept).rowsOf('pets');
    kept.save();
    expect(readFileSync(join(dir, entries(dir)[0] ?? ''), 'utf8')).toBe(before);
  });

  it.each(['not json {', '{"pets": []}', '[["pets", "not a list"]]'])(
    'seeds again over an entry that is not one (%s), and writes it anew',
    async (text) => {
      const { model, fixtures, identity, dir } = await setUp();
      keepAndTamper(dir, model, fixtures, identity);
      const file = join(dir, entries(dir)[0] ?? '');
      writeFileSync(file, text);
      const kept = new KeptSeed(dir, identity);
      const rows = new Seeder(model, fixtures, 7, kept).rowsOf('pets');
      expect(rows).toEqual(new Seeder(model, fixtures, 7).rowsOf('pets'));
      kept.save();
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([['pets', rows]]);
    },
  );
});
