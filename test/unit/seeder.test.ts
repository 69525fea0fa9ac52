import { describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import type { FixtureDefinitions } from '../../src/seeding/fixtures.js';
import { Seeder } from '../../src/seeding/seeder.js';
import { MemoryRecordStore } from '../../src/store/memory-store.js';
import { DEFAULT_WORKSPACE } from '../../src/vocabulary/workspace.js';

const item = (name: string) => ({
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string', title: name }, email: { type: 'string', format: 'email' } },
});
const collection = (path: string, name: string, params: string[]) => {
  const parameters = params.map((p) => ({ name: p, in: 'path', required: true, schema: { type: 'integer' } }));
  const one = { description: 'one', content: { 'application/json': { schema: item(name) } } };
  return {
    [path]: {
      get: {
        operationId: `list-${name}`,
        parameters: parameters.slice(0, -1),
        responses: { '200': { description: 'list', content: { 'application/json': { schema: { type: 'array', items: item(name) } } } } },
      },
      post: { operationId: `create-${name}`, parameters: parameters.slice(0, -1), responses: { '201': one } },
    },
    [`${path}/{${params.at(-1) ?? 'id'}}`]: { get: { operationId: `read-${name}`, parameters, responses: { '200': one } } },
  };
};

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'seeding', version: '1' },
  paths: {
    ...collection('/users', 'users', ['userId']),
    ...collection('/users/{userId}/orders', 'orders', ['userId', 'orderId']),
    ...collection('/tags', 'tags', ['tagId']),
    ...collection('/notes', 'notes', ['noteId']),
  },
};
const model = buildApiModel(DOCUMENT);
const FIXTURES: FixtureDefinitions = {
  referenceDate: new Date('2026-01-01T00:00:00Z'),
  defaultCount: 4,
  collections: new Map([['notes', { count: 6, fields: { tagId: { ref: 'tags' }, authorId: { ref: 'users' } } }]]),
};

describe('seeding: every collection the same, whenever and in whatever order it is seeded', () => {
  it('knows every collection, the ones the fixtures name first', () => {
    const seeder = new Seeder(model, FIXTURES, 7);
    expect(seeder.names[0]).toBe('notes');
    expect([...seeder.names].sort()).toEqual(['notes', 'tags', 'users', 'users/orders']);
    expect(seeder.named).toEqual(['notes']);
  });

  it('gives the same records in any order of first use', () => {
    const forward = new Seeder(model, FIXTURES, 7);
    const backward = new Seeder(model, FIXTURES, 7);
    const names = [...forward.names];
    const first = Object.fromEntries(names.map((n) => [n, forward.rowsOf(n)]));
    const second = Object.fromEntries([...names].reverse().map((n) => [n, backward.rowsOf(n)]));
    expect(second).toEqual(first);
    expect(first.notes).toHaveLength(6);
    expect(first.tags).toHaveLength(4);
  });

  it('resolves refs and parents whichever is seeded first', () => {
    const seeder = new Seeder(model, FIXTURES, 7);
    const notes = seeder.rowsOf('notes');
    const tagIds = seeder.rowsOf('tags').map((t) => t.id);
    const userIds = seeder.rowsOf('users').map((u) => String(u.id));
    for (const note of notes) {
      expect(tagIds).toContain(note.tagId);
      expect(userIds.map(Number)).toContain(note.authorId);
    }
    const orders = seeder.rowsOf('users/orders');
    expect(orders).toHaveLength(4);
    for (const order of orders) expect(userIds).toContain(order.__scope);
  });

  it('depends on the seed', () => {
    expect(new Seeder(model, FIXTURES, 8).rowsOf('tags')).not.toEqual(new Seeder(model, FIXTURES, 7).rowsOf('tags'));
  });
});

describe('the store seeds a collection on first use, unchanged by earlier writes', () => {
  it('answers a collection first read after writes elsewhere exactly as a fresh store does', async () => {
    const fresh = await MemoryRecordStore.open(new Seeder(model, FIXTURES, 7));
    const busy = await MemoryRecordStore.open(new Seeder(model, FIXTURES, 7));
    await busy.create(DEFAULT_WORKSPACE, 'users', { name: 'written first' });
    await busy.delete(DEFAULT_WORKSPACE, 'users', '1');
    const all = { after: undefined, limit: 100, filters: [] };
    expect((await busy.list(DEFAULT_WORKSPACE, 'tags', all)).items).toEqual((await fresh.list(DEFAULT_WORKSPACE, 'tags', all)).items);
    // The seed itself is not changed by writes: a reset brings the deleted record back.
    await busy.reset();
    expect(await busy.get(DEFAULT_WORKSPACE, 'users', '1')).toEqual(await fresh.get(DEFAULT_WORKSPACE, 'users', '1'));
    expect(await busy.digest()).toBe(await fresh.digest());
  });

  it('reports the start-up seeding of the collections the fixtures name, in records', async () => {
    const seen: [number, number][] = [];
    await MemoryRecordStore.open(new Seeder(model, FIXTURES, 7), null, (done, total) => seen.push([done, total]));
    expect(seen).toEqual([[6, 6]]);
  });
});
