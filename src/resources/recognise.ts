import { answerSchema, listItems, propertyAt, propertyNames, propertySchema, sendsJson, streamedItems } from '../openapi/bindings.js';
import { follow, isObject } from '../openapi/json-pointer.js';
import { isKeyed, type Binding, type IdKind, type OperationSpec, type StoreAction } from '../vocabulary/operation.js';
import { narrowedByParameter, recordIdentity, singularOf, type RecordIdentity } from './record-ids.js';

/**
 * Which operations the store serves by REST conventions, where no `x-understudy` binding decides:
 * the collections a document describes coherently, whatever their ids.
 */

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');
const paramName = (segment: string): string => segment.slice(1, -1);

/** `/users/{userId}/orders` → `users/orders` (scoped by `userId`); `/pets` → `pets`. */
function collectionOf(segments: readonly string[]): { resource: string; scope: string[] } {
  const scope = segments.filter(isParam).map(paramName);
  const names = segments.filter((s, i) => !isParam(s) && (i === segments.length - 1 || isParam(segments[i + 1] ?? '')));
  return { resource: scope.length === 0 ? (segments.at(-1) as string) : names.join('/'), scope };
}

/** A path without the format suffix of its last segment: `/Queues/{Sid}.json` → `/Queues/{Sid}`, `/Queues.json` → `/Queues`. */
const withoutSuffix = (path: string): string => path.replace(/(\/(?:[^/{}.]+|\{[^}/]+\}))\.[A-Za-z][A-Za-z0-9]{0,7}$/, '$1');

const ITEM_ACTIONS: Readonly<Partial<Record<string, StoreAction>>> = { GET: 'read', PUT: 'replace', PATCH: 'patch', DELETE: 'delete' };

/** A collection found so far: what its records are, for binding its other views. */
interface Found {
  readonly resource: string;
  readonly identity: RecordIdentity;
  readonly kind: IdKind;
  /** The record schema's location, `$ref`s followed: another GET answering a list of these is a view. */
  readonly recordAt: string;
}

/**
 * Operations without an explicit `x-understudy` binding follow REST conventions, and only where the
 * document describes a collection coherently: a path `/things` (or `/users/{id}/things`) whose
 * records are objects with an id (record-ids.ts: the item path's parameter name, `id`, `uuid`…,
 * of any kind: whole numbers, UUIDs, other strings). GET on it lists when it answers an array (or an
 * envelope holding one) of such records; POST creates when its answer describes such a record; GET,
 * PUT, PATCH and DELETE on `/things/{x}` read, replace, patch and delete. Another GET with no path
 * parameter that answers a list of the same records (`/pet/findByStatus`) lists the same collection.
 * Anything else is answered from the document.
 */
