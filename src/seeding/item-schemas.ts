import { answerMedia, answerResponse, listItems } from '../openapi/bindings.js';
import { follow, isObject } from '../openapi/json-pointer.js';
import { isKeyed, type ApiModel, type IdKind } from '../vocabulary/operation.js';

/**
 * Where each store collection's record schema lives in the document: the items of its list
 * operation's success response, else the success response of its read or create operation.
 */
export function itemSchemas(model: ApiModel): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  const successSchema = (responses: ApiModel['operations'][number]['responses']): string | undefined =>
    answerMedia(answerResponse(responses))?.schemaPointer;
  for (const op of model.operations) {
    const resource = op.binding.resource;
    if (resource === undefined || op.binding.action === 'mock') continue;
    if (!found.has(resource)) found.set(resource, undefined);
    const pointer = successSchema(op.responses);
    if (pointer === undefined) continue;
    if (op.binding.action === 'list') {
      const { value, pointer: at } = follow(model.document, pointer);
      const items = isObject(value) ? listItems(model.document, value, at) : undefined;
      if (items) found.set(resource, items.pointer);
    } else if ((op.binding.action === 'read' || op.binding.action === 'create') && found.get(resource) === undefined) {
      found.set(resource, pointer);
    }
  }
  return found;
}

/**
 * The parent collection of each nested one (`users/orders` → `users`), when the document has it:
 * seeded children are spread over the parent's records. A nested collection with no parent
 * collection is seeded empty (its parents' ids are unknown).
 */
export function parentCollections(model: ApiModel): Map<string, string | undefined> {
  const parents = new Map<string, string | undefined>();
  const names = new Set(model.operations.map((op) => op.binding.resource));
  for (const op of model.operations) {
    const { resource, scope } = op.binding;
    if (resource === undefined || scope === undefined || scope.length === 0 || parents.has(resource)) continue;
    const parent = resource.split('/').slice(0, -1).join('/');
    parents.set(resource, names.has(parent) ? parent : undefined);
  }
  return parents;
}

/** How a keyed collection names its records (its id property and kind); collections of whole-number ids are absent. */
export interface KeyedIdentity {
  readonly idProperty: string;
  readonly idKind: Exclude<IdKind, { kind: 'integer' }>;
}

/** Each keyed collection's identity, from the first operation bound to it. */
export function keyedIdentities(model: ApiModel): Map<string, KeyedIdentity> {
  const found = new Map<string, KeyedIdentity>();
  for (const op of model.operations) {
    const { resource, idKind, idProperty } = op.binding;
    if (resource === undefined || found.has(resource) || !isKeyed(idKind)) continue;
    found.set(resource, { idProperty: idProperty ?? 'id', idKind });
  }
  return found;
}

/** Each collection's id property, from the first operation bound to it (`id` unless the document says otherwise). */
export function idProperties(model: ApiModel): Map<string, string> {
  const found = new Map<string, string>();
  for (const op of model.operations) {
    const { resource, idProperty } = op.binding;
    if (resource !== undefined && idProperty !== undefined && !found.has(resource)) found.set(resource, idProperty);
  }
  return found;
}
