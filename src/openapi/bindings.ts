import { follow, isArray, isObject, type JsonObject } from './json-pointer.js';
import type { Binding, MediaSpec, OperationSpec, ResponseSpec, StoreAction } from '../vocabulary/operation.js';

/** Which operations the store serves, and how: explicit `x-understudy` bindings, else REST conventions. */

const STORE_ACTIONS: readonly StoreAction[] = ['list', 'create', 'read', 'replace', 'patch', 'delete', 'mock'];

/** The binding of an operation with no `x-understudy` action, until REST conventions decide. */
export const NO_BINDING: Binding = Object.freeze({ action: 'mock', resource: undefined, origin: 'none' });

export function explicitBinding(raw: unknown): Binding | undefined {
  if (!isObject(raw) || raw.action === undefined) return undefined;
  if (!STORE_ACTIONS.includes(raw.action as StoreAction)) {
    throw new Error(`x-understudy.action ${JSON.stringify(raw.action)} is not one of ${STORE_ACTIONS.join(', ')}`);
  }
  const action = raw.action as StoreAction;
  if (action !== 'mock' && typeof raw.resource !== 'string') throw new Error(`x-understudy.action "${action}" needs a "resource"`);
  const pagination = isObject(raw.pagination) ? raw.pagination : {};
  const name = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    action,
    origin: 'document',
    resource: typeof raw.resource === 'string' ? raw.resource : undefined,
    pagination: { limit: name(pagination.limit), after: name(pagination.after) },
  };
}

/** A numeric status of a declared response: `2XX` counts as its lowest code, `default` as none. */
const codeOf = (status: string): number => (/^\dXX$/.test(status) ? Number(status[0]) * 100 : Number(status));

/**
 * The response the sandbox answers a successful request with: the lowest declared 2xx, else
 * `default`, else the first declared (an operation declaring only `101` or `3xx`/`4xx` answers
 * with one of them: the status must be one the document declares, OpenAPI 3.1 §4.8.16).
 */
export function answerResponse(responses: readonly ResponseSpec[]): ResponseSpec | undefined {
  const successes = responses.filter((r) => r.status.startsWith('2')).sort((a, b) => codeOf(a.status) - codeOf(b.status));
  return successes[0] ?? responses.find((r) => r.status === 'DEFAULT') ?? responses[0];
}

/** The response declared for a status: exactly, else its `4XX`-style range, else `default` (OpenAPI 3.1 §4.8.16.2). */
export function declaredResponse(responses: readonly ResponseSpec[], status: number): ResponseSpec | undefined {
  const text = String(status);
  return (
    responses.find((r) => r.status === text) ??
    responses.find((r) => r.status === `${text[0] ?? ''}XX`) ??
    responses.find((r) => r.status === 'DEFAULT')
  );
}

/** The numeric status of that response (`default` and `2XX` answer 200, `3XX` 300…). */
export function answerStatus(response: ResponseSpec | undefined): number {
  if (response === undefined || response.status === 'DEFAULT') return 200;
  return codeOf(response.status);
}

const isJsonLike = (mediaType: string): boolean => /^application\/(?:[\w.+-]*\+)?json(?:;|$)/.test(mediaType) || mediaType === '*/*';

/** The media type an answer is sent as: the first JSON-like one declared, else the first declared. */
export function answerMedia(response: ResponseSpec | undefined): MediaSpec | undefined {
  return response?.content.find((m) => isJsonLike(m.mediaType)) ?? response?.content[0];
}

export const sendsJson = (media: MediaSpec | undefined): boolean => media !== undefined && isJsonLike(media.mediaType);

/** The schema an operation answers with, when it answers JSON. */
function answerSchema(document: unknown, op: OperationSpec): { value: JsonObject; pointer: string } | undefined {
  const media = answerMedia(answerResponse(op.responses));
  if (!sendsJson(media) || media?.schemaPointer === undefined) return undefined;
  const { value, pointer } = follow(document, media.schemaPointer);
  return isObject(value) ? { value, pointer } : undefined;
}

