import { answerMedia, answerResponse, answerStatus, sendsJson, streamedItems } from '../openapi/bindings.js';
import { follow, isObject } from '../openapi/json-pointer.js';
import { requiredOf } from '../openapi/required.js';
import { isKeyed, type ApiModel, type OperationSpec } from '../vocabulary/operation.js';
import type { MintKey } from '../vocabulary/record.js';
import { minter } from '../resources/mint-id.js';
import { envelopeOf, type Envelope } from './envelope.js';
import { pagingParams, pagingStyle, type PagingStyle } from './paging-style.js';
import {
  NONE,
  ownedFieldsOf,
  propertiesOf,
  propertySchema,
  recordPointerOf,
  timestampsOf,
  writableFields,
  writeOnlyFields,
} from './record-fields.js';
import { verbState, type VerbState } from './apply-action.js';
import { sortSearchOf, type SortSearch } from './sort-search.js';

/** What dispatch needs to know about one operation, worked out once at start-up. */
export interface ResolvedBinding {
  readonly operation: OperationSpec;
  /** The document, for generating and checking records by schema pointer. */
  readonly document: unknown;
  /** The status of a success answer: the lowest 2xx the operation declares. */
  readonly successStatus: number;
  /** The success answer's declared media type, or undefined when it declares no content (204). */
  readonly mediaType: string | undefined;
  /** list: query parameters that filter by a record field of the same name. */
  readonly filters: readonly string[];
  /** list by QUERY (OpenAPI 3.2): the JSON body's properties that filter by a record field of the same name. */
  readonly bodyFilters: readonly string[];
  /** list: how it pages (its cursor, offset or page parameter, and its page size). */
  readonly paging: PagingStyle;
  /** list: the parameters it sorts and searches by, where it declares them. */
  readonly sortSearch: SortSearch;
  /** list: the envelope the page is wrapped in (`{data: [...], next}`), or undefined for a bare array. */
  readonly envelope: Envelope | undefined;
  /** create/replace/patch: the record fields a client may set (the request schema's, less readOnly ones). */
  readonly writable: ReadonlySet<string> | undefined;
  /**
   * read/replace/patch/delete/apply: the path parameter holding the record id; undefined where a
   * replace or patch on the collection path names the record in its body (`PUT /pet`).
   */
  readonly idParam: string | undefined;
  /** apply: the query parameters that name a record field (`POST /pet/{petId}?status=sold`). */
  readonly queryFields: readonly string[];
  /** apply: the state its verb sets (`/orders/{id}/cancel` → `status: cancelled`). */
  readonly verbState: VerbState | undefined;
  /** The record property the record's id is shown as (`id`, `orderId`, `username`). */
  readonly idProperty: string;
  /** Whether records keep a key of their own (any id but whole numbers: UUIDs, `cus_…`, usernames). */
  readonly keyed: boolean;
  /** create: a client may name the new record in its body (the id property is writable). */
  readonly clientNamed: boolean;
  /** How a new record's key is minted in a keyed collection; undefined where the store numbers records. */
  readonly mint: MintKey | undefined;
  /**
   * create: the field a new record's readable key is made from (`title` for a `slug` id), where the
   * id is a slug or handle and the record has a title or name.
   */
  readonly slugFrom: string | undefined;
  /** An id of the collection's kind, to check a record against its schema before it has one (made on first use). */
  readonly sampleId: () => string | number;
  /**
   * A nested view of a top-level collection (`/users/{userId}/orders`): each parent path parameter,
   * the record field it names, and whether that field holds numbers (a path's text is made one).
   */
  readonly parentFields: readonly { readonly param: string; readonly field: string; readonly numeric: boolean }[];
  /** Nested collections: the path parameters naming the parent record. */
  readonly scope: readonly string[];
  /** create: the path template of the item URL, for `Location`. */
  readonly itemPath: string | undefined;
  /** The schema of one record in this operation's answer (the items of a list). */
  readonly recordPointer: string | undefined;
  /**
   * create/replace/patch: the record's fields a write must leave filled, the id aside: the required
   * ones and those the client cannot write (`createdAt`). Worked out once, not per write.
   */
  readonly ownedFields: ReadonlySet<string>;
  /**
   * The record's required fields in this operation's answer, the id aside: records stored through
   * another operation of the collection may lack some (GitHub's `/search/users` items need `score`).
   */
  readonly answerRequired: readonly string[];
  /**
   * Fields never shown in an answer: those any operation of the collection marks `writeOnly` (a
   * password written on create is stored, and never sent back; OpenAPI 3.0.3 §4.7.25).
   */
  readonly hidden: ReadonlySet<string>;
  /**
   * The only fields this operation's record schema lets an answer show, when it is closed
   * (`additionalProperties: false`): a record stored through a wider view of the collection keeps
   * its other fields, and this view leaves them out.
   */
  readonly closedTo: ReadonlySet<string> | undefined;
  /** read/replace/patch/delete: the operation declares a 404 (or `4XX`, or `default`) for a missing record. */
  readonly declaresNotFound: boolean;
  /** patch: the request takes a JSON Patch document (RFC 6902). */
  readonly jsonPatch: boolean;
  /**
   * The record's timestamps the server keeps (not writable, `format: date-time`): `created` ones
   * (`createdAt`, `created_at`, `dateCreated`…) are set from the workspace's clock when a record is
   * created, `updated` ones (`updatedAt`, `modified_at`, `lastModified`…) whenever it is written.
   */
  readonly timestamps: { readonly created: readonly string[]; readonly updated: readonly string[] };
}