export function inferBindings(document: unknown, operations: OperationSpec[]): OperationSpec[] {
  // Paths by their shape: a format suffix on the last segment (`/Queues.json`, `/Queues/{Sid}.json`) is not part of it.
  const byPath = new Map<string, OperationSpec[]>();
  for (const op of operations) {
    const shape = withoutSuffix(op.pathTemplate);
    const same = byPath.get(shape);
    if (same) same.push(op);
    else byPath.set(shape, [op]);
  }
  // Each collection path's item path (`/things` → `/things/{id}`), the first in the document.
  const itemPaths = new Map<string, string>();
  for (const p of byPath.keys()) {
    const slash = p.lastIndexOf('/');
    if (/^\{[^}/]+\}$/.test(p.slice(slash + 1)) && !itemPaths.has(p.slice(0, slash))) itemPaths.set(p.slice(0, slash), p);
  }
  const decided = new Map<OperationSpec, Binding>();
  const found: Found[] = [];
  const actions: [OperationSpec, () => void][] = [];
  // A path that only lists (no item path, no create) may be another view of a collection
  // (`/pet/findByStatus`): it is a collection of its own only if it lists no collection's records.
  const listsOnly = (path: string, ops: readonly OperationSpec[]): boolean =>
    !itemPaths.has(path) && !ops.some((op) => op.method === 'POST') && !path.includes('{');
  const recognise = (path: string, ops: readonly OperationSpec[]): void => {
    const segments = path.split('/').filter(Boolean);
    if (segments.length === 0 || isParam(segments.at(-1) as string)) return;
    const itemPath = itemPaths.get(path);
    const itemParam = itemPath === undefined ? undefined : paramName(itemPath.slice(path.length + 1));
    const items = itemPath === undefined ? [] : (byPath.get(itemPath) ?? []);
    const { resource: named, scope } = collectionOf(segments);
    const direct = (op: OperationSpec | undefined, list: boolean): { value: Record<string, unknown>; pointer: string } | undefined => {
      const answer = op && answerSchema(document, op);
      return answer && list ? listItems(document, answer.value, answer.pointer) : answer;
    };
    const directIdentity = (op: OperationSpec | undefined, list: boolean): RecordIdentity | undefined => {
      const record = direct(op, list);
      return record ? recordIdentity(document, record.value, record.pointer, itemParam, named) : undefined;
    };
    // One record answered inside a wrapper of one property (`{"order": {…}}`), where the answer itself names none.
    const wrapOf = (op: OperationSpec | undefined, list: boolean): Wrapped | undefined => {
      const answer = list || directIdentity(op, false) !== undefined ? undefined : direct(op, false);
      return answer && wrapped(document, answer.value, answer.pointer);
    };
    const recordOf = (op: OperationSpec | undefined, list: boolean): { value: Record<string, unknown>; pointer: string } | undefined =>
      wrapOf(op, list) ?? direct(op, list);
    const identityOf = (op: OperationSpec | undefined, list: boolean): RecordIdentity | undefined => {
      const record = recordOf(op, list);
      return record ? recordIdentity(document, record.value, record.pointer, itemParam, named) : undefined;
    };
    const list = ops.find((op) => op.method === 'GET');
    const read = items.find((op) => op.method === 'GET');
    const identity = identityOf(list, true) ?? identityOf(read, false);
    if (identity === undefined) return;
    // A nested path listing a top-level collection's very records, which name their parent by a
    // field (`/users/{userId}/orders` of `orders` holding `userId`), is a view of that collection.
    const own = recordOf(list, true) ?? recordOf(read, false);
    // Siblings of one name with records of their own (`/matches/past` and `/series/past`) are two
    // collections: the one found second is named by its whole path.
    const clash = scope.length === 0 && own !== undefined && found.some((f) => f.resource === named && unrelated(document, f, own));
    const resource = clash ? segments.join('/') : named;
    const parentOf = scope.length === 0 || own === undefined ? undefined : parentView(document, found, own, segments);
    const sameId = (op: OperationSpec | undefined, isList: boolean): boolean => identityOf(op, isList)?.property === identity.property;
    const create = ops.find((op) => op.method === 'POST' && op.requestBody !== undefined);
    const minted = narrowedByParameter(document, identity.kind, items, itemParam);
    const kind: IdKind =
      isKeyed(minted) && create !== undefined && writesProperty(document, create, identity.property)
        ? { ...minted, clientNamed: true }
        : minted;
    const bind = (op: OperationSpec, action: StoreAction): void => {
      if (op.binding.origin !== 'none') return;
      const wrap = action === 'list' ? undefined : wrapOf(op, false)?.name;
      const binding: Binding = parentOf
        ? {
            action,
            origin: 'convention',
            resource: parentOf.found.resource,
            scope: [],
            idProperty: identity.property,
            parentFields: parentOf.fields,
          }
        : { action, origin: 'convention', resource, scope, idProperty: identity.property };
      const keyed = isKeyed(kind) ? { ...binding, idKind: kind } : binding;
      decided.set(op, wrap === undefined ? keyed : { ...keyed, wrap });
    };
    if (list && sameId(list, true)) bind(list, 'list');
    // QUERY (OpenAPI 3.2) on the collection, answering its records: a list its body filters (decision 0021).
    const search = ops.find((op) => op.method === 'QUERY');
    if (search && sameId(search, true)) bind(search, 'list');
    if (create && sameId(create, false)) bind(create, 'create');
    for (const op of items) {
      const action = op.method === 'POST' ? 'apply' : ITEM_ACTIONS[op.method];
      // An item answer that is not the record (a GET answering something else) is the document's.
      const silent = action !== 'read' && answerSchema(document, op) === undefined;
      const answersRecord = action === 'delete' || silent || sameId(op, false);
      // An operation that declares only failures (a delete declaring only 400) cannot say it did anything.
      if (action && answersRecord && declaresSuccess(op)) bind(op, action);
    }
    // Actions under the item path (`POST /orders/{id}/cancel`) that answer the very record, or
    // nothing: bound once every collection is, so a nested collection's create is never one.
    const recordAt = recordOf(read, false)?.pointer;
    for (const op of itemPath === undefined ? [] : actionsUnder(byPath, itemPath)) {
      const answer = recordOf(op, false);
      const same =
        answer === undefined || (recordAt !== undefined && follow(document, answer.pointer).pointer === follow(document, recordAt).pointer);
      if (same) actions.push([op, () => bind(op, 'apply')]);
    }
    // A PUT or PATCH on the collection path naming the record by its id in the body (`PUT /pet`).
    for (const op of ops) {
      const action = op.method === 'PUT' ? 'replace' : op.method === 'PATCH' ? 'patch' : undefined;
      if (action && writesProperty(document, op, identity.property) && sameId(op, false)) bind(op, action);
    }
    const record = recordOf(list, true) ?? recordOf(read, false);
    if (scope.length === 0 && record) found.push({ resource, identity, kind, recordAt: follow(document, record.pointer).pointer });
  };
  // Top-level collections first: a nested path may be a view of one.
  const nested = (path: string): boolean => path.includes('{');
  for (const [path, ops] of byPath) if (!listsOnly(path, ops) && !nested(path)) recognise(path, ops);
  for (const [path, ops] of byPath) if (!listsOnly(path, ops) && nested(path)) recognise(path, ops);
  for (const [op, bind] of actions) if (!decided.has(op)) bind();
  bindViews(document, operations, found, decided, (f) => ({
    action: 'list',
    origin: 'convention',
    resource: f.resource,
    scope: [],
    idProperty: f.identity.property,
    ...(isKeyed(f.kind) ? { idKind: f.kind } : {}),
  }));
  for (const [path, ops] of byPath) if (listsOnly(path, ops) && !ops.some((op) => decided.has(op))) recognise(path, ops);
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

