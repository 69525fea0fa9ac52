import { follow, isObject } from '../openapi/json-pointer.js';
import type { ApiModel } from '../vocabulary/operation.js';

/**
 * Where each store collection's record schema lives in the document: the items of its list
 * operation's success response, else the success response of its read or create operation.
 */
export function itemSchemas(model: ApiModel): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>();
  const successSchema = (responses: ApiModel['operations'][number]['responses']): string | undefined =>
    responses.find((r) => r.status.startsWith('2'))?.content[0]?.schemaPointer;
  for (const op of model.operations) {
    const resource = op.binding.resource;
    if (resource === undefined || op.binding.action === 'mock') continue;
    if (!found.has(resource)) found.set(resource, undefined);
    const pointer = successSchema(op.responses);
    if (pointer === undefined) continue;
    if (op.binding.action === 'list') {
      const { value, pointer: at } = follow(model.document, pointer);
      if (isObject(value) && value.items !== undefined) found.set(resource, `${at}/items`);
    } else if ((op.binding.action === 'read' || op.binding.action === 'create') && found.get(resource) === undefined) {
      found.set(resource, pointer);
    }
  }
  return found;
}
