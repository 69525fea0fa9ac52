import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';

/**
 * Deprecation (RFC 9745, a structured-field date: `x-deprecated-since`, else `@0` for "already"),
 * Sunset (RFC 8594, from `x-sunset`) and a `successor-version` link to `x-replaced-by`.
 */
export function lifecycleHeaders(model: ApiModel, op: OperationSpec, basePath: string): Record<string, string> {
  const { deprecated, deprecatedSince, sunset, replacedBy } = op.lifecycle;
  const headers: Record<string, string> = {};
  if (deprecated) headers.deprecation = `@${deprecatedSince ? Math.floor(deprecatedSince.getTime() / 1000) : 0}`;
  if (sunset) headers.sunset = sunset.toUTCString();
  const successor = replacedBy ? model.operations.find((o) => o.id === replacedBy) : undefined;
  if (replacedBy && !successor) throw new Error(`x-replaced-by names ${replacedBy}, which is not an operation`);
  if (successor) headers.link = `<${basePath}${successor.pathTemplate}>; rel="successor-version"`;
  return headers;
}
