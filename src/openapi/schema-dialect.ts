import { isObject } from './json-pointer.js';

/**
 * The JSON Schema dialect a document's Schema Objects are written in, decided here and only here:
 * - `3.0`: OpenAPI 3.0's extended subset of JSON Schema draft-04/05 (`nullable`, boolean
 *   `exclusiveMinimum`), which normalize-30.ts rewrites into draft-07 once at load. Swagger 2.0
 *   documents arrive converted to 3.0 and are read the same way.
 * - `2020-12`: OpenAPI 3.1 and 3.2, whose Schema Object is JSON Schema draft 2020-12 (OpenAPI 3.1
 *   §4.8.24, 3.2 §4.24).
 */
export type SchemaDialect = '3.0' | '2020-12';

/**
 * `jsonSchemaDialect` values (OpenAPI 3.1 §4.8.1, 3.2 §4.1) that name an older draft: their schemas
 * use draft-04 keywords (boolean `exclusiveMinimum`), which the 3.0 reading understands. Any other
 * value (the OpenAPI base dialect, 2020-12 itself, a custom meta-schema) is read as 2020-12, the
 * dialect every custom one builds on.
 */
const OLDER_DRAFT = /^https?:\/\/json-schema\.org\/(?:draft-0[4-7])\/schema#?$/;

/** The dialect of a (loaded, possibly converted) document: by its `openapi` version and its `jsonSchemaDialect`. */
export function schemaDialect(document: unknown): SchemaDialect {
  if (!isObject(document)) return '3.0';
  const version = String(document.openapi);
  if (!/^3\.[1-9]/.test(version)) return '3.0';
  const declared = document.jsonSchemaDialect;
  return typeof declared === 'string' && OLDER_DRAFT.test(declared) ? '3.0' : '2020-12';
}
