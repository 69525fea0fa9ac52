/**
 * The plain operation records that routing, auth, limits, validation and dispatch read. Built once
 * at start-up from the OpenAPI document; nothing downstream reads the raw document except through
 * the schema pointers kept here (for the validators compiled from them).
 */

/** A path item's fixed operation fields (OpenAPI 3.2 §4.10.1 adds `query`); others are in `additionalOperations`. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query'] as const;

/** `querystring` (OpenAPI 3.2 §4.12.2): one parameter that is the whole query string, in its `content` media type. */
export type ParameterLocation = 'path' | 'query' | 'querystring' | 'header' | 'cookie';

/** The JSON types a parameter's text is parsed into before schema validation. */
export type ValueKind = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'object' | 'any';

/** The serialisation styles of OpenAPI 3.1 §4.8.12.4 (and of `encoding` in form bodies, §4.8.15). */
export const PARAMETER_STYLES = ['form', 'simple', 'label', 'matrix', 'spaceDelimited', 'pipeDelimited', 'deepObject'] as const;
export type ParameterStyle = (typeof PARAMETER_STYLES)[number];
export const isParameterStyle = (value: unknown): value is ParameterStyle => PARAMETER_STYLES.includes(value as ParameterStyle);

export interface ParameterSpec {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** JSON pointer to the parameter's schema in the document. */
  readonly schemaPointer: string | undefined;
  readonly kind: ValueKind;
  /** For arrays: the kind of each item. */
  readonly itemKind: ValueKind;
  readonly style: ParameterStyle;
  readonly explode: boolean;
  /** For objects: the kind of each declared property (OpenAPI 3.1 §4.8.12.4), read at start-up. */
  readonly propertyKinds?: ReadonlyMap<string, ValueKind>;
  /**
   * For objects: the kind of properties not declared (from `additionalProperties`), or absent when
   * the schema forbids or does not mention them.
   */
  readonly additionalKind?: ValueKind;
  /**
   * When the schema allows values of several types (`oneOf`/`anyOf` branches of different types, a
   * list of `type`s): each way to read the text, in document order. The first reading the schema
   * accepts is the value (`id=1` is 1 for `oneOf: [{type: integer}, {type: string, enum: [a]}]`).
   */
  readonly variants?: readonly ValueShape[];
  /** `content`-typed parameters (OpenAPI 3.1 §4.8.12.2.2): the one media type the value is serialised in. */
  readonly mediaType?: string;
  /** Query only (OpenAPI 3.1 §4.8.12.2.1): an empty value (`?name=`) counts as sent and is not validated. */
  readonly allowEmptyValue?: boolean;
  /** Query only (OpenAPI 3.1 §4.8.12.2.1): reserved characters are sent as they are, so a `+` is a plus, not a space. */
  readonly allowReserved?: boolean;
}

/** What a parameter's text is read into: one reading of it. */
export type ValueShape = Pick<ParameterSpec, 'kind' | 'itemKind' | 'propertyKinds' | 'additionalKind'>;

export interface MediaSpec {
  readonly mediaType: string;
  readonly schemaPointer: string | undefined;
  /**
   * A sequential media type's `itemSchema` (OpenAPI 3.2 §4.14.1): the schema of each item of a
   * stream (an SSE event, a JSON Lines line), where `schemaPointer` would describe the whole.
   */
  readonly itemSchemaPointer?: string;
  /** The first example the document gives (`example`, or the first of `examples`). */
  readonly example: { readonly value: unknown } | undefined;
}

export interface HeaderSpec {
  readonly name: string;
  readonly required: boolean;
  readonly schemaPointer: string | undefined;
  readonly kind: ValueKind;
}

export interface ResponseSpec {
  /** `200`, `2XX` or `default`. */
  readonly status: string;
  readonly headers: readonly HeaderSpec[];
  readonly content: readonly MediaSpec[];
}

/**
 * One scheme named by a requirement, with the scopes it requires: OAuth 2 / OpenID Connect scopes,
 * or role names for other schemes (OpenAPI 3.1 §4.8.30). Empty: any credential of the scheme.
 */
export interface SchemeUse {
  readonly scheme: string;
  readonly scopes: readonly string[];
}

/** Schemes that must all be satisfied; an operation is satisfied by any one of its requirements. */
export type SecurityRequirement = readonly SchemeUse[];

/**
 * What an operation does to its collection. `apply`: an action on one record (`POST /orders/{id}/cancel`,
 * Stripe's `POST /customers/{id}`) that sets the record fields its body or query names, and the field
 * its verb names the state of (`status: cancelled`), then answers the record.
 */
export type StoreAction = 'list' | 'create' | 'read' | 'replace' | 'patch' | 'delete' | 'apply' | 'mock';

