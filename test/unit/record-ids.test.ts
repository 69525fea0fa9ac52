import { describe, expect, it } from 'vitest';
import { fitsKind, minter, slugMinter } from '../../src/resources/mint-id.js';
import { idKindOf, recordIdentity, singularOf } from '../../src/resources/record-ids.js';
import type { IdKind } from '../../src/vocabulary/operation.js';

const doc = {
  components: {
    schemas: {
      SeId: { type: 'string', pattern: '^se-[0-9]+$' },
      Shipment: {
        type: 'object',
        properties: { shipment_id: { allOf: [{ $ref: '#/components/schemas/SeId' }] }, name: { type: 'string' } },
      },
    },
  },
};

describe('the kind of an id, from its schema', () => {
  it.each<[string, Record<string, unknown>, IdKind | undefined]>([
    ['integer', { type: 'integer', format: 'int64' }, { kind: 'integer' }],
    ['number', { type: 'number' }, { kind: 'integer' }],
    ['no type at all', {}, { kind: 'integer' }],
    ['a UUID', { type: 'string', format: 'uuid' }, { kind: 'uuid', clientNamed: false }],
    ['a nullable UUID (3.1)', { type: ['string', 'null'], format: 'uuid' }, { kind: 'uuid', clientNamed: false }],
    ['a plain string', { type: 'string' }, { kind: 'string', clientNamed: false }],
    [
      'a prefixed pattern',
      { type: 'string', pattern: '^cus_[A-Za-z0-9]+$' },
      { kind: 'string', clientNamed: false, prefix: 'cus_', pattern: '^cus_[A-Za-z0-9]+$' },
    ],
    [
      'examples sharing a prefix',
      { type: 'string', example: 'ch_3MmlLrLkdIwHu7ix' },
      { kind: 'string', clientNamed: false, prefix: 'ch_' },
    ],
    ['lengths', { type: 'string', minLength: 3, maxLength: 8 }, { kind: 'string', clientNamed: false, minLength: 3, maxLength: 8 }],
    ['an email', { type: 'string', format: 'email' }, { kind: 'string', clientNamed: false, format: 'email' }],
    ['an enum is no id', { type: 'string', enum: ['a', 'b'] }, undefined],
    ['a boolean is no id', { type: 'boolean' }, undefined],
    ['an object is no id', { type: 'object' }, undefined],
  ])('%s', (_name, schema, kind) => {
    expect(idKindOf({}, schema)).toEqual(kind);
  });

  it('follows allOf and $ref (ShipEngine-style ids)', () => {
    expect(idKindOf(doc, { allOf: [{ $ref: '#/components/schemas/SeId' }] })).toEqual({
      kind: 'string',
      clientNamed: false,
      prefix: 'se-',
      pattern: '^se-[0-9]+$',
    });
  });
});

describe('which property names a record', () => {
  const record = (properties: Record<string, unknown>) => ({ type: 'object', properties });
  it.each<[string, Record<string, unknown>, string | undefined, string, string | undefined]>([
    ['the item parameter first', record({ id: { type: 'integer' }, username: { type: 'string' } }), 'username', 'users', 'username'],
    ['else id', record({ id: { type: 'string' }, name: { type: 'string' } }), 'petId', 'pets', 'id'],
    [
      'else the item parameter less the singular (team_slug)',
      record({ id: { type: 'integer' }, slug: { type: 'string' } }),
      'team_slug',
      'teams',
      'slug',
    ],
    [
      'else the item parameter less the singular (issue_number)',
      record({ id: { type: 'integer' }, number: { type: 'integer' } }),
      'issue_number',
      'repos/issues',
      'number',
    ],
    [
      'a parameter that is the singular and Id means id',
      record({ id: { type: 'integer' }, petId: { type: 'integer' } }),
      'petId',
      'pets',
      'petId',
    ],
    ['else uuid', record({ uuid: { type: 'string', format: 'uuid' } }), 'x', 'things', 'uuid'],
    ['else <singular>Id', record({ orderId: { type: 'integer' } }), undefined, 'orders', 'orderId'],
    ['else <singular>_id', record({ category_id: { type: 'string' } }), undefined, 'categories', 'category_id'],
    [
      'else the one read-only identifier',
      record({ sku: { type: 'string', readOnly: true }, name: { type: 'string' } }),
      'x',
      'products',
      'sku',
    ],
    [
      'two read-only identifiers decide nothing',
      record({ sku: { type: 'string', readOnly: true }, code: { type: 'string', readOnly: true } }),
      'x',
      'products',
      undefined,
    ],
    ['an id that is an enum leaves the record to the document', record({ id: { type: 'string', enum: ['a'] } }), 'x', 'things', undefined],
  ])('%s', (_name, schema, param, collection, property) => {
    expect(recordIdentity({ s: schema }, schema, '#/s', param, collection)?.property).toBe(property);
  });

  it.each([
    ['orders', 'order'],
    ['categories', 'category'],
    ['addresses', 'address'],
    ['users/orders', 'order'],
    ['status', 'status'],
    ['data', 'data'],
  ])('%s in the singular is %s', (plural, singular) => {
    expect(singularOf(plural)).toBe(singular);
  });
});

describe('minted keys', () => {
  it('are UUIDs of version 4, the same for the same salt, distinct otherwise', () => {
    const mint = minter({ kind: 'uuid', clientNamed: false }, 'bookings');
    expect(mint?.('1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(mint?.('1')).toBe(mint?.('1'));
    const keys = new Set(Array.from({ length: 1000 }, (_, i) => mint?.(String(i))));
    expect(keys.size).toBe(1000);
  });

  it('differ between collections for the same salt', () => {
    const kind: IdKind = { kind: 'uuid', clientNamed: false };
    expect(minter(kind, 'a')?.('1')).not.toBe(minter(kind, 'b')?.('1'));
  });

  it.each<[string, IdKind, RegExp]>([
    ['a prefix and 14 letters or digits', { kind: 'string', clientNamed: false, prefix: 'cus_' }, /^cus_[A-Za-z0-9]{14}$/],
    ['within the lengths', { kind: 'string', clientNamed: false, minLength: 3, maxLength: 8 }, /^[A-Za-z0-9]{8}$/],
    ['a long minimum', { kind: 'string', clientNamed: false, minLength: 24 }, /^[A-Za-z0-9]{24}$/],
    ['to a pattern', { kind: 'string', clientNamed: false, pattern: '^[A-Z]{3}-\\d{4}$' }, /^[A-Z]{3}-\d{4}$/],
    ['an email', { kind: 'string', clientNamed: false, format: 'email' }, /^user-[a-z0-9]+@example\.com$/],
  ])('strings: %s', (_name, kind, shape) => {
    const key = minter(kind, 'things')?.('7') ?? '';
    expect(key).toMatch(shape);
    expect(fitsKind(kind, key)).toBe(true);
  });

  it('are none for whole numbers (the store numbers rows)', () => {
    expect(minter({ kind: 'integer' }, 'pets')).toBeUndefined();
    expect(minter(undefined, 'pets')).toBeUndefined();
  });

  it('slugs come from the text first, then numbered, else the plain minter', () => {
    const kind: IdKind = { kind: 'string', clientNamed: false, pattern: '^[a-z0-9-]+$' };
    const mint = slugMinter(kind, 'Crème Brûlée: a recipe!', () => 'fallback');
    expect(mint('21')).toBe('creme-brulee-a-recipe');
    expect(mint('22')).toBe('creme-brulee-a-recipe-22');
    expect(slugMinter(kind, '!!!', () => 'fallback')('1')).toBe('fallback');
  });
});
