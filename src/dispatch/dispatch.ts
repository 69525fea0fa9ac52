import type { Lookup } from '../store/record-store.js';
import { keyOf, SCOPE_FIELD, type MintKey, type Row, type StoreChange } from '../vocabulary/record.js';
import { slugMinter } from '../resources/mint-id.js';
import { isObject } from '../openapi/json-pointer.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { Responded, SandboxResponse } from '../vocabulary/exchange.js';
import { applyPatch } from './apply-patch.js';
import { actionChanges } from './apply-action.js';
import { answer, shown, type DispatchContext } from './context.js';
import { list } from './list.js';
import { belongs, completeRecord, forAnswer, parentValues, pick, scopeOf, serverFields } from './records.js';
import type { ResolvedBinding } from './resolve-binding.js';

export type { DispatchContext } from './context.js';

/** What each write did to its record, as a store change says it. */
const KIND: Readonly<Record<'delete' | 'replace' | 'patch' | 'apply', StoreChange['kind']>> = {
  delete: 'deleted',
  replace: 'replaced',
  patch: 'patched',
  apply: 'patched',
};

/** Runs a validated request against the store, or has the document answer it. */
export async function dispatch(binding: ResolvedBinding, received: ValidInput, ctx: DispatchContext): Promise<Responded> {
  const { action, resource, wrap } = binding.operation.binding;
  if (action === 'mock' || resource === undefined) return ctx.generatedAnswer();
  // A body wrapped as the answer is (`{"order": {…}}`) is read as the record it wraps.
  const inner = wrap !== undefined && isObject(received.body) ? received.body[wrap] : undefined;
  const input = isObject(inner) ? { ...received, body: inner } : received;
  const { store, workspace } = ctx;
  const scope = scopeOf(binding, input.path);
  const parents = parentValues(binding, input.path);
  if (action === 'list') return list(binding, input, ctx, scope, parents);
  if (action === 'create') return create(binding, input, ctx, resource, scope, parents);
  const named = binding.idParam === undefined ? bodyId(binding, input.body) : input.path[binding.idParam];
  if (named === undefined) return unnamed(binding.idProperty);
  // A path parameter arrives as its schema types it: a number for whole-number ids, else text.
  const key = typeof named === 'string' ? named : JSON.stringify(named);
  // A miss is a 404, declared or not: inventing a record that does not exist misleads a client more
  // than a status the document leaves out (decision 0015). Where it declares no 404 (nor `4XX` nor
  // `default`), a replace stores the record under that id instead (PUT creates, RFC 9110 §9.3.4).
  // A nested record is found only under its own parent (its scope never changes, ids are never reused).
  const current = await store.get(workspace, resource, key);
  if (current.kind === 'not-found' && action === 'replace' && !binding.declaresNotFound && (binding.keyed || isRowNumber(key))) {
    const written = pick(input.body, binding.writable);
    for (const [field, value] of parents) written[field] = value;
    const record = stamped(binding, completeRecord(binding.document, binding, written), ctx.now, true);
    if (record === undefined) return ctx.generatedAnswer();
    const row = await store.put(workspace, resource, key, scoped(record, scope), binding.keyed);
    const after = forAnswer(binding, row);
    return answer(binding, binding.successStatus, after, {}, { workspace, collection: resource, id: key, kind: 'created', after });
  }
  if (current.kind === 'not-found' || current.row[SCOPE_FIELD] !== scope || !belongs(current.row, parents)) return notFound(resource, key);
  let found: Lookup;
  if (action === 'read') found = current;
  else if (action === 'delete') found = await store.delete(workspace, resource, key);
  else if (action === 'apply') {
    const changes = actionChanges(input, binding.queryFields, binding.writable, binding.verbState);
    // An action that sets nothing answers the record as it is, and changed nothing.
    if (Object.keys(changes).length === 0) return answer(binding, binding.successStatus, forAnswer(binding, current.row));
    const applied = await patched(binding, ctx, resource, key, changes, scope);
    if (applied.kind === 'refused') return applied.answer;
    found = applied;
  } else if (action === 'replace') {
    const own = serverFields(current.row, binding.writable);
    const record = stamped(binding, completeRecord(binding.document, binding, pick(input.body, binding.writable), own), ctx.now, false);
    if (record === undefined) return ctx.generatedAnswer();
    found = await store.replace(workspace, resource, key, scoped(record, scope));
  } else {
    const updated = await patched(binding, ctx, resource, key, input.body, scope);
    if (updated.kind === 'refused') return updated.answer;
    found = updated;
  }
  if (found.kind === 'not-found') return notFound(resource, key);
  // A read keeps the record's text for the next read; a write's new record is serialised once, by the edge.
  if (action === 'read') return answer(binding, binding.successStatus, shown(binding, found.row));
  const before = forAnswer(binding, current.row);
  const kind = KIND[action];
  if (kind === 'deleted')
    return answer(binding, binding.successStatus, before, {}, { workspace, collection: resource, id: key, kind, before });
  const after = forAnswer(binding, found.row);
  return answer(binding, binding.successStatus, after, {}, { workspace, collection: resource, id: key, kind, before, after });
}

