import { describe, expect, it } from 'vitest';
import { followed } from '../../src/schemas/document-schemas.js';
import { follow } from '../../src/openapi/json-pointer.js';

const document = {
  components: {
    schemas: {
      Pet: { type: 'object', properties: { owner: { $ref: '#/components/schemas/Owner' } } },
      Owner: { $ref: '#/components/schemas/Person' },
      Person: { type: 'object' },
      Loop: { $ref: '#/components/schemas/Loop' },
    },
  },
};

describe('followed: follow, remembered per document and pointer', () => {
  it('finds what follow finds, through $ref chains, and the same answer every time', () => {
    const pointer = '#/components/schemas/Pet/properties/owner';
    const first = followed(document, pointer);
    expect(first).toEqual(follow(document, pointer));
    expect(first).toEqual({ value: { type: 'object' }, pointer: '#/components/schemas/Person' });
    expect(followed(document, pointer)).toBe(first);
  });

  it('keeps each document apart', () => {
    const other = { components: { schemas: { Pet: { type: 'string' } } } };
    expect(followed(other, '#/components/schemas/Pet').value).toEqual({ type: 'string' });
    expect(followed(document, '#/components/schemas/Pet').value).toMatchObject({ type: 'object' });
  });

  it('throws for a reference that cannot be followed, each time it is asked', () => {
    expect(() => followed(document, '#/components/schemas/Loop')).toThrow(/circular reference/);
    expect(() => followed(document, '#/components/schemas/Loop')).toThrow(/circular reference/);
  });
});
