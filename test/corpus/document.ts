import { readFile } from 'node:fs/promises';
import { load as parseYaml } from 'js-yaml';
import swagger2openapi from 'swagger2openapi';

/**
 * The harness's own reading of a document, independent of src/openapi: it parses the file itself,
 * turns Swagger 2.0 into OpenAPI 3.0 with swagger2openapi (the reference converter) and prepares
 * the schemas for its own Ajv instances. Nothing here is shared with the sandbox.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface HarnessDocument {
  /** 3.0 or 3.1 (Swagger 2.0 arrives converted). */
  readonly dialect: '3.0' | '3.1';
  /** The document as OpenAPI 3.x, untouched by the preparation below. */
  readonly doc: JsonObject;
}

export async function readHarnessDocument(file: string): Promise<HarnessDocument> {
  // A byte-order mark is legal at the start of a JSON text a parser may ignore (RFC 8259 §8.1).
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const raw = (/^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text)) as unknown;
  if (!isObject(raw)) throw new Error('corpus: the document is not an object');
  if (raw.swagger === '2.0') {
    const converted = await swagger2openapi.convertObj(raw as never, { patch: true, warnOnly: true });
    return { dialect: '3.0', doc: converted.openapi as unknown as JsonObject };
  }
  const version = typeof raw.openapi === 'string' ? raw.openapi : '';
  return { dialect: version.startsWith('3.1') ? '3.1' : '3.0', doc: raw };
}

/** A JSON Pointer (RFC 6901) as a URI fragment, the form Ajv resolves `$ref`s in. */
export const pointer = (segments: readonly string[]): string =>
  '#' + segments.map((s) => '/' + encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('');

function lookup(doc: JsonObject, ref: string): { value: Json | undefined; segments: string[] } {
  if (!ref.startsWith('#')) return { value: undefined, segments: [] };
  const segments = ref
    .slice(1)
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Json | undefined = doc;
  for (const s of segments) node = isObject(node) ? node[s] : Array.isArray(node) ? node[Number(s)] : undefined;
  return { value: node, segments };
}

/** Follows local `$ref`s; returns the object reached and where it is. External refs give undefined. */
export function deref(doc: JsonObject, node: Json | undefined, at: readonly string[]): { value: JsonObject; at: string[] } | undefined {
  let current = node;
  let where = [...at];
  for (let hops = 0; hops < 32; hops++) {
    if (!isObject(current)) return undefined;
    if (typeof current.$ref !== 'string') return { value: current, at: where };
    const next = lookup(doc, current.$ref);
    current = next.value;
    where = next.segments;
  }
  return undefined;
}

/** The direction a schema is read in: readOnly properties are not required in requests, writeOnly not in answers. */
export type Direction = 'request' | 'response';

const SKIP = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * A copy of the document whose schemas Ajv can compile: for 3.0, `nullable` and boolean
 * `exclusiveMinimum`/`exclusiveMaximum` (JSON Schema draft 4 style, OpenAPI 3.0 §4.7.24) become
 * their 2020-12 spellings; in both dialects a required property that is readOnly (requests) or
 * writeOnly (answers) stops being required (OpenAPI 3.0 §4.7.25, "readOnly"/"writeOnly").
 * The input is not changed.
 */
export function prepare(doc: JsonObject, dialect: '3.0' | '3.1', direction: Direction): JsonObject {
  const skipped = direction === 'request' ? 'readOnly' : 'writeOnly';
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    let out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) out[key] = SKIP.has(key) || key.startsWith('x-') ? value : walk(value);
    if (isObject(out.properties) && Array.isArray(out.required)) {
      const props = out.properties;
      out.required = out.required.filter((name) => !(typeof name === 'string' && isObject(props[name]) && props[name][skipped] === true));
    }
    if (dialect === '3.0') out = normalise30(out);
    return out;
  };
  return walk(doc) as JsonObject;
}

function normalise30(schema: JsonObject): JsonObject {
  const out: JsonObject = { ...schema };
  for (const [flag, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  if (out.nullable !== true) {
    // Only the keyword: a property map may well have a property called "nullable".
    if (typeof out.nullable === 'boolean') delete out.nullable;
    return out;
  }
  delete out.nullable;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}