/** A patch (RFC 7396 or 6902) applied to the stored record in one atomic step, or why it was refused. */
async function patched(
  binding: ResolvedBinding,
  ctx: DispatchContext,
  resource: string,
  key: string,
  patch: unknown,
  scope: string | undefined,
): Promise<Lookup | { readonly kind: 'refused'; readonly answer: SandboxResponse }> {
  let refusal: SandboxResponse | undefined;
  const updated = await ctx.store.update(ctx.workspace, resource, key, (row) => {
    const outcome = applyPatch(binding.document, binding, row, patch);
    if (!outcome.ok) refusal = { status: 400, headers: {}, body: outcome.error };
    if (!outcome.ok) return undefined;
    return scoped(stamped(binding, outcome.fields, ctx.now, false), scope);
  });
  if (updated.kind !== 'refused') return updated;
  return { kind: 'refused', answer: refusal ?? notFound(resource, key) };
}

/** The id a body names its record by, where the path names none (`PUT /pet` with `{"id": 7, …}`). */
function bodyId(binding: ResolvedBinding, body: unknown): string | number | undefined {
  const id = isObject(body) ? body[binding.idProperty] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** A write on the collection path whose body names no record. */
function unnamed(idProperty: string): SandboxResponse {
  const location = `body.${idProperty}`;
  return {
    status: 400,
    headers: {},
    body: errorBody('validation_failed', `Invalid request: ${location}`, [{ location, message: 'must name the record to change' }]),
  };
}

/**
 * A create: the record under a key the client named in its body (keyed collections whose id is
 * writable; a key already held is a 409), else under a minted key or the next row number.
 */
async function create(
  binding: ResolvedBinding,
  input: ValidInput,
  ctx: DispatchContext,
  resource: string,
  scope: string | undefined,
  parents: readonly [string, unknown][],
): Promise<Responded> {
  // A record created under its parent's path names the parent (`userId` under `/users/7/orders`).
  const written = pick(input.body, binding.writable);
  for (const [field, value] of parents) written[field] = value;
  const record = stamped(binding, completeRecord(binding.document, binding, written), ctx.now, true);
  // A record the answer's schema cannot describe is not stored: the document answers instead.
  if (record === undefined) return ctx.generatedAnswer();
  const named = binding.clientNamed && isObject(input.body) ? input.body[binding.idProperty] : undefined;
  let row: Row;
  if (typeof named === 'string' || typeof named === 'number') {
    const inserted = await ctx.store.insert(ctx.workspace, resource, String(named), scoped(record, scope));
    if (inserted.kind === 'taken') return taken(resource, String(named));
    row = inserted.row;
  } else row = await ctx.store.create(ctx.workspace, resource, scoped(record, scope), minterFor(binding, record));
  const headers: Record<string, string> = {};
  if (binding.itemPath) headers.location = ctx.basePath + itemUrl(binding, input.path, keyOf(row));
  const after = forAnswer(binding, row);
  const change: StoreChange = { workspace: ctx.workspace, collection: resource, id: keyOf(row), kind: 'created', after };
  return answer(binding, binding.successStatus, after, headers, change);
}

/** How the new record's key is minted: readable from its title where the id is a slug, else the collection's way. */
function minterFor(binding: ResolvedBinding, record: Readonly<Record<string, unknown>>): MintKey | undefined {
  const { mint, slugFrom } = binding;
  const text = slugFrom === undefined ? undefined : record[slugFrom];
  const kind = binding.operation.binding.idKind;
  return mint === undefined || typeof text !== 'string' || kind === undefined ? mint : slugMinter(kind, text, mint);
}

/** A record with its parent's scope, in a nested collection. */
const scoped = <T extends Readonly<Record<string, unknown>>>(record: T, scope: string | undefined): T =>
  scope === undefined ? record : { ...record, [SCOPE_FIELD]: scope };

/** A whole number a numbered collection can store a record under (`PUT /pets/1000`). */
const isRowNumber = (key: string): boolean => /^[1-9]\d{0,15}$/.test(key) && Number.isSafeInteger(Number(key));

/**
 * The record with its server-kept timestamps set from the workspace's clock: on a create every one,
 * on a replace or patch the `updated` ones (the `created` ones are kept from the stored record).
 */
function stamped<T extends Readonly<Record<string, unknown>> | undefined>(
  binding: ResolvedBinding,
  record: T,
  now: number,
  creating: boolean,
): T {
  const { created, updated } = binding.timestamps;
  if (record === undefined || (updated.length === 0 && (!creating || created.length === 0))) return record;
  const at = new Date(now).toISOString();
  const out: Record<string, unknown> = { ...record };
  if (creating) for (const name of created) out[name] = at;
  for (const name of updated) out[name] = at;
  return out as T;
}

/** A miss: no record has this id (in the document's error shape, which the pipeline gives every error). */
function notFound(resource: string, key: string): SandboxResponse {
  return { status: 404, headers: {}, body: errorBody('resource_not_found', `No ${resource} record has id ${key}`) };
}

/** A create naming an id a record already has. */
function taken(resource: string, key: string): SandboxResponse {
  return { status: 409, headers: {}, body: errorBody('resource_exists', `A ${resource} record has id ${key} already`) };
}

/** The path template with the request's own path parameters, and the record's id last. */
function itemUrl(binding: ResolvedBinding, path: Readonly<Record<string, unknown>>, key: string): string {
  const id = encodeURIComponent(key);
  const template = binding.itemPath ?? '';
  const last = template.lastIndexOf('{');
  // Most item paths have the id as their only parameter (`/pets/{petId}`).
  if (last !== -1 && template.indexOf('{') === last) return template.slice(0, last) + id + template.slice(template.indexOf('}', last) + 1);
  const filled = template.slice(0, last).replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(path[name])));
  return filled + template.slice(last).replace(/\{[^}]+\}/, id);
}
