import { escapePointerToken, isArray, isObject } from './json-pointer.js';

/** Where a JSON pointer into the document the sandbox serves stands in the user's own file. */
export type Locate = (pointer: string) => string;

/** A document served as written (OpenAPI 3.x): every pointer already names the user's file. */
export const asWritten: Locate = (pointer) => pointer;

/**
 * Maps pointers into a Swagger 2.0 document converted by `swagger2openapi` back to the 2.0 original
 * (Swagger 2.0 §4 "Specification"), following the converter's moves: `components/schemas` →
 * `definitions` (under the name it sanitised), `requestBody` → the `in: body` or `formData`
 * parameters, `content/<media>/schema` → the response's one `schema`, parameter and header schemas →
 * their inline `type`/`items`, media examples → `examples/<media>`. What it cannot map lands on the
 * nearest ancestor it can: every pointer it answers resolves in the original. Pure: neither document
 * is changed, and the same pointer always maps to the same answer.
 *
 * `refmap` is the converter's record of the `$ref` targets it moved into `components` (its `refmap`
 * output: original reference → new reference).
 */
export function originalLocator(converted: unknown, original: unknown, refmap: Readonly<Record<string, unknown>> = {}): Locate {
  const mapper = new Mapper(converted, original, refmap);
  return (pointer) => mapper.locate(pointer);
}

/** Where the mapping stands in the original: a pointer and the value there. */
interface Cursor {
  readonly pointer: string;
  readonly value: unknown;
}

/** A parameter of the original, where it is written and what it says (its `$ref` followed). */
interface Declared {
  readonly cursor: Cursor;
  readonly value: Readonly<Record<string, unknown>>;
}