/**
 * Whether a collection's records and another path's have nothing to do with each other: they
 * share no property but the id (`UserMatch`, a user's `login` and a `score`, shows users; a
 * match's `venue` and a series' `season` have nothing in common).
 */
function unrelated(document: unknown, found: Found, other: { value: Record<string, unknown>; pointer: string }): boolean {
  const otherAt = follow(document, other.pointer).pointer;
  if (found.recordAt === otherAt) return false;
  const mine = follow(document, found.recordAt).value;
  if (!isObject(mine)) return false;
  const a = new Set(propertyNames(document, mine, found.recordAt));
  const b = new Set(propertyNames(document, other.value, otherAt));
  return ![...a].some((name) => name !== found.identity.property && b.has(name));
}

/**
 * The top-level collection a nested path is a view of: the one whose records it lists (the same
 * schema), where each parent parameter names a record field: the parameter's own name
 * (`{userId}` → `userId`), else `<parent singular>Id` or `<parent singular>_id`.
 */
function parentView(
  document: unknown,
  found: readonly Found[],
  record: { value: Record<string, unknown>; pointer: string },
  segments: readonly string[],
): { found: Found; fields: Record<string, string> } | undefined {
  const at = follow(document, record.pointer).pointer;
  const top = found.find((f) => f.recordAt === at);
  if (top === undefined) return undefined;
  const names = propertyNames(document, record.value, record.pointer);
  const fields: Record<string, string> = {};
  segments.forEach((segment, i) => {
    if (!isParam(segment)) return;
    const param = paramName(segment);
    const parent = singularOf(segments[i - 1] ?? '');
    const field = [param, `${parent}Id`, `${parent}_id`].find((name) => names.includes(name));
    if (field !== undefined) fields[param] = field;
  });
  const params = segments.filter(isParam).length;
  return Object.keys(fields).length === params ? { found: top, fields } : undefined;
}

