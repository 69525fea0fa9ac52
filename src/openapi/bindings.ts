import { isObject } from './json-pointer.js';
import type { Binding, OperationSpec, StoreAction } from '../vocabulary/operation.js';
import { schemaAt } from './value-kind.js';

/** Which operations the store serves, and how: explicit `x-understudy` bindings, else REST conventions. */

const STORE_ACTIONS: readonly StoreAction[] = ['list', 'create', 'read', 'replace', 'delete', 'mock'];

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

/** What a method on `collection/{id}` does to the record, by REST convention. */
const ITEM_ACTIONS: Readonly<Partial<Record<string, StoreAction>>> = { GET: 'read', PUT: 'replace', DELETE: 'delete' };

/**
 * Operations without an explicit `x-understudy` binding follow REST conventions: GET on a collection
 * path answering an array lists, POST on it creates, and GET, PUT and DELETE on `collection/{id}`
 * read, replace and delete. Item paths are bound only when their collection is.
 */
export function inferBindings(document: unknown, operations: OperationSpec[]): OperationSpec[] {
  const collections = new Set<string>();
  const inferred = operations.map((op) => {
    if (op.binding.resource !== undefined) collections.add(op.binding.resource);
    if (op.binding.origin !== 'none') return op;
    const segments = op.pathTemplate.split('/').filter(Boolean);
    const last = segments.at(-1);
    if (last === undefined || last.startsWith('{')) return op;
    const success = op.responses.find((r) => r.status.startsWith('2'));
    const schema = schemaAt(document, success?.content[0]?.schemaPointer);
    if (op.method === 'GET' && schema?.type === 'array') return withBinding(op, 'list', last, collections);
    if (op.method === 'POST' && op.requestBody) return withBinding(op, 'create', last, collections);
    return op;
  });
  return inferred.map((op) => {
    if (op.binding.origin !== 'none') return op;
    const segments = op.pathTemplate.split('/').filter(Boolean);
    const last = segments.at(-1);
    const parent = segments.at(-2);
    if (!last?.startsWith('{') || parent === undefined || !collections.has(parent)) return op;
    const action = ITEM_ACTIONS[op.method];
    return action ? { ...op, binding: { action, resource: parent, origin: 'convention' } } : op;
  });
}

function withBinding(op: OperationSpec, action: StoreAction, resource: string, collections: Set<string>): OperationSpec {
  collections.add(resource);
  return { ...op, binding: { action, resource, origin: 'convention' } };
}