/** Where each kind of 3.0 component lived in 2.0 (request bodies were `in: body` parameters: see `requestBody`). */
const SECTIONS: Readonly<Partial<Record<string, string>>> = {
  schemas: 'definitions',
  parameters: 'parameters',
  responses: 'responses',
  securitySchemes: 'securityDefinitions',
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Fields the converter renames: the 3.0 name and the 2.0 (or extension) names it came from. */
const RENAMED: Readonly<Record<string, readonly string[]>> = {
  nullable: ['x-nullable'],
  example: ['x-example'],
  deprecated: ['x-deprecated'],
  anyOf: ['x-anyOf'],
  oneOf: ['x-oneOf'],
  not: ['x-not'],
  discriminator: ['x-discriminator'],
  style: ['collectionFormat'],
  explode: ['collectionFormat'],
};

const tokensOf = (pointer: string, decode = false): string[] =>
  pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((token) => (decode ? decoded(token) : token).replace(/~1/g, '/').replace(/~0/g, '~'));

/** A `$ref` is a URI fragment: percent-encoding is allowed in it (RFC 6901 §6). */
function decoded(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

const child = (at: Cursor, token: string, value: unknown): Cursor => ({ pointer: `${at.pointer}/${escapePointerToken(token)}`, value });

/** The names the converter gives components (oas-kit-common's `sanitise`, which swagger2openapi 7 uses). */
function sanitise(name: string): string {
  const parts = name.replace('[]', 'Array').split('/');
  parts[0] = (parts[0] ?? '').replace(/[^A-Za-z0-9_\-.]+|\s+/gm, '_');
  return parts.join('/');
}

class Mapper {
  private schemaNames: Map<string, string> | undefined;
  private bodyUsers: Map<string, readonly [string, string]> | undefined;
  private readonly root: Cursor;

  constructor(
    private readonly converted: unknown,
    original: unknown,
    private readonly refmap: Readonly<Record<string, unknown>>,
  ) {
    this.root = { pointer: '#', value: original };
  }

  locate(pointer: string): string {
    if (!pointer.startsWith('#')) return pointer;
    const [head, ...rest] = tokensOf(pointer);
    if (head === 'paths' || head === 'x-ms-paths') return this.pathItem(head, rest).pointer;
    if (head === 'components') return this.component(rest).pointer;
    if (head === 'servers') return (this.step(this.root, 'host') ?? this.step(this.root, 'basePath') ?? this.root).pointer;
    if (head === 'openapi') return (this.step(this.root, 'swagger') ?? this.root).pointer;
    return this.descend(this.root, head === undefined ? [] : [head, ...rest]).pointer;
  }

  private pathItem(container: string, [path, head, ...rest]: string[]): Cursor {
    const paths = this.step(this.root, container);
    const item = paths && path !== undefined ? this.step(paths, path) : undefined;
    if (!item || path === undefined || head === undefined) return item ?? paths ?? this.root;
    const convertedItem = `#/${container}/${escapePointerToken(path)}`;
    if (head === 'parameters') return this.parameterIn([item], `${convertedItem}/parameters`, rest) ?? this.descend(item, [head]);
    const op = METHODS.has(head) ? this.step(item, head) : undefined;
    if (!op) return this.descend(item, [head, ...rest]);
    const [part, ...more] = rest;
    if (part === 'parameters') return this.parameterIn([op, item], `${convertedItem}/${head}/parameters`, more) ?? this.descend(op, [part]);
    if (part === 'requestBody') return this.requestBody(item, op, more);
    if (part === 'responses') {
      const responses = this.step(op, part);
      const [status, ...inside] = more;
      const response = responses && status !== undefined ? this.step(responses, status) : undefined;
      return response ? this.response(response, inside) : (responses ?? op);
    }
    return this.descend(op, rest);
  }

  private component([kind, name, ...rest]: string[]): Cursor {
    if (kind === undefined) return this.root;
    const section = SECTIONS[kind];
    if (name === undefined) return (section === undefined ? undefined : this.step(this.root, section)) ?? this.root;
    const moved = this.fromRefmap(kind, name, rest);
    if (moved) return moved;
    if (kind === 'requestBodies') {
      const [path, method] = this.requestBodyUsers().get(name) ?? [];
      const item = path === undefined ? undefined : this.exactly(['paths', path]);
      const op = item && method !== undefined ? this.step(item, method) : undefined;
      return item && op ? this.requestBody(item, op, rest) : this.root;
    }
    const owner = section === undefined ? undefined : this.step(this.root, section);
    const at = owner && this.step(owner, kind === 'schemas' ? this.schemaName(name) : this.sanitisedName(owner, name));
    if (!at) return owner ?? this.root;
    if (kind === 'parameters') return this.parameter(at, rest);
    if (kind === 'responses') return this.response(at, rest);
    // 3.0 `flows/<flow>/tokenUrl` was the 2.0 scheme's own `tokenUrl`; `scheme: basic` its `type`.
    if (kind === 'securitySchemes') return this.descend(at, rest[0] === 'flows' ? rest.slice(2) : rest[0] === 'scheme' ? ['type'] : rest);
    return this.descend(at, rest);
  }

  /** Parameters are matched by name and location: the converter drops body and form ones, so indexes move. */
  private parameterIn(owners: readonly Cursor[], convertedList: string, [index, ...rest]: string[]): Cursor | undefined {
    if (index === undefined) return undefined;
    const entry = `${convertedList}/${escapePointerToken(index)}`;
    const wanted = this.resolve({ pointer: entry, value: valueIn(this.converted, entry) }, this.converted);
    if (!isObject(wanted.value)) return undefined;
    const { name, in: location } = wanted.value;
    const found = owners.flatMap((owner) => this.declared(owner)).find((p) => p.value.name === name && p.value.in === location);
    return found && this.parameter(found.cursor, rest);
  }

  /** 2.0 non-body parameters and headers carry `type`, `items` and the rest inline, where 3.0 has a `schema`. */
  private parameter(at: Cursor, [head, ...rest]: string[]): Cursor {
    if (head !== 'schema') return this.descend(at, head === undefined ? [] : [head, ...rest]);
    const own = this.step(at, 'schema');
    return own && isObject(own.value) ? this.descend(own, rest) : this.descend(at, rest);
  }

  /** A request body was the `in: body` parameter, or one property per `formData` parameter. */
  private requestBody(item: Cursor, op: Cursor, rest: string[]): Cursor {
    const declared = [...this.declared(op), ...this.declared(item)];
    const body = declared.find((p) => p.value.in === 'body') ?? declared.find((p) => p.value.type === 'file' && p.value.in !== 'formData');
    const list = this.step(op, 'parameters') ?? op;
    const [content, , schema, ...inside] = rest;
    if (content !== 'content') return body ? this.descend(body.cursor, rest) : list;
    if (body) return schema === 'schema' ? this.descend(body.cursor, ['schema', ...inside]) : body.cursor;
    const [properties, name, ...within] = inside;
    const field = properties === 'properties' ? declared.find((p) => p.value.in === 'formData' && p.value.name === name) : undefined;
    return field ? this.parameter(field.cursor, ['schema', ...within]) : list;
  }

  /** A 2.0 response has one `schema` for every media type it `produces`, and examples keyed by media type. */
  private response(at: Cursor, rest: string[]): Cursor {
    const [head, key, field, ...inside] = rest;
    if (head === 'content' && key !== undefined) {
      if (field === 'schema') return this.descend(at, ['schema', ...inside]);
      if (field === 'example') return this.descend(at, ['examples', key, ...inside]);
      if (field !== 'examples') return at;
      // The converter names the one example it makes `response`, its value under `value`.
      const example = this.descend(at, ['examples', key]);
      return inside[1] === 'value' ? this.descend(example, inside.slice(2)) : example;
    }
    if (head === 'headers' && key !== undefined) {
      const headers = this.step(at, head);
      const header = headers && this.step(headers, key);
      return header ? this.parameter(header, rest.slice(2)) : (headers ?? at);
    }
    return this.descend(at, rest);
  }

  /** A `$ref` target the converter moved into `components` (`#/paths/~1a/get/parameters/0` → `#/components/parameters/a1`). */
  private fromRefmap(kind: string, name: string, rest: string[]): Cursor | undefined {
    const moved = `#/components/${kind}/${escapePointerToken(name)}`;
    for (const [from, to] of Object.entries(this.refmap)) {
      if (to !== moved && to !== `${moved}/value`) continue;
      const origin = this.exactly(tokensOf(from, true));
      const inside = to === moved ? rest : rest.slice(rest[0] === 'value' ? 1 : 0);
      if (origin) return kind === 'parameters' ? this.parameter(origin, inside) : this.descend(origin, inside);
    }
    return undefined;
  }

  private schemaName(name: string): string {
    this.schemaNames ??= schemaRenames(this.root.value);
    return this.schemaNames.get(name) ?? name;
  }

  private sanitisedName(owner: Cursor, name: string): string {
    const names = isObject(owner.value) ? Object.keys(owner.value) : [];
    return names.includes(name) ? name : (names.find((key) => sanitise(key) === name) ?? name);
  }

  /** A shared request body the converter hoisted: the first operation that uses it (the converter's own order). */
  private requestBodyUsers(): Map<string, readonly [string, string]> {
    if (this.bodyUsers) return this.bodyUsers;
    const users = new Map<string, readonly [string, string]>();
    const paths = isObject(this.converted) && isObject(this.converted.paths) ? this.converted.paths : {};
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const [method, op] of Object.entries(item)) {
        const ref = isObject(op) && isObject(op.requestBody) ? op.requestBody.$ref : undefined;
        const name = typeof ref === 'string' && ref.startsWith('#/components/requestBodies/') ? tokensOf(ref, true)[2] : undefined;
        if (name !== undefined && !users.has(name)) users.set(name, [path, method]);
      }
    }
    return (this.bodyUsers = users);
  }

  /** The parameters an operation or path item declares in the original, each with its `$ref` followed. */
  private declared(owner: Cursor): Declared[] {
    const list = this.step(owner, 'parameters');
    if (!list || !isArray(list.value)) return [];
    return list.value.flatMap((value, i) => {
      const cursor = child(list, String(i), value);
      const resolved = this.resolve(cursor).value;
      return isObject(resolved) ? [{ cursor, value: resolved }] : [];
    });
  }

  /** The original value a `$ref` chain ends at (in the original), or the cursor itself. */
  private resolve(at: Cursor, document: unknown = this.root.value): Cursor {
    const seen = new Set<string>();
    let cursor = at;
    while (
      isObject(cursor.value) &&
      typeof cursor.value.$ref === 'string' &&
      cursor.value.$ref.startsWith('#') &&
      !seen.has(cursor.value.$ref)
    ) {
      const ref = cursor.value.$ref;
      seen.add(ref);
      const tokens = tokensOf(ref, true);
      const value = valueIn(document, tokens);
      if (value === undefined) break;
      cursor = { pointer: `#${tokens.map((t) => `/${escapePointerToken(t)}`).join('')}`, value };
    }
    return cursor;
  }

  /** One step down in the original, through a `$ref` when the step is not there, or under a renamed field. */
  private step(at: Cursor, token: string): Cursor | undefined {
    const here = stepIn(at, token);
    if (here) return here;
    const target = this.resolve(at);
    return target === at ? undefined : stepIn(target, token);
  }

  /** As far down as the original goes: the nearest ancestor that exists. */
  private descend(at: Cursor, tokens: readonly string[]): Cursor {
    let cursor = at;
    for (const token of tokens) {
      const next = this.step(cursor, token);
      if (!next) break;
      cursor = next;
    }
    return cursor;
  }

  /** The original value at these tokens, or undefined when one is missing. */
  private exactly(tokens: readonly string[]): Cursor | undefined {
    let cursor: Cursor | undefined = this.root;
    for (const token of tokens) cursor = cursor && this.step(cursor, token);
    return cursor;
  }
}

