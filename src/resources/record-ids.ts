import { propertyNames, propertySchema } from '../openapi/bindings.js';
import { follow, isArray, isObject, type JsonObject } from '../openapi/json-pointer.js';
import type { IdKind, OperationSpec } from '../vocabulary/operation.js';

/** Which property of a record names it, and what kind of id it holds: read from the record's schema. */

export interface RecordIdentity {
  readonly property: string;
  readonly kind: IdKind;
}

/** Names a record's id goes by, after the item path's own parameter name: the commonest first. */
const GENERIC_NAMES = ['id', 'uuid', '_id', 'key'] as const;

/**
 * The record's id property and kind, when the schema describes a record the store can hold: the
 * property the item path's parameter names (`{username}` → `username`, `{Sid}` → `sid`; `{team_slug}` → `slug`), else `id`, `uuid`, `_id`,
 * `key`, `<singular>Id` or `<singular>_id` (`orderId` in `/orders`), else the record's one read-only
 * identifier (`sku`, `handle`… marked `readOnly`). The first of these the record has decides: one
 * that is not an id (an enum, an object, a boolean) makes the record one the store does not hold.
 */
export function recordIdentity(
  document: unknown,
  schema: JsonObject,
  pointer: string,
  itemParam: string | undefined,
  collection: string,
): RecordIdentity | undefined {
  const singular = singularOf(collection);
  // The parameter's own name in another case (Twilio's `{Sid}` names `sid`).
  const lower = itemParam?.toLowerCase();
  const cased =
    lower === undefined ? undefined : propertyNames(document, schema, pointer).find((n) => n !== itemParam && n.toLowerCase() === lower);
  const names = [itemParam, cased, unprefixed(itemParam, singular), ...GENERIC_NAMES, `${singular}Id`, `${singular}_id`, `${singular}ID`];
  for (const name of names) {
    if (name === undefined) continue;
    const prop = propertySchema(document, schema, pointer, name);
    if (!prop) continue;
    const kind = idKindOf(document, prop);
    return kind === undefined ? undefined : { property: name, kind };
  }
  const readOnly = readOnlyIdentifiers(document, schema, pointer);
  if (readOnly.length !== 1) return undefined;
  const [name, prop] = readOnly[0] as [string, JsonObject];
  const kind = idKindOf(document, prop);
  return kind === undefined ? undefined : { property: name, kind };
}

/**
 * The item parameter less the collection's singular: `{team_slug}` names a team's `slug`,
 * `{issue_number}` an issue's `number`, `{userName}` a user's `name`.
 */
function unprefixed(param: string | undefined, singular: string): string | undefined {
  if (param === undefined || singular === '') return undefined;
  const rest = param.startsWith(`${singular}_`)
    ? param.slice(singular.length + 1)
    : param.startsWith(singular)
      ? param.slice(singular.length)
      : '';
  return rest === '' || rest.toLowerCase() === 'id' ? undefined : rest.charAt(0).toLowerCase() + rest.slice(1);
}

/** `orders` → `order`, `categories` → `category`, `addresses` → `address`; the last path word only. */
export function singularOf(collection: string): string {
  const word = collection.split('/').at(-1) ?? collection;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^su]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** A property named like an identifier: `sku`, `slug`, `product_id`, `productId`, `accountKey`. */
const IDENTIFIER_NAME = /^(?:id|uuid|key|code|sku|slug|handle)$|_(?:id|uuid|key|code)$|[a-z](?:Id|ID|Uuid|UUID|Key|Code)$/;

/** The record's `readOnly` properties whose schema could be an id (scalars named like one). */
function readOnlyIdentifiers(document: unknown, schema: JsonObject, pointer: string): [string, JsonObject][] {
  const props = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  const found: [string, JsonObject][] = [];
  for (const name of props) {
    if (!IDENTIFIER_NAME.test(name)) continue;
    const prop = propertySchema(document, schema, pointer, name);
    if (prop && resolved(document, prop).readOnly === true) found.push([name, prop]);
  }
  return found;
}

/** A schema with its `$ref` followed (once; the document's own refs are resolved already). */
const resolved = (document: unknown, schema: JsonObject): JsonObject => {
  if (typeof schema.$ref !== 'string') return schema;
  const target = follow(document, schema.$ref).value;
  return isObject(target) ? target : schema;
};

/** Keywords of an id's schema gathered through `allOf` (ShipEngine's ids are `allOf: [{$ref: se_id}]`). */
interface IdKeywords {
  types: string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  constrained: boolean;
  examples: string[];
}