export interface Binding {
  readonly action: StoreAction;
  /**
   * Who decided: the document (an `x-understudy` extension), REST conventions, or nobody yet (the
   * operation is answered from the document, unless conventions bind it).
   */
  readonly origin: 'document' | 'convention' | 'none';
  /** The store collection the action works on. */
  readonly resource: string | undefined;
  /** list: names of the page-size and keyset-cursor query parameters (`limit`, `after` by default). */
  readonly pagination?: { readonly limit?: string; readonly after?: string };
  /**
   * Nested collections (`/users/{userId}/orders`): the path parameters naming the parent record,
   * outermost first. Records are scoped by their values: one created under `/users/1/orders` is not
   * listed, read or changed under `/users/2/orders`.
   */
  readonly scope?: readonly string[];
  /** The record property holding the record's id (the item path's parameter name, else `id`, `uuid`…). */
  readonly idProperty?: string;
  /** What the ids are and how new ones are minted; absent: whole numbers, the store's row numbers. */
  readonly idKind?: IdKind;
  /**
   * One record in, one record out, wrapped in an object of one property (`{"inbound_shipment": {…}}`):
   * the property's name. The answer, and a request body wrapped the same way, hold the record there.
   */
  readonly wrap?: string;
  /**
   * A nested path that is a view of a top-level collection (`/users/{userId}/orders` of `orders`,
   * whose records hold `userId`): each parent path parameter and the record field it names.
   */
  readonly parentFields?: Readonly<Record<string, string>>;
}

/**
 * How a collection's records are named, read from the id property's schema (recognise.ts):
 * - `integer`: whole numbers, the store's row numbers (1, 2, 3…);
 * - `uuid`: `format: uuid`, minted as version-4-shaped UUIDs;
 * - `string`: any other string, minted to fit its `pattern`, else a `prefix` the document's examples
 *   share (`cus_`), within its lengths and `format` (`email`, `uri`…).
 * `clientNamed`: a create may name the record itself (the id is writable in its body, as `username`
 * in `POST /user`); a create that names none is given a minted one.
 */
export type IdKind =
  | { readonly kind: 'integer' }
  | { readonly kind: 'uuid'; readonly clientNamed: boolean }
  | {
      readonly kind: 'string';
      readonly clientNamed: boolean;
      readonly prefix?: string;
      readonly pattern?: string;
      readonly format?: string;
      readonly minLength?: number;
      readonly maxLength?: number;
    };

/** Whether records of this kind keep a key of their own (anything but the store's row numbers). */
export const isKeyed = (kind: IdKind | undefined): kind is Exclude<IdKind, { kind: 'integer' }> =>
  kind !== undefined && kind.kind !== 'integer';

export interface Lifecycle {
  readonly deprecated: boolean;
  readonly deprecatedSince: Date | undefined;
  readonly sunset: Date | undefined;
  /** operationId of the replacement. */
  readonly replacedBy: string | undefined;
}

export interface OperationSpec {
  readonly id: string;
  /** Upper case. */
  readonly method: string;
  /** As in the document: `/pets/{petId}`. */
  readonly pathTemplate: string;
  /** Where the operation is in the document: `#/paths/~1pets/get`, `…/additionalOperations/COPY` (OpenAPI 3.2). */
  readonly pointer: string;
  readonly parameters: readonly ParameterSpec[];
  readonly requestBody: { readonly required: boolean; readonly content: readonly MediaSpec[] } | undefined;
  readonly responses: readonly ResponseSpec[];
  readonly security: readonly SecurityRequirement[];
  readonly binding: Binding;
  readonly lifecycle: Lifecycle;
}

/** A security scheme (OpenAPI 3.1 §4.8.27) as the sandbox checks it. */
export type SecurityScheme =
  | { readonly kind: 'bearer'; readonly name: string }
  | { readonly kind: 'basic'; readonly name: string }
  /** Another `Authorization` scheme (RFC 9110 §11.6.2), by its lower-case name: the credentials are a key. */
  | { readonly kind: 'http'; readonly name: string; readonly scheme: string }
  | { readonly kind: 'apiKey'; readonly name: string; readonly in: 'header' | 'query' | 'cookie'; readonly parameter: string }
  /** Bearer tokens (RFC 6750); `tokenUrls` from the flows that have one, `scopes` every scope the flows declare. */
  | { readonly kind: 'oauth2'; readonly name: string; readonly tokenUrls: readonly string[]; readonly scopes: readonly string[] }
  | { readonly kind: 'openIdConnect'; readonly name: string }
  /** A scheme the sandbox cannot check (mutualTLS, an unknown type): requirements are met without it. */
  | { readonly kind: 'unchecked'; readonly name: string; readonly type: string };

export interface ApiModel {
  readonly title: string;
  readonly version: string;
  /** The JSON Schema dialect (openapi/schema-dialect.ts): `3.0` (2.0 and 3.0), `2020-12` (3.1 and 3.2). */
  readonly dialect: '3.0' | '2020-12';
  /** The path prefix of the first server (e.g. `/v1`), or empty. */
  readonly basePath: string;
  readonly operations: readonly OperationSpec[];
  readonly securitySchemes: ReadonlyMap<string, SecurityScheme>;
  /** What the sandbox serves around in the document (a scheme it cannot check), for the start-up log. */
  readonly warnings: readonly string[];
  /** The document itself, for schema compilation and generation by pointer. */
  readonly document: unknown;
  /**
   * Where a pointer into `document` stands in the user's file, for messages: the same pointer for
   * OpenAPI 3.x, the place in the 2.0 original for a converted Swagger 2.0 document.
   */
  readonly locate: (pointer: string) => string;
}
