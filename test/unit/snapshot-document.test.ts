import { describe, expect, it } from 'vitest';
import {
  checkClock,
  checkCounters,
  checkRecords,
  checkRules,
  checkTransitions,
  snapshotProblems,
  sizesOf,
  type SnapshotDocument,
} from '../../src/workspaces/snapshot-document.js';

const CHECKS = { records: checkRecords, counters: checkCounters, clocks: checkClock, rules: checkRules, transitions: checkTransitions };

const document = (parts: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: 'understudy-snapshot',
  version: 1,
  name: 'mid',
  workspace: 'qa',
  takenAt: '2026-11-22T10:00:30.000Z',
  parts: { records: {}, counters: {}, clocks: { now: 1795341630000, follows: true }, rules: [], transitions: [], ...parts },
});

describe('a snapshot document, checked on import', () => {
  it('reads a whole document', () => {
    expect(snapshotProblems(document(), CHECKS)).toEqual([]);
  });

  it.each([
    { what: 'not an object', value: [], at: 'body' },
    { what: 'another format', value: { ...document(), format: 'other' }, at: 'body.format' },
    { what: 'a later version', value: { ...document(), version: 2 }, at: 'body.version' },
    { what: 'no instant', value: { ...document(), takenAt: 'yesterday' }, at: 'body.takenAt' },
    { what: 'no parts', value: { ...document(), parts: [] }, at: 'body.parts' },
    { what: 'a part left out', value: { ...document(), parts: { records: {} } }, at: 'body.parts.counters' },
    { what: 'a part no sandbox knows', value: document({ journal: [] }), at: 'body.parts.journal' },
    {
      what: 'rows out of order',
      value: document({ records: { pets: { next: 9, rows: [{ id: 3 }, { id: 2 }] } } }),
      at: 'body.parts.records.pets.rows[1].id',
    },
    {
      what: 'a next id already used',
      value: document({ records: { pets: { next: 3, rows: [{ id: 3 }] } } }),
      at: 'body.parts.records.pets.next',
    },
    {
      what: 'a window without its count',
      value: document({ counters: { key_a: { windows: [{ start: 0 }], refusals: { start: 0, count: 0 }, bannedUntil: 0 } } }),
      at: 'body.parts.counters.key_a.windows[0]',
    },
    {
      what: 'a ban end that is no number',
      value: document({ counters: { key_a: { windows: [], refusals: { start: 0, count: 0 }, bannedUntil: 'soon' } } }),
      at: 'body.parts.counters.key_a.bannedUntil',
    },
    { what: 'a clock that does not say whether it follows', value: document({ clocks: { now: 0 } }), at: 'body.parts.clocks.follows' },
    { what: 'a rule without its id', value: document({ rules: [{ rule: { match: {} }, applied: 0 }] }), at: 'body.parts.rules[0].rule.id' },
    {
      what: 'uses that are no count',
      value: document({ rules: [{ rule: { id: 'rule_1', match: {} }, applied: -1 }] }),
      at: 'body.parts.rules[0].applied',
    },
    {
      what: 'a transition without its state',
      value: document({ transitions: [{ collection: 'orders', key: '17', field: 'status', enteredAt: 0 }] }),
      at: 'body.parts.transitions[0].state',
    },
  ])('names the field at fault: $what → $at', ({ value, at }) => {
    expect(snapshotProblems(value, CHECKS).map((p) => p.location)).toContain(at);
  });

  it('sizes a snapshot by what it holds', () => {
    const held = document({
      records: { pets: { next: 4, rows: [{ id: 1 }, { id: 3 }] }, orders: { next: 2, rows: [{ id: 1 }] } },
      counters: { key_a: { windows: [], refusals: { start: 0, count: 0 }, bannedUntil: 0 } },
    }) as unknown as SnapshotDocument;
    const json = JSON.stringify(held);
    expect(sizesOf(held, json)).toEqual({ collections: 2, records: 3, keys: 1, rules: 0, bytes: Buffer.byteLength(json) });
  });
});