/** The property schema `name` of an object schema, through `allOf`; undefined when it has none. */
export function propertySchema(document: unknown, schema: JsonObject, pointer: string, name: string, depth = 0): JsonObject | undefined {
  if (depth > 8) return undefined;
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, name)) {
    const found = follow(document, `${pointer}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`).value;
    return isObject(found) ? found : {};
  }
  const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
  for (let i = 0; i < parts.length; i++) {
    const { value, pointer: at } = follow(document, `${pointer}/allOf/${i}`);
    const found = isObject(value) ? propertySchema(document, value, at, name, depth + 1) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * Whether a schema admits the store's ids (whole numbers): integer, number, or no type at all, in
 * itself and in every `allOf` member (ShipEngine's ids are `allOf: [{$ref: se_id}]`, a patterned string).
 */
function admitsIntegers(document: unknown, schema: JsonObject, depth = 0): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const constrained = schema.enum !== undefined || schema.const !== undefined;
  if (constrained || (types.length > 0 && !types.includes('integer') && !types.includes('number'))) return false;
  if (depth > 8 || !isArray(schema.allOf)) return true;
  return schema.allOf.every((member) => {
    const resolved: unknown = isObject(member) && typeof member.$ref === 'string' ? follow(document, member.$ref).value : member;
    return !isObject(resolved) || admitsIntegers(document, resolved, depth + 1);
  });
}

/**
 * The record's id property when the schema describes a record the store can hold: an object with
 * `id` (else the item path's parameter name, `{orderId}` → `orderId`) that admits whole numbers.
 */
export function recordId(document: unknown, schema: JsonObject, pointer: string, itemParam: string | undefined): string | undefined {
  for (const name of ['id', itemParam]) {
    if (name === undefined) continue;
    const prop = propertySchema(document, schema, pointer, name);
    if (prop) return admitsIntegers(document, prop) ? name : undefined;
  }
  return undefined;
}

/** The items of a list answer: the array itself, or the one array property of an envelope (`{data: [...], next}`). */
export function listItems(
  document: unknown,
  schema: JsonObject,
  pointer: string,
): { value: JsonObject; pointer: string; envelope?: string } | undefined {
  if (schema.type === 'array' || schema.items !== undefined) {
    const { value, pointer: at } = follow(document, `${pointer}/items`);
    return isObject(value) ? { value, pointer: at } : undefined;
  }
  if (!isObject(schema.properties)) return undefined;
  const arrays = Object.keys(schema.properties).filter((name) => {
    const prop = propertySchema(document, schema, pointer, name);
    return prop !== undefined && (prop.type === 'array' || prop.items !== undefined);
  });
  if (arrays.length !== 1) return undefined;
  const envelope = arrays[0] as string;
  const { value, pointer: at } = follow(document, `${pointer}/properties/${envelope.replace(/~/g, '~0').replace(/\//g, '~1')}/items`);
  return isObject(value) ? { value, pointer: at, envelope } : undefined;
}

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
const paramName = (segment: string): string => segment.slice(1, -1);

/** `/users/{userId}/orders` → `users/orders` (scoped by `userId`); `/pets` → `pets`. */
function collectionOf(segments: readonly string[]): { resource: string; scope: string[] } {
  const scope = segments.filter(isParam).map(paramName);
  const names = segments.filter((s, i) => !isParam(s) && (i === segments.length - 1 || isParam(segments[i + 1] ?? '')));
  return { resource: scope.length === 0 ? (segments.at(-1) as string) : names.join('/'), scope };
}

const ITEM_ACTIONS: Readonly<Partial<Record<string, StoreAction>>> = { GET: 'read', PUT: 'replace', PATCH: 'patch', DELETE: 'delete' };

/**
 * Operations without an explicit `x-understudy` binding follow REST conventions, and only where the
 * document describes a collection coherently: a path `/things` (or `/users/{id}/things`) whose
 * records are objects with a whole-number id, `id` or the item path's parameter name. GET on it
 * lists when it answers an array (or an envelope holding one) of such records; POST creates when
 * its answer describes such a record; GET, PUT, PATCH and DELETE on `/things/{x}` read, replace,
 * patch and delete. Anything else is answered from the document.
 */
export function inferBindings(document: unknown, operations: OperationSpec[]): OperationSpec[] {
  const byPath = new Map<string, OperationSpec[]>();
  for (const op of operations) {
    const same = byPath.get(op.pathTemplate);
    if (same) same.push(op);
    else byPath.set(op.pathTemplate, [op]);
  }
  // Each collection path's item path (`/things` → `/things/{id}`), the first in the document.
  const itemPaths = new Map<string, string>();
  for (const p of byPath.keys()) {
    const slash = p.lastIndexOf('/');
    if (/^\{[^}/]+\}$/.test(p.slice(slash + 1)) && !itemPaths.has(p.slice(0, slash))) itemPaths.set(p.slice(0, slash), p);
  }
  const decided = new Map<OperationSpec, Binding>();
  for (const [path, ops] of byPath) {
    const segments = path.split('/').filter(Boolean);
    if (segments.length === 0 || isParam(segments.at(-1) as string)) continue;
    const itemPath = itemPaths.get(path);
    const itemParam = itemPath === undefined ? undefined : paramName(itemPath.slice(path.length + 1));
    const items = itemPath === undefined ? [] : (byPath.get(itemPath) ?? []);
    const { resource, scope } = collectionOf(segments);
    const idOf = (op: OperationSpec | undefined, list: boolean): string | undefined => {
      const answer = op && answerSchema(document, op);
      const record = answer && list ? listItems(document, answer.value, answer.pointer) : answer;
      return record ? recordId(document, record.value, record.pointer, itemParam) : undefined;
    };
    const list = ops.find((op) => op.method === 'GET');
    const read = items.find((op) => op.method === 'GET');
    const idProperty = idOf(list, true) ?? idOf(read, false);
    if (idProperty === undefined) continue;
    const bind = (op: OperationSpec, action: StoreAction): void => {
      if (op.binding.origin === 'none') decided.set(op, { action, origin: 'convention', resource, scope, idProperty });
    };
    if (list && idOf(list, true) === idProperty) bind(list, 'list');
    const create = ops.find((op) => op.method === 'POST' && op.requestBody !== undefined);
    if (create && idOf(create, false) === idProperty) bind(create, 'create');
    for (const op of items) {
      const action = ITEM_ACTIONS[op.method];
      // An item answer that is not the record (a GET answering something else) is the document's.
      const silent = action !== 'read' && answerSchema(document, op) === undefined;
      const answersRecord = action === 'delete' || silent || idOf(op, false) === idProperty;
      if (action && answersRecord) bind(op, action);
    }
  }
  return operations.map((op) => {
    const binding = decided.get(op);
    if (binding) return { ...op, binding };
    if (op.binding.origin !== 'document' || op.binding.resource === undefined) return op;
    // Explicit bindings: records keep `id`, and a nested path scopes them by its parent parameters.
    const params = op.pathTemplate.split('/').filter(isParam).map(paramName);
    const single = op.binding.action !== 'list' && op.binding.action !== 'create';
    return { ...op, binding: { ...op.binding, scope: single ? params.slice(0, -1) : params, idProperty: 'id' } };
  });
}
