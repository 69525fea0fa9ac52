/**
 * The plain operation records that routing, auth, limits, validation and dispatch read. Built once
 * at start-up from the OpenAPI document; nothing downstream reads the raw document except through
 * the schema pointers kept here (for the validators compiled from them).
 */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** The JSON types a parameter's text is parsed into before schema validation. */
export type ValueKind = 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'object' | 'any';

export interface ParameterSpec {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** JSON pointer to the parameter's schema in the document. */
  readonly schemaPointer: string | undefined;
  readonly kind: ValueKind;
  /** For arrays: the kind of each item. */
  readonly itemKind: ValueKind;
  readonly style: string;
  readonly explode: boolean;
}

export interface MediaSpec {
  readonly mediaType: string;
  readonly schemaPointer: string | undefined;
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

/** Schemes that must all be satisfied; an operation is satisfied by any one of its requirements. */
export type SecurityRequirement = readonly string[];

export type StoreAction = 'list' | 'create' | 'read' | 'replace' | 'delete' | 'mock';

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
}

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
  readonly parameters: readonly ParameterSpec[];
  readonly requestBody: { readonly required: boolean; readonly content: readonly MediaSpec[] } | undefined;
  readonly responses: readonly ResponseSpec[];
  readonly security: readonly SecurityRequirement[];
  readonly binding: Binding;
  readonly lifecycle: Lifecycle;
}

export type SecurityScheme =
  | { readonly kind: 'bearer'; readonly name: string }
  | { readonly kind: 'apiKey'; readonly name: string; readonly in: 'header' | 'query'; readonly parameter: string };

export interface ApiModel {
  readonly title: string;
  readonly version: string;
  /** `3.0` or `3.1`: picks the JSON Schema dialect. */
  readonly dialect: '3.0' | '3.1';
  /** The path prefix of the first server (e.g. `/v1`), or empty. */
  readonly basePath: string;
  readonly operations: readonly OperationSpec[];
  readonly securitySchemes: ReadonlyMap<string, SecurityScheme>;
  /** The document itself, for schema compilation and generation by pointer. */
  readonly document: unknown;
}
