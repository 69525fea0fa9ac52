import { isArray, isObject, valueAt, type JsonObject } from '../openapi/json-pointer.js';

/**
 * Schemas taken out of an OpenAPI document into one self-contained JSON Schema: every `$ref` the
 * schemas reach (`#/components/schemas/Pet`) is copied once under `$defs` (`#/$defs/Pet`), so a
 * recursive schema stays finite and a schema two parameters share is written once.
 */
export class SchemaDefs {
  private readonly names = new Map<string, string>();
  private readonly defs: Record<string, unknown> = {};

  constructor(private readonly document: unknown) {}

  /** The schema at `pointer`, its references pointing into `$defs`; a pointer that holds nothing is any value. */
  schema(pointer: string | undefined): JsonObject {
    if (pointer === undefined) return {};
    const found = valueAt(this.document, pointer);
    if (found === false) return { not: {} };
    return isObject(found) ? this.walk(found) : {};
  }

  /** Every definition the schemas taken so far reach, for the root's `$defs` (absent when none). */
  all(): Readonly<Record<string, unknown>> | undefined {
    return Object.keys(this.defs).length === 0 ? undefined : { ...this.defs };
  }

  /** The definition's name for a pointer, copied on first sight. */
  private defined(pointer: string): string {
    const known = this.names.get(pointer);
    if (known !== undefined) return known;
    const last = pointer.split('/').at(-1) ?? 'schema';
    const base =
      last
        .replace(/~1/g, '_')
        .replace(/~0/g, '_')
        .replace(/[^A-Za-z0-9_.-]+/g, '_') || 'schema';
    let name = base;
    for (let n = 2; Object.hasOwn(this.defs, name); n++) name = `${base}_${n}`;
    this.names.set(pointer, name);
    this.defs[name] = {};
    const target = valueAt(this.document, pointer);
    this.defs[name] = isObject(target) ? this.walk(target) : target === false ? { not: {} } : {};
    return name;
  }

  private walk(schema: JsonObject): JsonObject {
    const out: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === '$ref' && typeof value === 'string' && value.startsWith('#')) out.$ref = `#/$defs/${this.defined(value)}`;
      else if (LITERAL.has(keyword) || keyword.startsWith('x-')) out[keyword] = value;
      else if (NAMED.has(keyword) && isObject(value)) out[keyword] = this.named(value);
      else out[keyword] = this.any(value);
    }
    return out;
  }

  /** `properties` and its kind: names, each a schema. */
  private named(map: JsonObject): JsonObject {
    return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, this.any(schema)]));
  }

  private any(value: unknown): unknown {
    if (isArray(value)) return value.map((item) => this.any(item));
    return isObject(value) ? this.walk(value) : value;
  }
}

/** Keywords whose values are data, not schemas: copied as they are. */
const LITERAL = new Set(['example', 'examples', 'default', 'enum', 'const', 'required', 'discriminator', 'xml', 'externalDocs']);
/** Keywords whose values map names to schemas. */
const NAMED = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
