import type { Faker } from '@faker-js/faker';
import { isObject, type JsonObject } from '../openapi/json-pointer.js';
import { followed, satisfies } from '../schemas/document-schemas.js';
import { byName, xFakerValue } from './realistic-values.js';
import { branchesMatched, toldApart } from './one-of.js';
import { fakeNumber, fakeString } from './scalar-values.js';
import { flatten, mergeParts, planObject, typeOfParts, type ObjectPlan, type Part } from './schema-parts.js';

/**
 * Below this depth values are generated in full; deeper, only what the schema requires (required
 * properties, `minItems` items), so a deep document (Kubernetes nests objects ten levels down)
 * still gets valid values; past HARD_DEPTH generation stops, which only a schema that requires
 * itself without end can reach.
 */
const MAX_DEPTH = 6;
const HARD_DEPTH = 32;

/**
 * What a schema no value satisfies gives (an `enum` of strings under `type: object`, `false`): an
 * optional property or a surplus item is then left out; where one is needed, the fallback stands.
 */
class Unsatisfiable {
  constructor(readonly fallback: unknown) {}
}

interface Context {
  readonly document: unknown;
  readonly faker: Faker;
}

/**
 * Generates a value that satisfies the schema at `pointer`, using a seeded faker so the same seed
 * gives the same value. Follows `$ref`s by pointer, so recursive schemas stop at a fixed depth.
 * `name` is the property the value is for: it picks a realistic generator (`email`, `city`).
 */
export function fakeFromSchema(document: unknown, pointer: string, faker: Faker, depth = 0, name?: string): unknown {
  const value = atPointer({ document, faker }, pointer, depth, name);
  return value instanceof Unsatisfiable ? value.fallback : value;
}

function atPointer(context: Context, pointer: string, depth: number, name?: string): unknown {
  const { value, pointer: at } = followed(context.document, pointer);
  if (!isObject(value)) return value === false ? new Unsatisfiable(null) : null;
  return fromSchema(context, value, at, depth, name);
}

