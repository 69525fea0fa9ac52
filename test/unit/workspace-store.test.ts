import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { loadFixtures, type FixtureDefinitions } from '../../src/seeding/fixtures.js';
import { Seeder } from '../../src/seeding/seeder.js';
import { MemoryRecordStore } from '../../src/store/memory-store.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import { DEFAULT_WORKSPACE } from '../../src/vocabulary/workspace.js';

const ALL = { after: undefined, limit: Infinity, filters: [] };
const SEEDED_PETS = 120;

let model: ApiModel;
let fixtures: FixtureDefinitions;
let dir: string;
let files = 0;

beforeAll(async () => {
  const loaded = await readDocument(DEFAULT_CONFIG.spec);
  model = buildApiModel(loaded.document, loaded.locate);
  fixtures = await loadFixtures(DEFAULT_CONFIG.fixtures as string);
  dir = await mkdtemp(join(tmpdir(), 'understudy-workspaces-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The Pet Store store with seed 1, in memory or on a data file. */
const open = (dataFile: string | null = null) => MemoryRecordStore.open(new Seeder(model, fixtures, 1), dataFile);
/** A data file path no other test uses. */
const freshFile = (): string => join(dir, `store-${++files}.json`);
/** What the data file holds as a restart reads it: a store opened on it writes the snapshot of its log replayed. */
const readJson = async (file: string): Promise<{ understudy: number; workspaces: Record<string, Record<string, unknown[]>> }> => {
  await (await open(file)).close();
  return JSON.parse(await readFile(file, 'utf8'));
};
const pets = async (store: MemoryRecordStore, workspace: string) => (await store.list(workspace, 'pets', ALL)).items;

describe('workspaces, copy-on-write from one seed', () => {
  it('gives two fresh workspaces the same records, byte for byte, as the default one', async () => {
    const store = await open();
    expect(await pets(store, 'A')).toHaveLength(SEEDED_PETS);
    expect(await pets(store, 'A')).toEqual(await pets(store, 'B'));
    expect(await store.digest('A')).toBe(await store.digest('B'));
    expect(await store.digest('A')).toBe(await store.digest());
  });

  it('keeps a record created in one workspace out of every other', async () => {
    const store = await open();
    const rex = await store.create('A', 'pets', { name: 'Rex', categoryId: 1 });
    expect(await store.get('A', 'pets', String(rex.id))).toEqual({ kind: 'found', row: rex });
    for (const other of ['B', DEFAULT_WORKSPACE]) {
      expect(await store.get(other, 'pets', String(rex.id))).toEqual({ kind: 'not-found' });
      expect(await pets(store, other)).not.toContainEqual(rex);
      expect(await pets(store, other)).toHaveLength(SEEDED_PETS);
    }
  });

  it('forgets one workspace back to the seed, leaving the others', async () => {
    const store = await open();
    const seeded = await store.digest('A');
    await store.delete('A', 'pets', '1');
    const kept = await store.create('B', 'pets', { name: 'Kept' });
    await store.forget('A');
    expect(await store.digest('A')).toBe(seeded);
    expect(await store.get('A', 'pets', '1')).toMatchObject({ kind: 'found' });
    expect(await store.get('B', 'pets', String(kept.id))).toEqual({ kind: 'found', row: kept });
    expect(store.writes('B')).toBe(1);
  });

  it('forgets the default workspace too', async () => {
    const store = await open();
    const seeded = await store.digest();
    await store.replace(DEFAULT_WORKSPACE, 'pets', '1', { name: 'Renamed' });
    await store.forget(DEFAULT_WORKSPACE);
    expect(await store.digest()).toBe(seeded);
  });

  it('never copies on a read: nothing written, nothing persisted for the workspace', async () => {
    const file = freshFile();
    const store = await open(file);
    await pets(store, 'reader');
    await store.get('reader', 'pets', '1');
    await store.digest('reader');
    // Misses write nothing either.
    await store.replace('reader', 'pets', '999', { name: 'nobody' });
    await store.delete('reader', 'pets', '999');
    await store.update('reader', 'pets', '1', () => undefined);
    // A write elsewhere rewrites the file; a read after a write keeps the read collection out of it.
    await store.create('writer', 'orders', { petId: 1 });
    await pets(store, 'writer');
    expect(store.writes('reader')).toBe(0);
    const saved = await readJson(file);
    expect(saved.workspaces.reader).toBeUndefined();
    expect(Object.keys(saved.workspaces.writer ?? {})).toEqual(['orders']);
  });

  it('counts each write of a workspace, and nothing else', async () => {
    const store = await open();
    const rex = await store.create('A', 'pets', { name: 'Rex' });
    await store.replace('A', 'pets', String(rex.id), { name: 'Rex II' });
    await store.put('A', 'pets', '500', { name: 'Put' }, false);
    await store.update('A', 'pets', '1', (pet) => ({ ...pet, name: 'Patched' }));
    await store.delete('A', 'pets', '2');
    await store.update('A', 'pets', '3', () => undefined);
    await store.delete('A', 'pets', '9999');
    expect(store.writes('A')).toBe(5);
    expect(store.writes('B')).toBe(0);
    await store.forget('A');
    expect(store.writes('A')).toBe(0);
  });

  it('resets every workspace back to the seed', async () => {
    const store = await open();
    const seeded = await store.digest();
    const rex = await store.create('A', 'pets', { name: 'Rex' });
    await store.delete('B', 'pets', '1');
    await store.delete(DEFAULT_WORKSPACE, 'pets', '1');
    await store.reset();
    expect(await store.get('A', 'pets', String(rex.id))).toEqual({ kind: 'not-found' });
    for (const workspace of ['A', 'B', DEFAULT_WORKSPACE]) {
      expect(await store.digest(workspace)).toBe(seeded);
      expect(store.writes(workspace)).toBe(0);
    }
  });
});

describe('workspaces on a data file', () => {
  it('shows every workspace its own writes after a reopen', async () => {
    const file = freshFile();
    const first = await open(file);
    const a = await first.create('A', 'pets', { name: 'In A' });
    await first.delete('B', 'pets', '1');
    const odd = await first.create('__proto__', 'pets', { name: 'Odd name' });
    const second = await open(file);
    expect(await second.get('A', 'pets', String(a.id))).toEqual({ kind: 'found', row: a });
    expect(await second.get('B', 'pets', String(a.id))).toEqual({ kind: 'not-found' });
    expect(await second.get('B', 'pets', '1')).toEqual({ kind: 'not-found' });
    expect(await second.get('__proto__', 'pets', String(odd.id))).toEqual({ kind: 'found', row: odd });
    for (const workspace of ['A', 'B', '__proto__', DEFAULT_WORKSPACE])
      expect(await second.digest(workspace)).toBe(await first.digest(workspace));
    expect((await readJson(file)).understudy).toBe(2);
  });

  it("opens an old-format file as the default workspace's records", async () => {
    const file = freshFile();
    const old = { pets: [{ id: 1, name: 'Old Rex', categoryId: 1, status: 'available' }] };
    await writeFile(file, JSON.stringify(old));
    const store = await open(file);
    expect(await pets(store, DEFAULT_WORKSPACE)).toEqual(old.pets);
    expect(await pets(store, 'A')).toHaveLength(SEEDED_PETS);
    await store.create(DEFAULT_WORKSPACE, 'orders', { petId: 1 });
    const saved = await readJson(file);
    expect(saved.workspaces.default?.pets).toEqual(old.pets);
  });

  it.each([
    ['a collection that is not a list', { understudy: 2, workspaces: { A: { pets: {} } } }, 'workspaces.A.pets is not a list'],
    ['a workspace that is not an object', { understudy: 2, workspaces: { A: [] } }, 'workspaces.A is not a JSON object'],
    ['no workspaces', { understudy: 2 }, 'workspaces is not a JSON object'],
    ['another format', { understudy: 3, workspaces: {} }, 'understudy is 3'],
  ])('stops the open on a new-format file with %s, and leaves it untouched', async (_, content, message) => {
    const file = freshFile();
    const text = JSON.stringify(content);
    await writeFile(file, text);
    await expect(open(file)).rejects.toThrow(message);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});