interface Wrapped {
  readonly name: string;
  readonly value: Record<string, unknown>;
  readonly pointer: string;
}

/** The record inside an object of exactly one property whose schema is an object (`{"data": {…}}`). */
function wrapped(document: unknown, schema: Record<string, unknown>, pointer: string): Wrapped | undefined {
  const names = propertyNames(document, schema, pointer);
  if (names.length !== 1) return undefined;
  const name = names[0] as string;
  const inner = propertyAt(document, schema, pointer, name);
  if (inner === undefined || inner.value.type === 'array' || (inner.value.properties === undefined && inner.value.allOf === undefined))
    return undefined;
  return { name, value: inner.value, pointer: inner.pointer };
}

const declaresSuccess = (op: OperationSpec): boolean => op.responses.some((r) => r.status.startsWith('2') || r.status === 'DEFAULT');

/** POSTs on `<item path>/<verb>` (one literal segment more): a DELETE or PUT there acts on something else (an archive, a star). */
function actionsUnder(byPath: ReadonlyMap<string, readonly OperationSpec[]>, itemPath: string): OperationSpec[] {
  const found: OperationSpec[] = [];
  for (const [path, ops] of byPath) {
    if (!path.startsWith(`${itemPath}/`) || !/^[A-Za-z][\w.-]*$/.test(path.slice(itemPath.length + 1))) continue;
    for (const op of ops) if (op.method === 'POST') found.push(op);
  }
  return found;
}

/**
 * Other views of a top-level collection: a GET (or QUERY) with no path parameter, bound to nothing yet, that
 * answers a list of the collection's very records (the same schema, or a stream of them: an `itemSchema`): `/pet/findByStatus` and
 * `/pet/findByTags` list the pets `/pet/{petId}` reads, their query parameters filtering them.
 */
function bindViews(
  document: unknown,
  operations: readonly OperationSpec[],
  found: readonly Found[],
  decided: Map<OperationSpec, Binding>,
  binding: (f: Found) => Binding,
): void {
  if (found.length === 0) return;
  for (const op of operations) {
    if ((op.method !== 'GET' && op.method !== 'QUERY') || op.binding.origin !== 'none' || decided.has(op) || op.pathTemplate.includes('{'))
      continue;
    const answer = answerSchema(document, op);
    const items = streamedItems(document, op) ?? (answer && listItems(document, answer.value, answer.pointer));
    if (!items) continue;
    const at = follow(document, items.pointer).pointer;
    const matches = found.filter((f) => f.recordAt === at);
    // One collection only: two collections of the same records would make the view ambiguous.
    if (matches.length === 1) decided.set(op, binding(matches[0] as Found));
  }
}

/** Whether a create's JSON body lets the client write the record's id property (not `readOnly`). */
function writesProperty(document: unknown, op: OperationSpec, property: string): boolean {
  const media = op.requestBody?.content.find((m) => sendsJson(m));
  if (media?.schemaPointer === undefined) return false;
  const { value, pointer } = follow(document, media.schemaPointer);
  if (!isObject(value)) return false;
  const prop = propertySchema(document, value, pointer, property);
  if (!prop) return false;
  const target = typeof prop.$ref === 'string' ? follow(document, prop.$ref).value : prop;
  return !(isObject(target) && target.readOnly === true);
}
