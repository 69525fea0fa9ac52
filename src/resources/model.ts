import type { PagingStyle } from '../dispatch/paging-style.js';
import { resolveBinding } from '../dispatch/resolve-binding.js';
import { answerMedia, answerResponse, answerSchema, listItems, sendsJson } from '../openapi/bindings.js';
import { isKeyed, type ApiModel, type IdKind, type OperationSpec } from '../vocabulary/operation.js';

/**
 * What the sandbox makes of a document's state: each collection it keeps (its views, its id and how
 * ids are minted, its filters and paging), each operation answered from the document and why, and
 * the item operations that may answer a 404 the document does not declare. Read by the start-up
 * report, `GET /__sandbox/model` and `understudy explain`.
 */
export interface StateModel {
  readonly collections: readonly CollectionModel[];
  readonly fromDocument: readonly DocumentAnswered[];
  /** Item operations (`operationId`) that answer 404 for a missing record with no 404 declared (decision 0015). */
  readonly undeclaredNotFound: readonly string[];
}

export interface CollectionModel {
  readonly name: string;
  /** Nested collections: the path parameters naming the parent record. */
  readonly scope: readonly string[];
  readonly idProperty: string;
  /** `integer`, `uuid` or `string`. */
  readonly idKind: IdKind['kind'];
  /** How a new record's id comes to be, in words. */
  readonly ids: string;
  readonly views: readonly View[];
  /** Query parameters of the list views that filter by a record field. */
  readonly filters: readonly string[];
  /** How the list views page, in words. */
  readonly paging: string;
  /** Whether the bindings come from `x-understudy` (else REST conventions). */
  readonly explicit: boolean;
}

export interface View {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly action: string;
  /** A nested view: the record field each parent path parameter names (`{userId}` → `userId`). */
  readonly parentFields?: Readonly<Record<string, string>>;
}

export interface DocumentAnswered {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly reason: string;
}

const models = new WeakMap<ApiModel, StateModel>();

/** The state model of a document, made once per model (a generation keeps one model). */
export function stateModel(model: ApiModel): StateModel {
  let found = models.get(model);
  if (!found) models.set(model, (found = describe(model)));
  return found;
}

const ITEM_ACTIONS = new Set(['read', 'replace', 'patch', 'delete']);

function describe(model: ApiModel): StateModel {
  const byResource = new Map<string, OperationSpec[]>();
  const fromDocument: DocumentAnswered[] = [];
  const undeclaredNotFound: string[] = [];
  for (const op of model.operations) {
    const { resource, action } = op.binding;
    if (resource === undefined || action === 'mock') {
      fromDocument.push({ operationId: op.id, method: op.method, path: op.pathTemplate, reason: reasonFor(model, op) });
      continue;
    }
    const same = byResource.get(resource);
    if (same) same.push(op);
    else byResource.set(resource, [op]);
    const declares = op.responses.some((r) => r.status === '404' || r.status === '4XX' || r.status === 'DEFAULT');
    // A PUT to a missing id with no 404 declared stores the record (PUT creates): no undeclared 404.
    if (ITEM_ACTIONS.has(action) && action !== 'replace' && !declares) undeclaredNotFound.push(op.id);
  }
  const collections = [...byResource].map(([name, ops]) => collectionModel(model, name, ops));
  return { collections, fromDocument, undeclaredNotFound };
}

function collectionModel(model: ApiModel, name: string, ops: readonly OperationSpec[]): CollectionModel {
  const first = ops[0] as OperationSpec;
  const kind: IdKind = first.binding.idKind ?? { kind: 'integer' };
  const lists = ops.filter((op) => op.binding.action === 'list').map((op) => resolveBinding(model, op));
  const filters = [...new Set(lists.flatMap((b) => b.filters))];
  const paging = lists.map(({ paging: p, sortSearch }) => {
    const extras = [
      sortSearch.by === undefined ? '' : `, sorted by ${sortSearch.by}`,
      sortSearch.search === undefined ? '' : `, searched by ${sortSearch.search}`,
    ].join('');
    return pagingInWords(p) + extras;
  });

  return {
    name,
    scope: first.binding.scope ?? [],
    idProperty: first.binding.idProperty ?? 'id',
    idKind: kind.kind,
    ids: idsInWords(kind),
    views: ops.map((op) => {
      const view = { operationId: op.id, method: op.method, path: op.pathTemplate, action: op.binding.action };
      return op.binding.parentFields === undefined ? view : { ...view, parentFields: op.binding.parentFields };
    }),
    filters,
    paging: [...new Set(paging)].join('; ') || 'no list view',
    explicit: first.binding.origin === 'document',
  };
}

function pagingInWords(p: PagingStyle): string {
  const size = p.size ?? `${p.pageSize} a page`;
  if (p.kind === 'none') return p.size === undefined ? `none (every record, up to ${p.pageSize})` : `${p.size} (first page only)`;
  const style = { after: 'after a record', token: 'opaque cursor', offset: 'offset', page: 'page number' }[p.kind];
  return `${size} + ${p.param} (${style})`;
}

function idsInWords(kind: IdKind): string {
  if (!isKeyed(kind)) return 'whole numbers, counted up from the last seeded';
  const client = kind.clientNamed ? 'the id the client sends, else ' : '';
  if (kind.kind === 'uuid') return `${client}a minted UUID`;
  const shape = [
    kind.pattern === undefined ? '' : `matching ${kind.pattern}`,
    kind.prefix === undefined || kind.pattern !== undefined ? '' : `prefixed ${kind.prefix}`,
    kind.format === undefined ? '' : `formatted as ${kind.format}`,
    kind.minLength === undefined && kind.maxLength === undefined ? '' : `${kind.minLength ?? 0}-${kind.maxLength ?? '∞'} characters`,
  ].filter(Boolean);
  return `${client}a minted string${shape.length > 0 ? ` ${shape.join(', ')}` : ''}`;
}

/** Why an operation is answered from the document rather than the store. */
function reasonFor(model: ApiModel, op: OperationSpec): string {
  if (op.binding.origin === 'document') return 'x-understudy says mock';
  const response = answerResponse(op.responses);
  if (!response?.status.startsWith('2')) return 'declares no success response';
  const media = answerMedia(response);
  if (media === undefined) return op.method === 'DELETE' ? 'no collection holds what it deletes' : 'answers no content';
  if (!sendsJson(media)) return `answers ${media.mediaType}, not JSON`;
  const answer = answerSchema(model.document, op);
  if (answer === undefined) return 'answers no object schema';
  const items = listItems(model.document, answer.value, answer.pointer);
  if (answer.value.type === 'array' || answer.value.items !== undefined) {
    const type = typeof items?.value.type === 'string' ? items.value.type : undefined;
    if (items !== undefined && (type === undefined || type === 'object')) return 'lists records no collection path describes';
    return `answers an array of ${type === undefined ? 'values' : `${type}s`}`;
  }
  if (op.pathTemplate.split('/').filter(Boolean).length === 0) return 'the root path is no collection';
  return 'no collection path (/things, /things/{id}) answers these records with an id';
}
