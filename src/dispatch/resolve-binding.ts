import { escapePointerToken, follow, isObject } from '../openapi/json-pointer.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';

/** What dispatch needs to know about one operation, worked out once at start-up. */
export interface ResolvedBinding {
  readonly operation: OperationSpec;
  /** The status of a success answer (`201` for create when declared). */
  readonly successStatus: number;
  /** list: query parameters that filter by a record field of the same name. */
  readonly filters: readonly string[];
  /** list: the page-size and keyset-cursor parameter names, when the operation declares them. */
  readonly limitParam: string | undefined;
  readonly afterParam: string | undefined;
  /** create/replace: the record fields a client may set (the request schema's, less readOnly ones). */
  readonly writable: ReadonlySet<string> | undefined;
  /** read/replace/delete: the path parameter holding the record id. */
  readonly idParam: string | undefined;
  /** create: the path template of the item URL, for `Location`. */
  readonly itemPath: string | undefined;
}

export function resolveBinding(model: ApiModel, op: OperationSpec): ResolvedBinding {
  const pagination = op.binding.pagination ?? {};
  const queryNames = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const declared = (name: string | undefined, fallback: string): string | undefined => {
    const chosen = name ?? fallback;
    return queryNames.has(chosen) ? chosen : undefined;
  };
  const limitParam = declared(pagination.limit, 'limit');
  const afterParam = declared(pagination.after, 'after');
  const success = op.responses.find((r) => r.status.startsWith('2'));
  const successStatus = success && /^\d{3}$/.test(success.status) ? Number(success.status) : op.binding.action === 'create' ? 201 : 200;
  const fields = recordFields(model, op);
  const itemOp = model.operations.find((o) => o.binding.resource === op.binding.resource && o.binding.action === 'read');
  return {
    operation: op,
    successStatus,
    filters: op.binding.action === 'list' ? [...queryNames].filter((n) => n !== limitParam && n !== afterParam && fields.has(n)) : [],
    limitParam,
    afterParam,
    writable: op.requestBody ? writableFields(model, op) : undefined,
    idParam: op.parameters.filter((p) => p.in === 'path').at(-1)?.name,
    itemPath: itemOp?.pathTemplate,
  };
}

/** Property names of the schema at `pointer`, through `$ref` and `allOf`; readOnly ones only if asked. */
function propertiesOf(document: unknown, pointer: string | undefined, includeReadOnly: boolean, depth = 0): Set<string> {
  const names = new Set<string>();
  if (pointer === undefined || depth > 8) return names;
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return names;
  if (isObject(value.properties)) {
    for (const name of Object.keys(value.properties)) {
      const prop = follow(document, `${at}/properties/${escapePointerToken(name)}`).value;
      if (includeReadOnly || !(isObject(prop) && prop.readOnly === true)) names.add(name);
    }
  }
  if (Array.isArray(value.allOf)) {
    value.allOf.forEach((_, i) => propertiesOf(document, `${at}/allOf/${i}`, includeReadOnly, depth + 1).forEach((n) => names.add(n)));
  }
  return names;
}

function recordFields(model: ApiModel, op: OperationSpec): Set<string> {
  const success = op.responses.find((r) => r.status.startsWith('2'))?.content[0]?.schemaPointer;
  if (success === undefined) return new Set();
  const { value, pointer } = follow(model.document, success);
  const itemPointer = isObject(value) && value.items !== undefined ? `${pointer}/items` : pointer;
  return propertiesOf(model.document, itemPointer, true);
}

function writableFields(model: ApiModel, op: OperationSpec): Set<string> {
  const names = new Set<string>();
  for (const media of op.requestBody?.content ?? []) propertiesOf(model.document, media.schemaPointer, false).forEach((n) => names.add(n));
  names.delete('id');
  return names;
}
