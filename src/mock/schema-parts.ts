import { escapePointerToken, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { followed } from '../schemas/document-schemas.js';
import { matchesPattern } from './pattern-values.js';

/**
 * A schema read as the list of schemas a value must satisfy together: itself and, flattened, its
 * `allOf` members (JSON Schema 2020-12 core §10.2.1.1), each with the pointer it lives at so the
 * values of its properties are generated from the document itself.
 */
export interface Part {
  readonly schema: JsonObject;
  readonly at: string;
}

const COMPOSITION = new Set(['allOf', 'anyOf', 'oneOf']);

/** The schema and its `allOf` members, depth first, `$ref`s followed; each schema once. */
export function flatten(document: unknown, schema: JsonObject, at: string, out: Part[] = [], seen = new Set<string>()): Part[] {
  if (seen.has(at)) return out;
  seen.add(at);
  out.push({ schema, at });
  if (!Array.isArray(schema.allOf)) return out;
  for (let i = 0; i < schema.allOf.length; i++) {
    const member = followed(document, `${at}/allOf/${i}`);
    if (isObject(member.value)) flatten(document, member.value, member.pointer, out, seen);
  }
  return out;
}

/** The first `type` the parts name, `null` only when nothing else is allowed. */
export function typeOfParts(parts: readonly Part[]): string | undefined {
  for (const { schema } of parts) {
    if (typeof schema.type === 'string') return schema.type;
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t): t is string => typeof t === 'string');
      return types.find((t) => t !== 'null') ?? types[0];
    }
  }
  return parts.some(({ schema }) => isObject(schema.properties) || Array.isArray(schema.required) || isObject(schema.patternProperties))
    ? 'object'
    : undefined;
}

const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const SUBSCHEMAS = new Set(['items', 'prefixItems', 'additionalItems', 'contains', 'additionalProperties', 'propertyNames', 'not']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);

/**
 * One schema with the keywords of all parts, for a value that is not an object: the tightest bounds,
 * the enum values every part allows, the first of any other keyword. Subschemas (`items`) become
 * `$ref`s to where they are, so they are still generated from the document.
 */
export function mergeParts(parts: readonly Part[]): JsonObject {
  const out: Record<string, unknown> = {};
  for (const { schema, at } of parts) {
    for (const [key, value] of Object.entries(schema)) {
      if (COMPOSITION.has(key) || key === '$ref') continue;
      const held = out[key];
      if (typeof held === 'number' && typeof value === 'number' && LOWER_BOUNDS.has(key)) out[key] = Math.max(held, value);
      else if (typeof held === 'number' && typeof value === 'number' && UPPER_BOUNDS.has(key)) out[key] = Math.min(held, value);
      else if (key === 'enum' && Array.isArray(held) && Array.isArray(value)) {
        const allowed = value.map((v) => JSON.stringify(v));
        out.enum = held.filter((v) => allowed.includes(JSON.stringify(v)));
      } else if (held === undefined)
        out[key] = SUBSCHEMAS.has(key) && (isObject(value) || Array.isArray(value)) ? { $ref: `${at}/${key}` } : value;
    }
  }
  if (isObject(out.prefixItems)) {
    // prefixItems is a list of schemas: each becomes a reference of its own.
    const where = String(out.prefixItems.$ref);
    const source = parts.find((p) => `${p.at}/prefixItems` === where)?.schema.prefixItems;
    out.prefixItems = Array.isArray(source) ? source.map((_, i) => ({ $ref: `${where}/${i}` })) : [];
  }
  return out;
}

/** What the parts together say about an object's members. */
export interface ObjectPlan {
  /** Declared properties, each with the pointers of its schemas (every part that declares it: all apply). */
  readonly properties: ReadonlyMap<string, readonly string[]>;
  readonly required: ReadonlySet<string>;
  /** Whether a member of that name is allowed: `additionalProperties: false` sees only its own part's properties. */
  readonly allowed: (name: string) => boolean;
  /** The schema an undeclared member of that name must satisfy, when one says so. */
  readonly schemaFor: (name: string) => string | undefined;
  readonly minProperties: number;
}

export function planObject(parts: readonly Part[]): ObjectPlan {
  const properties = new Map<string, string[]>();
  const required = new Set<string>();
  const closed: { names: ReadonlySet<string>; patterns: readonly string[] }[] = [];
  const patterns: [string, string][] = [];
  let additional: string | undefined;
  let minProperties = 0;
  for (const { schema, at } of parts) {
    const own = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    for (const name of own) {
      const pointer = `${at}/properties/${escapePointerToken(name)}`;
      const known = properties.get(name);
      if (known) known.push(pointer);
      else properties.set(name, [pointer]);
    }
    if (Array.isArray(schema.required)) for (const name of schema.required) if (typeof name === 'string') required.add(name);
    const ownPatterns = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
    for (const p of ownPatterns) patterns.push([p, `${at}/patternProperties/${escapePointerToken(p)}`]);
    if (schema.additionalProperties === false) closed.push({ names: new Set(own), patterns: ownPatterns });
    else if (isObject(schema.additionalProperties)) additional ??= `${at}/additionalProperties`;
    if (typeof schema.minProperties === 'number') minProperties = Math.max(minProperties, schema.minProperties);
  }
  return {
    properties,
    required,
    allowed: (name) => closed.every((c) => c.names.has(name) || c.patterns.some((p) => matchesPattern(p, name))),
    schemaFor: (name) => patterns.find(([p]) => matchesPattern(p, name))?.[1] ?? additional,
    minProperties,
  };
}