const readsOf = new WeakMap<ApiModel, ReadonlyMap<string, OperationSpec>>();

/** Each collection's read operation (the first), per model: looked up once per operation, so a map, not a scan. */
function readOperations(model: ApiModel): ReadonlyMap<string, OperationSpec> {
  let reads = readsOf.get(model);
  if (!reads) {
    const found = new Map<string, OperationSpec>();
    for (const o of model.operations) {
      const resource = o.binding.resource;
      if (resource !== undefined && o.binding.action === 'read' && !found.has(resource)) found.set(resource, o);
    }
    readsOf.set(model, (reads = found));
  }
  return reads;
}

const closedSchema = (document: unknown, pointer: string | undefined): boolean => {
  const schema = pointer === undefined ? undefined : follow(document, pointer).value;
  return isObject(schema) && schema.additionalProperties === false;
};

export function resolveBinding(model: ApiModel, op: OperationSpec): ResolvedBinding {
  const query = op.parameters.filter((p) => p.in === 'query');
  const paging = pagingStyle(model.document, query, op.binding.pagination);
  const reserved = new Set(pagingParams(paging));
  const response = answerResponse(op.responses);
  const media = answerMedia(response);
  // A stream of records (an `itemSchema`, OpenAPI 3.2) lists them one an item.
  const streamed = op.binding.action === 'list' ? streamedItems(model.document, op)?.pointer : undefined;
  const recordPointer = streamed ?? recordPointerOf(model, op, media?.schemaPointer);
  const fields = propertiesOf(model.document, recordPointer, true);
  const sortSearch = sortSearchOf(
    query.map((p) => p.name),
    fields,
  );
  const itemOp = op.binding.resource === undefined ? undefined : readOperations(model).get(op.binding.resource);
  const action = op.binding.action;
  const writable =
    op.requestBody || action === 'apply'
      ? writableFields(model, op, action === 'patch' || action === 'apply' ? recordPointer : undefined)
      : undefined;
  const idInBody = (action === 'replace' || action === 'patch') && !op.pathTemplate.endsWith('}');
  const hidden = op.binding.resource === undefined ? NONE : writeOnlyFields(model, op.binding.resource);
  const mint = op.binding.resource === undefined ? undefined : minter(op.binding.idKind, op.binding.resource);
  let sample: string | number | undefined;
  return {
    operation: op,
    document: model.document,
    successStatus: answerStatus(response),
    mediaType: media?.mediaType,
    filters: op.binding.action === 'list' ? query.map((p) => p.name).filter((n) => !reserved.has(n) && fields.has(n)) : [],
    bodyFilters: op.binding.action === 'list' && op.method === 'QUERY' ? bodyFiltersOf(model.document, op, fields) : [],
    paging,
    sortSearch,
    envelope: op.binding.action === 'list' && sendsJson(media) ? envelopeOf(model.document, media?.schemaPointer) : undefined,
    writable,
    idParam: idInBody ? undefined : op.parameters.filter((p) => p.in === 'path').at(-1)?.name,
    queryFields: action === 'apply' ? query.map((p) => p.name).filter((n) => fields.has(n) && n !== (op.binding.idProperty ?? 'id')) : [],
    verbState: action === 'apply' ? verbState(model.document, recordPointer, op.pathTemplate) : undefined,
    idProperty: op.binding.idProperty ?? 'id',
    keyed: isKeyed(op.binding.idKind),
    clientNamed: isKeyed(op.binding.idKind) && op.binding.idKind.clientNamed,
    mint,
    slugFrom:
      isKeyed(op.binding.idKind) && /slug|handle/i.test(op.binding.idProperty ?? '')
        ? ['title', 'name', 'headline'].find((name) => fields.has(name))
        : undefined,
    sampleId: () => (sample ??= mint === undefined ? 1 : mint('sample')),
    scope: op.binding.scope ?? [],
    parentFields: Object.entries(op.binding.parentFields ?? {}).map(([param, field]) => {
      const type = propertySchema(model.document, recordPointer, field)?.type;
      return { param, field, numeric: type === 'integer' || type === 'number' };
    }),
    itemPath: itemOp?.pathTemplate,
    recordPointer,
    declaresNotFound: op.responses.some((r) => r.status === '404' || r.status === '4XX' || r.status === 'DEFAULT'),
    ownedFields: ownedFieldsOf(model.document, recordPointer, writable, op.binding.idProperty ?? 'id'),
    hidden,
    closedTo: closedSchema(model.document, recordPointer) ? fields : undefined,
    answerRequired:
      recordPointer === undefined
        ? []
        : [...requiredOf(model.document, recordPointer)].filter((name) => name !== (op.binding.idProperty ?? 'id') && !hidden.has(name)),
    jsonPatch: op.requestBody?.content.some((m) => m.mediaType === 'application/json-patch+json') ?? false,
    timestamps: timestampsOf(model.document, recordPointer, fields, writable),
  };
}

/** The properties of a QUERY's JSON body that name record fields: each filters the list as a query parameter would. */
function bodyFiltersOf(document: unknown, op: OperationSpec, fields: ReadonlySet<string>): string[] {
  const media = op.requestBody?.content.find((m) => sendsJson(m));
  return [...propertiesOf(document, media?.schemaPointer, true)].filter((name) => fields.has(name));
}
