import { describe, expect, it } from 'vitest';
import { SchemaCompiler } from '../../src/validation/schema-compiler.js';

const document = {
  openapi: '3.1.0',
  // The document's own #/$defs/inner, which a reference under Scoped's $id must not reach.
  $defs: { inner: { type: 'string' } },
  components: {
    schemas: {
      Error: { type: 'object', required: ['code'], properties: { code: { type: 'integer' } } },
      Problem: { $ref: '#/components/schemas/Error' },
      Short: { $ref: '#/components/schemas/Name', maxLength: 3 },
      Name: { type: 'string' },
      Scoped: {
        $id: 'https://example.test/scoped',
        $defs: { inner: { type: 'boolean' } },
        properties: { flag: { $ref: '#/$defs/inner' } },
      },
    },
  },
  paths: {
    '/a': { get: { responses: { '400': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } } } } },
    '/b': { get: { responses: { '404': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } } } },
  },
};
const at400 = '#/paths/~1a/get/responses/400/content/application~1json/schema';
const at404 = '#/paths/~1b/get/responses/404/content/application~1json/schema';

describe('SchemaCompiler', () => {
  it('compiles a schema that is only a reference once, as the schema it leads to (through a chain)', () => {
    const compiler = new SchemaCompiler(document, '2020-12');
    const error = compiler.compile('#/components/schemas/Error');
    expect(compiler.compile(at400)).toBe(error);
    expect(compiler.compile(at404)).toBe(error);
    expect(compiler.compile('#/components/schemas/Problem')).toBe(error);
    expect(error({ code: 4 })).toBe(true);
    expect(error({ code: 'x' })).toBe(false);
  });

  it('keeps a reference with keywords beside it (OpenAPI 3.1) a schema of its own, both applied', () => {
    const compiler = new SchemaCompiler(document, '2020-12');
    const short = compiler.compile('#/components/schemas/Short');
    expect(short).not.toBe(compiler.compile('#/components/schemas/Name'));
    expect(short('abc')).toBe(true);
    expect(short('abcd')).toBe(false);
    expect(short(3)).toBe(false);
  });

  it('leaves a reference under a $id to resolve against that $id', () => {
    const compiler = new SchemaCompiler(document, '2020-12');
    const flag = compiler.compile('#/components/schemas/Scoped/properties/flag');
    expect(flag(true)).toBe(true);
    expect(flag('yes')).toBe(false);
  });
});
