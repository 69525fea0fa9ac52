import { describe, expect, it } from 'vitest';
import { directionalView } from '../../src/openapi/directional.js';

const DOCUMENT = {
  openapi: '3.0.3',
  components: {
    schemas: {
      Id: { type: 'integer', readOnly: true },
      Account: {
        type: 'object',
        required: ['id', 'login', 'password', 'createdAt'],
        properties: {
          id: { $ref: '#/components/schemas/Id' },
          login: { type: 'string' },
          password: { type: 'string', writeOnly: true },
          createdAt: { type: 'string', readOnly: true },
        },
        example: { required: ['id'], properties: { id: { readOnly: true } } },
      },
      Plain: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    },
  },
};

describe('the document as each direction sees it (OpenAPI 3.0.3 §4.7.25 readOnly, writeOnly)', () => {
  it('a request need not carry a required readOnly property, its $ref followed', () => {
    const view = directionalView(DOCUMENT, 'request') as typeof DOCUMENT;
    expect(view.components.schemas.Account.required).toEqual(['login', 'password']);
    // Examples are data: untouched. Unchanged subtrees are shared, not copied.
    expect(view.components.schemas.Account.example).toBe(DOCUMENT.components.schemas.Account.example);
    expect(view.components.schemas.Plain).toBe(DOCUMENT.components.schemas.Plain);
  });

  it('an answer need not carry a required writeOnly property', () => {
    const view = directionalView(DOCUMENT, 'response') as typeof DOCUMENT;
    expect(view.components.schemas.Account.required).toEqual(['id', 'login', 'createdAt']);
  });

  it('leaves the document itself unchanged, and is made once', () => {
    expect(DOCUMENT.components.schemas.Account.required).toEqual(['id', 'login', 'password', 'createdAt']);
    expect(directionalView(DOCUMENT, 'request')).toBe(directionalView(DOCUMENT, 'request'));
  });

  it('is the document itself when nothing differs', () => {
    const plain = { openapi: '3.0.3', components: { schemas: { Plain: DOCUMENT.components.schemas.Plain } } };
    expect(directionalView(plain, 'request')).toBe(plain);
  });
});
