import { describe, expect, it } from 'vitest';
import { bodyFields } from '../../src/validation/body-fields.js';
import { decodeForm } from '../../src/validation/form-body.js';
import { splitKey } from '../../src/validation/form-members.js';

describe('splitKey', () => {
  // prettier-ignore
  it.each([
    ['metadata[plan]', ['metadata', ['plan']]],
    ['items[0][price]', ['items', ['0', 'price']]],
    ['expand[]', ['expand', ['']]],
    ['plain', undefined],
    ['a[b', undefined],
    ['[b]', undefined],
    ['a[b]c', undefined],
    [`a${'[x]'.repeat(17)}`, undefined],
  ])('%s → %j', (key, expected) => {
    expect(splitKey(key)).toEqual(expected);
  });
});

describe('decodeForm: nested members read against the schema', () => {
  const document = {
    media: {
      encoding: { tags: { style: 'deepObject', explode: true } },
      schema: {
        type: 'object',
        properties: {
          tags: { type: 'object', additionalProperties: { type: 'integer' } },
          rows: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' }, ok: { type: 'boolean' } } } },
          grid: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
          pick: { oneOf: [{ type: 'integer' }, { type: 'boolean' }, { type: 'string', enum: ['x'] }] },
          'x[y]': { type: 'integer' },
        },
      },
    },
  };
  const fields = bodyFields(document, '#/media/schema');
  const decode = (form: string) => decodeForm(form, fields, document);

  // prettier-ignore
  it.each([
    ['tags[a]=1&tags[b]=2', { tags: { a: 1, b: 2 } }],
    ['rows[0][n]=1&rows[0][ok]=true&rows[1][n]=2', { rows: [{ n: 1, ok: true }, { n: 2 }] }],
    ['rows[3][n]=1&rows[1][n]=2', { rows: [{ n: 2 }, { n: 1 }] }],
    ['grid[0][]=1.5&grid[0][]=2&grid[1][0]=3', { grid: [[1.5, 2], [3]] }],
    ['pick[k]=7', { pick: { k: '7' } }],
    ['free[]=a&free[]=b&loose[k]=v', { free: ['a', 'b'], loose: { k: 'v' } }],
    ['free[0]=a', { free: { 0: 'a' } }],
  ])('%s', (form, value) => {
    expect(decode(form)).toEqual({ value, violations: [] });
  });

  // prettier-ignore
  it.each([
    ['pick=7', 7],
    ['pick=true', true],
    ['pick=x', 'x'],
  ])('a field of several types: %s', (form, pick) => {
    expect(decode(form).value).toEqual({ pick });
  });

  // prettier-ignore
  it.each([
    ['tags[a]=one', [{ location: 'body.tags.a', message: 'must be an integer' }]],
    ['rows[0][n]=1&rows[0][n]=2', [{ location: 'body.rows[0].n', message: 'must be given once' }]],
    ['tags=1&tags[a]=1', [{ location: 'body.tags', message: 'is given both as a value and with members' }]],
    ['rows[0]=1&rows[0][n]=1', [{ location: 'body.rows[0]', message: 'is given both as a value and with members' }]],
  ])('says why %s cannot be read', (form, violations) => {
    expect(decode(form).violations).toEqual(violations);
  });

  it('keeps a name the schema declares with brackets as that name, and __proto__ as data', () => {
    expect(decode('x[y]=3')).toEqual({ value: { 'x[y]': 3 }, violations: [] });
    const read = decode('tags[__proto__]=1');
    expect(Object.hasOwn(read.value.tags as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(read.value.tags)).toBe(Object.prototype);
  });

  it('reads a key nested past 16 levels as a name of its own, however deep', () => {
    const key = `free${'[x]'.repeat(10_000)}`;
    expect(decode(`${key}=1`).value).toEqual({ [key]: '1' });
  });
});