function gather(document: unknown, schema: JsonObject, into: IdKeywords, depth = 0): void {
  const s = resolved(document, schema);
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  for (const type of types) if (typeof type === 'string' && type !== 'null') into.types.push(type);
  if (typeof s.format === 'string') into.format ??= s.format;
  if (typeof s.pattern === 'string') into.pattern ??= s.pattern;
  if (typeof s.minLength === 'number') into.minLength = Math.max(into.minLength ?? 0, s.minLength);
  if (typeof s.maxLength === 'number') into.maxLength = Math.min(into.maxLength ?? Infinity, s.maxLength);
  if (s.enum !== undefined || s.const !== undefined) into.constrained = true;
  if (typeof s.example === 'string') into.examples.push(s.example);
  if (isArray(s.examples)) for (const e of s.examples) if (typeof e === 'string') into.examples.push(e);
  if (depth < 8 && isArray(s.allOf)) for (const member of s.allOf) if (isObject(member)) gather(document, member, into, depth + 1);
}

/**
 * The kind of id a property's schema holds: whole numbers (integer, number, or no type and no
 * string keyword), a UUID (`format: uuid`), any other string; undefined for what cannot be an id
 * (an enum or const, an object, an array, a boolean). `clientNamed` is decided by the caller.
 */
export function idKindOf(document: unknown, schema: JsonObject): IdKind | undefined {
  const k: IdKeywords = { types: [], constrained: false, examples: [] };
  gather(document, schema, k);
  if (k.constrained) return undefined;
  const stringy = k.format !== undefined || k.pattern !== undefined || k.minLength !== undefined || k.maxLength !== undefined;
  if (k.types.includes('integer') || k.types.includes('number')) return { kind: 'integer' };
  if (k.types.length > 0 && !k.types.includes('string')) return undefined;
  if (k.types.length === 0 && !stringy) return { kind: 'integer' };
  if (k.format === 'uuid') return { kind: 'uuid', clientNamed: false };
  const prefix = prefixOf(k.pattern, k.examples);
  return {
    kind: 'string',
    clientNamed: false,
    ...(prefix === undefined ? {} : { prefix }),
    ...(k.pattern === undefined ? {} : { pattern: k.pattern }),
    ...(k.format === undefined ? {} : { format: k.format }),
    ...(k.minLength === undefined ? {} : { minLength: k.minLength }),
    ...(k.maxLength === undefined || k.maxLength === Infinity ? {} : { maxLength: k.maxLength }),
  };
}

/**
 * A prefix the ids share: the literal start of an anchored pattern (`^cus_[A-Za-z0-9]+$` → `cus_`),
 * else the part up to the first `_` or `-` that every example shares (`cus_9s6X…` → `cus_`).
 */
function prefixOf(pattern: string | undefined, examples: readonly string[]): string | undefined {
  if (pattern !== undefined) {
    const literal = /^\^((?:[A-Za-z0-9]|\\[-_])+[_-])/.exec(pattern)?.[1];
    return literal?.replace(/\\/g, '');
  }
  const heads = examples.map((e) => /^([a-z][a-z0-9]{0,11}[_-])[A-Za-z0-9]/.exec(e)?.[1]);
  const first = heads[0];
  return first !== undefined && heads.every((h) => h === first) ? first : undefined;
}

/**
 * An id kind the record's property leaves open (a plain string), narrowed by what the item path's
 * parameter asks of it (Twilio's `{UserSid}` with `pattern: US[0-9a-f]{32}`): a minted id must be
 * one the record can be read back by.
 */
export function narrowedByParameter(
  document: unknown,
  kind: IdKind,
  items: readonly OperationSpec[],
  itemParam: string | undefined,
): IdKind {
  if (kind.kind !== 'string' || kind.pattern !== undefined || kind.format !== undefined || kind.prefix !== undefined) return kind;
  if (itemParam === undefined) return kind;
  const pointer = items.flatMap((op) => op.parameters).find((p) => p.in === 'path' && p.name === itemParam)?.schemaPointer;
  const param = pointer === undefined ? undefined : follow(document, pointer).value;
  const narrower = isObject(param) ? idKindOf(document, param) : undefined;
  if (narrower?.kind === 'uuid') return narrower;
  return narrower?.kind === 'string' && (narrower.pattern !== undefined || narrower.format !== undefined) ? narrower : kind;
}
