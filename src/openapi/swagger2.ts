import { isArray, isObject, escapePointerToken, type JsonObject } from './json-pointer.js';
import { originalLocator, type Locate } from './original-location.js';

/** A Swagger 2.0 document converted to OpenAPI 3.0, with what the conversion could not carry over. */
export interface Converted {
  readonly document: unknown;
  /**
   * Notes located in the 2.0 original (`#/paths/~1items/get/parameters/2: collectionFormat:tsv is no
   * longer supported`).
   */
  readonly warnings: readonly string[];
  /** Where a pointer into `document` stands in the 2.0 original (src/openapi/original-location.ts). */
  readonly locate: Locate;
}

/**
 * Converts a Swagger 2.0 document into OpenAPI 3.0 once at load, so the rest of the sandbox knows
 * one model. The converter is `swagger2openapi` (tested by its authors on some 74,000 real 2.0
 * documents); it maps `in: body` and `formData` (`type: file` included) to request bodies,
 * `consumes`/`produces` to media types, `collectionFormat` to `style`/`explode`, `x-nullable` to
 * `nullable`, `securityDefinitions` to security schemes and `host`+`basePath`+`schemes` to a server.
 * It is imported here, on demand, so 3.x documents never pay for loading it.
 *
 * The input is not changed (the converter works on its own copy; checked in test/unit/swagger2.test.ts).
 */
export async function convertSwagger2(source: unknown): Promise<Converted> {
  const { convertObj } = (await import('swagger2openapi')).default;
  // patch: repair the small mistakes real 2.0 documents are full of; warnOnly: what cannot be
  // repaired becomes an `x-s2o-warning` to report, not a refusal to start.
  const result = await convertObj(source as never, { patch: true, warnOnly: true });
  const document = withoutInventedResponses(source, fixParameterNullable(result.openapi));
  const locate = originalLocator(document, source, isObject(result.refmap) ? result.refmap : {});
  return { document, warnings: conversionWarnings(document, locate), locate };
}

/**
 * 2.0 requires `responses`, but published documents leave it out; the converter then invents a bare
 * `default` response, which would be answered `200` with no body. An operation that declares no
 * response is answered `204` in every version (src/openapi/media.ts), so the invented one is
 * dropped. Returns a new value; the input is not changed.
 */
function withoutInventedResponses(source: unknown, document: unknown): unknown {
  const sourcePaths = isObject(source) && isObject(source.paths) ? source.paths : {};
  if (!isObject(document) || !isObject(document.paths)) return document;
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const sourceItem = sourcePaths[path];
    paths[path] = isObject(item) && isObject(sourceItem) ? withoutInvented(sourceItem, item) : item;
  }
  return { ...document, paths };
}

function withoutInvented(sourceItem: JsonObject, item: JsonObject): JsonObject {
  const out: Record<string, unknown> = { ...item };
  for (const [method, op] of Object.entries(item)) {
    const sourceOp = sourceItem[method];
    if (!isObject(op) || !isObject(sourceOp) || (sourceOp.responses !== undefined && sourceOp.responses !== null)) continue;
    const { responses: _invented, ...rest } = op;
    out[method] = rest;
  }
  return out;
}

/**
 * The converter leaves `x-nullable` on a non-body parameter where 2.0 put it (beside `type`), but
 * in 3.0 it belongs in the parameter's schema (`nullable`, OpenAPI 3.0.3 §4.7.24), where the
 * validator reads it. Returns a new value; the input is not changed.
 */
function fixParameterNullable(node: unknown): unknown {
  if (isArray(node)) return node.map(fixParameterNullable);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = fixParameterNullable(value);
  if (out['x-nullable'] === true && typeof out.in === 'string' && isObject(out.schema)) {
    out.schema = { ...out.schema, nullable: true };
    delete out['x-nullable'];
  }
  return out;
}

/** Every `x-s2o-warning` the converter left, with the pointer where it stands in the 2.0 original. */
function conversionWarnings(document: unknown, locate: Locate): string[] {
  const warnings: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (isArray(node)) node.forEach((item, i) => walk(item, `${pointer}/${i}`));
    else if (isObject(node)) {
      const warning = node['x-s2o-warning'];
      if (typeof warning === 'string') warnings.push(`${locate(pointer)}: ${warning}`);
      for (const [key, value] of Object.entries(node)) if (typeof value === 'object') walk(value, `${pointer}/${escapePointerToken(key)}`);
    }
  };
  walk(document, '#');
  return warnings;
}
