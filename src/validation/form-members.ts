import { follow, isObject } from '../openapi/json-pointer.js';
import { variantsOf } from '../openapi/parameters.js';
import { alternativesOf, kindOf, schemaAt } from '../openapi/value-kind.js';
import type { Violation } from '../vocabulary/errors.js';
import type { ValueKind } from '../vocabulary/operation.js';
import { properties } from './body-fields.js';
import { parseScalar } from './parse-parameter.js';

/**
 * Form fields sent as nested keys (`metadata[plan]=pro`, `items[0][price]=p_1`, `expand[]=a`): the
 * deepObject style of OpenAPI 3.1 §4.8.12.4 applied to any depth, as form encoders of real APIs
 * write objects and arrays of objects (the `qs` convention). The members form a tree; each level is
 * read against the schema at its depth (a property, `additionalProperties`, `items`; the object or
 * array branch of a `oneOf`/`anyOf`), and each text coerced to its schema's type as a query value is.
 */

/** The members sent under one field name, as a tree of keys. */
export interface Members {
  /** Texts sent for this very key (`a=1`, or `a[b]=1` at `b`). */
  readonly texts: string[];
  readonly children: Map<string, Members>;
  /** How many `[]` members were appended (each is the next index). */
  appended: number;
}

export const newMembers = (): Members => ({ texts: [], children: new Map(), appended: 0 });

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])+)$/;
const INDEX = /^(0|[1-9][0-9]{0,5})$/;

/** How deep members are read (`a[b][c]…`); a deeper key is a name of its own, which the schema judges. */
const MAX_DEPTH = 16;

/** `items[0][price]` as `['items', ['0', 'price']]`; undefined for a plain, malformed or too deep name. */
export function splitKey(key: string): readonly [string, readonly string[]] | undefined {
  const match = KEY.exec(key);
  if (!match) return undefined;
  const path = (match[2] ?? '').slice(1, -1).split('][');
  return path.length > MAX_DEPTH ? undefined : [match[1] ?? '', path];
}

/** Adds one `name[a][b]=text` member under `tree`. */
export function addMember(tree: Members, path: readonly string[], text: string): void {
  let node = tree;
  for (const step of path) {
    const key = step === '' ? String(node.appended++) : step;
    let next = node.children.get(key);
    if (!next) node.children.set(key, (next = newMembers()));
    node = next;
  }
  node.texts.push(text);
}

/**
 * The JSON value of a tree of members, read against the schema at `pointer` (undefined: text,
 * objects, and arrays for `[]`). Unreadable texts are kept as text, with the reason at `location`.
 */
export function readMembers(
  document: unknown,
  pointer: string | undefined,
  tree: Members,
  location: string,
  violations: Violation[],
): unknown {
  return read(document, pointer, tree, location, violations);
}

function read(document: unknown, pointer: string | undefined, tree: Members, location: string, violations: Violation[]): unknown {
  const level = levelAt(document, pointer);
  if (tree.children.size === 0) return leaf(level, tree.texts, location, violations);
  if (tree.texts.length > 0) {
    violations.push({ location, message: 'is given both as a value and with members' });
    return tree.texts[0];
  }
  const keys = [...tree.children.keys()];
  const indexed = keys.every((k) => INDEX.test(k));
  if (indexed && (level.items !== undefined || (pointer === undefined && tree.appended === keys.length))) {
    // Indexes order the items; gaps close up (`a[0]`, `a[5]`: two items), as form encoders mean them.
    return keys
      .sort((a, b) => Number(a) - Number(b))
      .map((key, i) => read(document, level.items, tree.children.get(key) as Members, `${location}[${i}]`, violations));
  }
  const entries = keys.map((key): [string, unknown] => {
    const at = level.properties?.get(key) ?? level.additional;
    return [key, read(document, at, tree.children.get(key) as Members, `${location}.${key}`, violations)];
  });
  // fromEntries defines own properties, so `__proto__` is just a name here.
  return Object.fromEntries(entries);
}

/** Texts sent for one key, read as the schema's type (each branch's in turn, first that reads); repeated, as its items. */
function leaf(level: Level, texts: readonly string[], location: string, violations: Violation[]): unknown {
  if (texts.length === 1) return scalar(level.kinds, texts[0] ?? '', location, violations);
  if (level.items === undefined) {
    violations.push({ location, message: 'must be given once' });
    return texts;
  }
  return texts.map((text) => scalar(level.itemKinds, text, location, violations));
}

function scalar(kinds: readonly ValueKind[], text: string, location: string, violations: Violation[]): unknown {
  let failure: string | undefined;
  for (const kind of kinds) {
    const parsed = parseScalar(text, kind);
    if (parsed.ok) return parsed.value;
    failure ??= parsed.message;
  }
  if (failure !== undefined) violations.push({ location, message: failure });
  return text;
}

/** What reading members needs of the schema at one pointer, worked out once per document and pointer. */
interface Level {
  /** The schema of the items of its array type or branch, when it has one. */
  readonly items: string | undefined;
  /** Of its object type or branch: each declared property's schema. */
  readonly properties: ReadonlyMap<string, string> | undefined;
  /** Of its object type or branch: the schema of names not declared (`additionalProperties`). */
  readonly additional: string | undefined;
  /** The scalar types a text is read as, first branch first. */
  readonly kinds: readonly ValueKind[];
  readonly itemKinds: readonly ValueKind[];
}

const TEXT: readonly ValueKind[] = ['any'];
const NO_SCHEMA: Level = { items: undefined, properties: undefined, additional: undefined, kinds: TEXT, itemKinds: TEXT };
const levels = new WeakMap<object, Map<string, Level>>();

function levelAt(document: unknown, pointer: string | undefined): Level {
  if (pointer === undefined || !isObject(document)) return NO_SCHEMA;
  let known = levels.get(document);
  if (!known) levels.set(document, (known = new Map<string, Level>()));
  let level = known.get(pointer);
  if (!level) known.set(pointer, (level = computeLevel(document, pointer)));
  return level;
}

function computeLevel(document: unknown, pointer: string): Level {
  const arrayAt = branchOf(document, pointer, 'array');
  const objectAt = branchOf(document, pointer, 'object');
  const additional = objectAt === undefined ? undefined : schemaAt(document, objectAt)?.additionalProperties;
  const items = arrayAt === undefined ? undefined : `${arrayAt}/items`;
  return {
    items,
    properties: objectAt === undefined ? undefined : new Map(properties(document, objectAt)),
    additional: isObject(additional) ? `${objectAt ?? ''}/additionalProperties` : undefined,
    kinds: scalarKinds(document, pointer),
    itemKinds: items === undefined ? TEXT : scalarKinds(document, items),
  };
}

/** The scalar types a text at `pointer` is read as: each branch's, first branch first. */
function scalarKinds(document: unknown, pointer: string): readonly ValueKind[] {
  const variants = variantsOf(document, pointer);
  const kinds = variants.length > 0 ? variants.map((v) => v.kind) : [kindOf(document, pointer)];
  const scalars = kinds.filter((kind) => kind !== 'array' && kind !== 'object');
  return scalars.length > 0 ? scalars : TEXT;
}

/** The schema of a container kind at `pointer`: itself when of that type, else its branch of that type. */
function branchOf(document: unknown, pointer: string, kind: 'array' | 'object'): string | undefined {
  const at = follow(document, pointer).pointer;
  if (kindOf(document, at) === kind) return at;
  return alternativesOf(document, at).find((a) => a.type === kind)?.pointer;
}