/** `at` is where the schema lives; undefined for one merged from several (mergeParts). */
function fromSchema(context: Context, schema: JsonObject, at: string | undefined, depth: number, name?: string): unknown {
  const { document, faker } = context;
  if (schema.const !== undefined) return schema.const;
  if (at !== undefined) {
    const custom = xFakerValue(schema, faker);
    if (custom && satisfies(document, at, custom.value)) return custom.value;
    // A schema's own examples, only those that satisfy it (an invalid one is reported, never served).
    const examples = depth > 0 && Array.isArray(schema.examples) ? schema.examples.filter((ex) => satisfies(document, at, ex)) : [];
    if (examples.length > 0) return faker.helpers.arrayElement(examples);
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fromEnum(schema.enum, typeOfParts([{ schema, at: '' }]), faker);
  if (at !== undefined && ['allOf', 'anyOf', 'oneOf'].some((k) => Array.isArray(schema[k]))) {
    return withChoices(context, flatten(document, schema, at), new Set(), depth, name);
  }
  return byType(context, schema, at, typeOfParts([{ schema, at: at ?? '' }]), depth, name);
}

/** An enum value of the declared type; none of it makes the schema unsatisfiable (`type: object, enum: [SELF]`). */
function fromEnum(values: readonly unknown[], type: string | undefined, faker: Faker): unknown {
  const typed = type === undefined ? values : values.filter((v) => ofType(v, type));
  return typed.length > 0 ? faker.helpers.arrayElement(typed) : new Unsatisfiable(values[0]);
}

/**
 * The values a `const` or `enum` among the parts lists that satisfy every part, whatever their type
 * (an enum of objects behind an `allOf` is not an object to build); undefined when no part lists any.
 */
function listedBy(document: unknown, parts: readonly Part[]): { members: readonly unknown[]; values: readonly unknown[] } | undefined {
  const listing = parts.find(({ schema }) => schema.const !== undefined || Array.isArray(schema.enum));
  if (listing === undefined) return undefined;
  const members = listing.schema.const !== undefined ? [listing.schema.const] : (listing.schema.enum as unknown[]);
  return { members, values: members.filter((value) => parts.every(({ at }) => satisfies(document, at, value))) };
}

function ofType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'object') return isObject(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

/**
 * A value for all `parts` together, a branch chosen for each `anyOf` and `oneOf` among them: the
 * first whose value the parts accept as a whole (the choice included), else the first branch's.
 * A `oneOf` value must match exactly one branch (one-of.ts): each branch is tried in full, then
 * with its required members only (`oneOf: [{required: [email]}, {required: [phone]}]` would match
 * an object with every property), then drawn again and told apart from the branches it also matches.
 */
function withChoices(
  context: Context,
  parts: readonly Part[],
  decided: ReadonlySet<string>,
  depth: number,
  name?: string,
  lean = false,
): unknown {
  const { document } = context;
  const choice = parts.find(({ schema, at }) => !decided.has(at) && (nonEmpty(schema.oneOf) || nonEmpty(schema.anyOf)));
  if (choice === undefined) return fromParts(context, parts, depth, name, lean);
  const keyword = nonEmpty(choice.schema.oneOf) ? 'oneOf' : 'anyOf';
  const count = (choice.schema[keyword] as readonly unknown[]).length;
  const next = new Set([...decided, choice.at]);
  const partsOf = (i: number): Part[] => {
    const { value, pointer } = followed(document, `${choice.at}/${keyword}/${i}`);
    return [...parts, ...(isObject(value) ? flatten(document, value, pointer) : [])];
  };
  const branch = (i: number, leanObject: boolean): unknown => withChoices(context, partsOf(i), next, depth, name, leanObject);
  const whole = (value: unknown): boolean => !(value instanceof Unsatisfiable) && parts.every(({ at }) => satisfies(document, at, value));
  let first: unknown;
  let alone: unknown;
  for (const leanObject of keyword === 'anyOf' || lean ? [lean] : [false, true]) {
    for (let i = 0; i < count; i++) {
      const value = branch(i, leanObject);
      first ??= value;
      if (whole(value)) return value;
      if (keyword === 'oneOf' && !(value instanceof Unsatisfiable) && branchesMatched(document, choice.at, count, value) === 1)
        alone ??= value;
    }
  }
  if (keyword === 'anyOf') return first;
  const valueFor = (pointer: string, member: string): unknown => {
    const value = atPointer(context, pointer, depth + 1, member);
    return value instanceof Unsatisfiable ? value.fallback : value;
  };
  // An object is told apart in the first round; a scalar is drawn again (an integral `number`).
  const drawn = new Set<number>();
  for (let round = 0; round < REDRAWS; round++) {
    for (let i = 0; i < count; i++) {
      if (drawn.has(i)) continue;
      const value = branch(i, lean);
      if (isObject(value)) drawn.add(i);
      if (whole(value)) return value;
      const apart = value instanceof Unsatisfiable ? undefined : toldApart(document, choice.at, count, i, partsOf(i), value, valueFor);
      if (apart !== undefined && whole(apart)) return apart;
    }
  }
  return alone ?? first;
}

/** How many times a `oneOf` branch whose value is not an object is drawn again. */
const REDRAWS = 8;

const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** `lean`: an object gets its required members only. */
function fromParts(context: Context, parts: readonly Part[], depth: number, name?: string, lean = false): unknown {
  const listed = listedBy(context.document, parts);
  if (listed !== undefined) {
    return listed.values.length > 0 ? context.faker.helpers.arrayElement(listed.values) : new Unsatisfiable(listed.members[0]);
  }
  const type = typeOfParts(parts);
  if (type === 'object') return fakeObject(context, planObject(parts), depth, lean);
  return fromSchema(context, mergeParts(parts), undefined, depth, name);
}

function byType(
  context: Context,
  schema: JsonObject,
  at: string | undefined,
  type: string | undefined,
  depth: number,
  name?: string,
): unknown {
  switch (type) {
    case 'object':
      return at === undefined ? {} : fakeObject(context, planObject([{ schema, at }]), depth);
    case 'array':
      return fakeArray(context, schema, at, depth);
    case 'integer':
    case 'number':
      return fakeNumber(schema, context.faker, type === 'integer');
    case 'boolean':
      return context.faker.datatype.boolean();
    case 'null':
      return null;
    default:
      return fakeString(schema, context.faker, name);
  }
}

/** Where a subschema is: under the schema's own pointer, or the `$ref` a merged schema holds. */
function child(node: unknown, at: string | undefined, path: string): string | undefined {
  if (at !== undefined) return `${at}/${path}`;
  return isObject(node) && typeof node.$ref === 'string' ? node.$ref : undefined;
}

function fakeArray(context: Context, schema: JsonObject, at: string | undefined, depth: number): unknown[] {
  const { faker } = context;
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.map((node, i) => child(node, at, `prefixItems/${i}`)) : [];
  const items = isObject(schema.items) || schema.items === true ? child(schema.items, at, 'items') : undefined;
  const deep = depth >= MAX_DEPTH;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : undefined;
  if (depth >= HARD_DEPTH || (items === undefined && prefix.length === 0 && !minItems) || (deep && !minItems)) return [];
  const min = minItems ?? 1;
  let max = deep ? min : Math.max(min, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, min + 3));
  if (schema.items === false) max = Math.min(max, prefix.length);
  const count = faker.number.int({ min: Math.min(min, max), max });
  // uniqueItems (2020-12 validation §6.4.3): a repeated value is drawn again, a few times at most.
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (let tries = 0; out.length < count && tries < count * 4; tries++) {
    const pointer = prefix[out.length] ?? items;
    let value = pointer === undefined ? faker.lorem.word() : atPointer(context, pointer, depth + 1);
    if (value instanceof Unsatisfiable) {
      if (out.length >= min) break;
      value = value.fallback;
    }
    if (schema.uniqueItems === true) {
      const key = JSON.stringify(value);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(value);
  }
  return out;
}

/**
 * An object with the plan's properties (only the required ones past MAX_DEPTH, none another part
 * closes with `additionalProperties: false` unless required), then every required member the
 * properties do not declare, from `patternProperties` or `additionalProperties` when they say what
 * it holds, then members up to `minProperties`.
 */
function fakeObject(context: Context, plan: ObjectPlan, depth: number, lean = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth >= HARD_DEPTH) return out;
  const generate = (member: string, pointers: readonly string[]): unknown => {
    if (pointers.length === 0) return byName(member, context.faker) ?? context.faker.lorem.word();
    if (pointers.length === 1) return atPointer(context, pointers[0] ?? '', depth + 1, member);
    // Declared by several allOf members: the value must satisfy each declaration.
    const parts = pointers.flatMap((pointer) => {
      const { value, pointer: at } = followed(context.document, pointer);
      return isObject(value) ? flatten(context.document, value, at) : [];
    });
    return withChoices(context, parts, new Set(), depth + 1, member);
  };
  const undeclared = (member: string): readonly string[] => {
    const pointer = plan.schemaFor(member);
    return pointer === undefined ? [] : [pointer];
  };
  for (const [member, pointers] of plan.properties) {
    const required = plan.required.has(member);
    if (!required && (lean || depth >= MAX_DEPTH || !plan.allowed(member))) continue;
    const value = generate(member, pointers);
    if (value instanceof Unsatisfiable && !required) continue;
    put(out, member, value instanceof Unsatisfiable ? value.fallback : value);
  }
  for (const member of plan.required) {
    if (Object.hasOwn(out, member)) continue;
    const value = generate(member, undeclared(member));
    put(out, member, value instanceof Unsatisfiable ? value.fallback : value);
  }
  for (let i = 0; Object.keys(out).length < plan.minProperties && i < plan.minProperties * 2; i++) {
    const member = `${context.faker.lorem.word()}${i}`;
    if (!plan.allowed(member)) break;
    const value = generate(member, plan.properties.get(member) ?? undeclared(member));
    if (!(value instanceof Unsatisfiable)) put(out, member, value);
  }
  return out;
}

/**
 * Sets a member. A property a document names `__proto__` is defined, so it is data, not a prototype
 * (the one name an assignment would not make an own property of); any other is assigned, which is
 * several times faster and keeps records of one schema on one hidden class.
 */
function put(target: Record<string, unknown>, member: string, value: unknown): void {
  if (member === '__proto__') Object.defineProperty(target, member, { value, enumerable: true, writable: true, configurable: true });
  else target[member] = value;
}
