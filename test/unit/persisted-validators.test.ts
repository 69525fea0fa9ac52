import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fakeFromSchema } from '../../src/mock/schema-faker.js';
import { seededFaker } from '../../src/mock/seeded-faker.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { schemaDialect } from '../../src/openapi/schema-dialect.js';
import { writeWaiting } from '../../src/validation/persisted-validators.js';
import { SchemaCompiler } from '../../src/validation/schema-compiler.js';

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-validators-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const kept = (dir: string): string[] => readdirSync(join(dir, 'validators')).filter((name) => name.endsWith('.js'));

/** What exercises every way kept code reaches outside itself: formats, int64, patterns, Ajv's runtime helpers, recursion. */
const EVERYTHING = load(`
openapi: 3.1.0
info: { title: Every kind, version: '1' }
paths: {}
components:
  schemas:
    Node:
      type: object
      required: [id, name]
      additionalProperties: false
      properties:
        id: { type: integer, format: int64, minimum: 1 }
        name: { type: string, minLength: 2, maxLength: 8, pattern: '^[\\\\w-.]+$' }
        email: { type: string, format: email }
        at: { type: string, format: date-time }
        site: { type: string, format: uri }
        kind: { enum: [{ a: 1 }, [1, 2], plain] }
        tags: { type: array, items: { type: string }, uniqueItems: true, maxItems: 3 }
        size: { type: [number, 'null'], exclusiveMaximum: 10, multipleOf: 0.5 }
        children: { type: array, items: { $ref: '#/components/schemas/Node' } }
        either: { oneOf: [{ type: string, const: x }, { type: integer }] }
        both: { allOf: [{ type: object, required: [p] }, { properties: { p: { type: boolean } } }] }
      unevaluatedProperties: false
`) as Record<string, unknown>;

/** Values that pass and values that fail in every way a schema above can fail. */
function probes(document: unknown, pointer: string): unknown[] {
  const faker = seededFaker(7, new Date('2026-01-01T00:00:00Z'));
  const valid = Array.from({ length: 4 }, () => fakeFromSchema(document, pointer, faker));
  const wrong = [null, true, 0, -1, 1.5, 2 ** 60, '', 'x', 'ü'.repeat(9), '2026-13-01T00:00:00Z', [], [1, 1], {}, { id: 'one' }];
  const mutated = valid.flatMap((value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.keys(value).flatMap((key) => wrong.slice(0, 8).map((bad) => ({ ...value, [key]: bad })))
      : [],
  );
  return [
    ...valid,
    ...wrong,
    ...mutated,
    { id: 1, name: 'ab', at: '2026-01-01T00:00:00Z', kind: { a: 1 }, children: [{ id: 2, name: 'ok' }] },
  ];
}

/** A document as the sandbox compiles it: loaded, and a 3.0 one normalised (build-model.ts). */
const served = async (path: string): Promise<Record<string, unknown>> =>
  buildApiModel((await readDocument(path)).document).document as Record<string, unknown>;

const DOCUMENTS: [string, () => Promise<Record<string, unknown>>][] = [
  ['every kind of keyword', () => Promise.resolve(EVERYTHING)],
  ['the Pet Store', () => served(DEFAULT_CONFIG.spec)],
  ['answers-contract.yaml (3.1)', () => served('test/documents/answers-contract.yaml')],
  ['library.yaml (3.0)', () => served('test/documents/library.yaml')],
  ['media.yaml (3.0)', () => served('test/documents/media.yaml')],
];

describe('validators kept between starts', () => {
  it.each(DOCUMENTS)('judge as freshly compiled ones do, errors included: %s', async (_, read) => {
    const document = await read();
    const dir = cacheDir();
    const pointers = Object.keys((document.components as { schemas: object }).schemas).map((name) => `#/components/schemas/${name}`);
    const fresh = new SchemaCompiler(document, schemaDialect(document));
    const writing = new SchemaCompiler(document, schemaDialect(document), dir);
    for (const pointer of pointers) writing.compile(pointer);
    // Written after the start, not during it.
    expect(existsSync(join(dir, 'validators'))).toBe(false);
    writeWaiting();
    expect(kept(dir).length).toBeGreaterThan(0);
    const reading = new SchemaCompiler(document, schemaDialect(document), dir);
    let judged = 0;
    for (const pointer of pointers) {
      const a = fresh.compile(pointer);
      const b = reading.compile(pointer);
      expect(b).not.toBe(writing.compile(pointer));
      for (const value of probes(document, pointer)) {
        expect([pointer, b(value)]).toEqual([pointer, a(value)]);
        expect(b.errors).toEqual(a.errors);
        judged++;
      }
    }
    expect(judged).toBeGreaterThan(pointers.length * 10);
  });

  /** Node's validator kept in `dir`, its entry then replaced by `code`; the entry's path. */
  const replacedEntry = (dir: string, code: string): string => {
    new SchemaCompiler(EVERYTHING, '2020-12', dir).compile('#/components/schemas/Node');
    writeWaiting();
    const entry = join(dir, 'validators', kept(dir)[0] as string);
    writeFileSync(entry, code);
    return entry;
  };

  it('are read from the cache directory, not compiled again', () => {
    const dir = cacheDir();
    replacedEntry(dir, 'module.exports = function v() { v.errors = null; return "from the entry"; };');
    expect(new SchemaCompiler(EVERYTHING, '2020-12', dir).compile('#/components/schemas/Node')({})).toBe('from the entry');
  });

  it('are compiled again, and kept again, when an entry does not load', () => {
    const dir = cacheDir();
    const entry = replacedEntry(dir, 'module.exports = function (');
    const validate = new SchemaCompiler(EVERYTHING, '2020-12', dir).compile('#/components/schemas/Node');
    writeWaiting();
    expect(validate({ id: 1, name: 'ok' })).toBe(true);
    expect(validate({ id: 0, name: 'ok' })).toBe(false);
    expect(readFileSync(entry, 'utf8')).toContain('module.exports');
  });

  it('belong to one document: a changed schema is compiled anew', () => {
    const dir = cacheDir();
    const changed = structuredClone(EVERYTHING) as { components: { schemas: { Node: { properties: { id: { minimum: number } } } } } };
    changed.components.schemas.Node.properties.id.minimum = 5;
    expect(new SchemaCompiler(EVERYTHING, '2020-12', dir).compile('#/components/schemas/Node')({ id: 2, name: 'ok' })).toBe(true);
    writeWaiting();
    expect(new SchemaCompiler(changed, '2020-12', dir).compile('#/components/schemas/Node')({ id: 2, name: 'ok' })).toBe(false);
    writeWaiting();
    expect(kept(dir)).toHaveLength(2);
  });
});
