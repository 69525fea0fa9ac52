import { describe, expect, it } from 'vitest';
import { eventPayload, matches, parseEvent, type EventPattern } from '../../src/webhooks/events.js';
import type { StoreChange } from '../../src/vocabulary/record.js';

/** What a subscription's `event` listens for, against the store changes requests make. */

const pattern = (text: string): EventPattern => {
  const parsed = parseEvent(text);
  if (!('pattern' in parsed)) throw new Error(parsed.problem);
  return parsed.pattern;
};

const change = (
  kind: StoreChange['kind'],
  before?: Record<string, unknown>,
  after?: Record<string, unknown>,
  collection = 'pets',
): StoreChange => ({
  workspace: 'default',
  collection,
  id: '7',
  kind,
  ...(before && { before }),
  ...(after && { after }),
});

describe('parseEvent', () => {
  it.each([
    ['record.created', { kind: 'change', collection: undefined, action: 'created' }],
    ['record.deleted', { kind: 'change', collection: undefined, action: 'deleted' }],
    ['pets.updated', { kind: 'change', collection: 'pets', action: 'updated' }],
    ['series/past.created', { kind: 'change', collection: 'series/past', action: 'created' }],
    ['pets.status=sold', { kind: 'field', collection: 'pets', field: 'status', value: 'sold' }],
    ['store/orders.complete=true', { kind: 'field', collection: 'store/orders', field: 'complete', value: 'true' }],
  ])('%s', (text, expected) => {
    expect(parseEvent(text)).toEqual({ pattern: expected });
  });

  it.each(['pets', 'pets.sold', '.created', 'pets.status=', 'created'])('refuses %s, saying what it takes', (text) => {
    expect(parseEvent(text)).toHaveProperty('problem');
  });
});

describe('matches', () => {
  it.each([
    ['record.created', change('created', undefined, { name: 'Rex' }), true],
    ['record.created', change('created', undefined, { name: 'Rex' }, 'orders'), true],
    ['record.updated', change('patched', { name: 'Rex' }, { name: 'Max' }), true],
    ['record.updated', change('replaced', { name: 'Rex' }, { name: 'Max' }), true],
    ['record.updated', change('created', undefined, { name: 'Rex' }), false],
    ['pets.deleted', change('deleted', { name: 'Rex' }), true],
    ['pets.deleted', change('deleted', { name: 'Rex' }, undefined, 'orders'), false],
    // A transition: taking the value, from nothing or from another.
    ['pets.status=sold', change('created', undefined, { status: 'sold' }), true],
    ['pets.status=sold', change('patched', { status: 'pending' }, { status: 'sold' }), true],
    ['pets.status=sold', change('patched', { status: 'sold', name: 'Rex' }, { status: 'sold', name: 'Max' }), false],
    ['pets.status=sold', change('patched', { status: 'sold' }, { status: 'available' }), false],
    ['pets.status=sold', change('deleted', { status: 'sold' }), false],
    ['orders.complete=true', change('patched', { complete: false }, { complete: true }, 'orders'), true],
    ['orders.quantity=3', change('created', undefined, { quantity: 3 }, 'orders'), true],
  ])('%s against %j: %s', (text, storeChange, expected) => {
    expect(matches(pattern(text), storeChange)).toBe(expected);
  });
});

describe('eventPayload', () => {
  it('is {type, timestamp, data}, with the record and, for an update, the record before', () => {
    const at = Date.parse('2026-11-22T10:00:30Z');
    expect(eventPayload('pets.updated', change('patched', { name: 'Rex' }, { name: 'Max' }), at)).toEqual({
      type: 'pets.updated',
      timestamp: '2026-11-22T10:00:30.000Z',
      data: { collection: 'pets', id: '7', change: 'updated', record: { name: 'Max' }, previous: { name: 'Rex' } },
    });
    expect(eventPayload('pets.deleted', change('deleted', { name: 'Rex' }), at)).toMatchObject({
      data: { change: 'deleted', record: { name: 'Rex' } },
    });
  });
});