function stepIn(at: Cursor, token: string): Cursor | undefined {
  const { value } = at;
  if (isArray(value)) return /^\d+$/.test(token) && Number(token) < value.length ? child(at, token, value[Number(token)]) : undefined;
  if (!isObject(value)) return undefined;
  for (const key of [token, ...(RENAMED[token] ?? [])]) if (Object.hasOwn(value, key)) return child(at, key, value[key]);
  return undefined;
}

function valueIn(document: unknown, pointer: string | readonly string[]): unknown {
  let node = document;
  for (const token of typeof pointer === 'string' ? tokensOf(pointer) : pointer) {
    if (isArray(node)) node = /^\d+$/.test(token) ? node[Number(token)] : undefined;
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/**
 * The converter renames `definitions` whose names are not safe component names, suffixing a
 * number on a clash (swagger2openapi 7 `main`: `sanitiseAll`, then `2`, `3`…); this replays it.
 */
function schemaRenames(original: unknown): Map<string, string> {
  const definitions = isObject(original) && isObject(original.definitions) ? Object.keys(original.definitions) : [];
  const names = new Set(definitions);
  const renames = new Map<string, string>();
  for (const name of definitions) {
    const safe = sanitise(name.split('/').join('_'));
    if (safe === name) continue;
    let suffix = '';
    while (names.has(safe + suffix)) suffix = String(suffix === '' ? 2 : Number(suffix) + 1);
    names.delete(name);
    names.add(safe + suffix);
    renames.set(safe + suffix, name);
  }
  return renames;
}
