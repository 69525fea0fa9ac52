import { deref, isObject, type Json, type JsonObject } from './document.js';
import { fromPattern } from './pattern.js';

/**
 * A value for a schema, built from the document alone: the schema's own example first (when
 * `useExamples`), else the smallest value its keywords allow. Deterministic: the same schema gives
 * the same value. The caller checks the result with its own validator, so a miss here shows as
 * "unbuildable", never as a sandbox failure.
 */
export interface GenerateOptions {
  readonly doc: JsonObject;
  readonly useExamples: boolean;
}

const FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2026-01-02T03:04:05Z',
  date: '2026-01-02',
  time: '03:04:05Z',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com/corpus',
  url: 'https://example.com/corpus',
  'uri-reference': '/corpus',
  iri: 'https://example.com/corpus',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.com',
  byte: 'Y29ycHVz',
  binary: 'corpus',
  password: 'corpus-secret',
  duration: 'P1D',
};

export function generate(schema: Json | undefined, options: GenerateOptions, depth = 0): Json | undefined {
  const found = deref(options.doc, schema, []);
  if (!found || depth > 12) return undefined;
  const s = found.value;
  if (options.useExamples) {
    if (s.example !== undefined) return s.example;
    if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0] ?? null;
  }
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.find((v) => v !== null) ?? s.enum[0] ?? null;
  if (s.default !== undefined && options.useExamples) return s.default;
  if (Array.isArray(s.allOf)) return allOf(s, options, depth);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0) {
      // The first branch that is not just `null`.
      const branch = branches.find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
      const value = generate(branch, options, depth + 1);
      const own = withoutKeyword(s, key);
      return isObject(value) && Object.keys(own).length > 0 ? { ...(generate(own, options, depth + 1) as JsonObject), ...value } : value;
    }
  }
  switch (typeOf(s)) {
    case 'object':
      return object(s, options, depth);
    case 'array':
      return array(s, options, depth);
    case 'string':
      return string(s);
    case 'integer':
      return number(s, true);
    case 'number':
      return number(s, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'corpus';
  }
}

function withoutKeyword(s: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = s;
  return rest;
}

function typeOf(s: JsonObject): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t): t is string => typeof t === 'string' && t !== 'null') ?? 'null';
  if (isObject(s.properties) || Array.isArray(s.required) || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined) return 'array';
  return undefined;
}

function allOf(s: JsonObject, options: GenerateOptions, depth: number): Json | undefined {
  const parts = [...(s.allOf as Json[]), withoutKeyword(s, 'allOf')].map((branch) => generate(branch, options, depth + 1));
  const objects = parts.filter(isObject);
  if (objects.length > 0) return Object.assign({}, ...objects) as JsonObject;
  return parts.find((p) => p !== undefined && p !== 'corpus') ?? parts[0];
}

function object(s: JsonObject, options: GenerateOptions, depth: number): JsonObject {
  const properties = isObject(s.properties) ? s.properties : {};
  const out: JsonObject = {};
  for (const name of Array.isArray(s.required) ? s.required : []) {
    if (typeof name !== 'string') continue;
    const value = properties[name] === undefined ? 'corpus' : generate(properties[name], options, depth + 1);
    if (value !== undefined) out[name] = value;
  }
  const min = typeof s.minProperties === 'number' ? s.minProperties : 0;
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.keys(out).length >= min) break;
    const value = generate(schema, options, depth + 1);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function array(s: JsonObject, options: GenerateOptions, depth: number): Json[] {
  const min = typeof s.minItems === 'number' ? s.minItems : 1;
  const max = typeof s.maxItems === 'number' ? s.maxItems : Math.max(min, 1);
  const count = Math.min(Math.max(min, 1), max);
  const item = generate(s.items, options, depth + 1) ?? 'corpus';
  // uniqueItems: vary scalar items by their index.
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? item : typeof item === 'string' ? `${item}${i}` : typeof item === 'number' ? item + i : item,
  );
}

function string(s: JsonObject): string {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  let value = typeof s.pattern === 'string' ? (fromPattern(s.pattern, min) ?? 'corpus') : (FORMATS[String(s.format)] ?? 'corpus');
  if (value.length < min) value = value.padEnd(min, 'x');
  if (value.length > max) value = value.slice(0, max);
  return value;
}

function number(s: JsonObject, integer: boolean): number {
  const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : undefined;
  let value = min ?? (max !== undefined && max < 1 ? max : 1);
  if (integer) value = Math.ceil(value);
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
  if (step !== undefined) value = Math.ceil(value / step) * step;
  return value;
}
