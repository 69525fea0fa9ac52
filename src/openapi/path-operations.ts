import { METHODS } from 'node:http';
import { HTTP_METHODS } from '../vocabulary/operation.js';
import { escapePointerToken, isObject, type JsonObject } from './json-pointer.js';

/** One operation of a path item: its method as sent (upper case for the fixed fields) and where it is. */
export interface PathOperation {
  readonly method: string;
  readonly op: JsonObject;
  readonly pointer: string;
}

/** Methods Node's HTTP parser accepts: a request with any other is refused (400) before the sandbox sees it. */
const PARSED = new Set(METHODS);

/** RFC 9110 §9.1: a method is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The operations of a path item: its fixed fields (`get` … `trace`, and `query`, OpenAPI 3.2
 * §4.10.1), then `additionalOperations` (3.2), whose keys are methods as the client sends them
 * (`COPY`, `PURGE`). An additional entry is skipped, with a warning, when it repeats a fixed field
 * (3.2 forbids `POST` there) or is no method at all; one Node's parser refuses (anything outside
 * `http.METHODS`, lower case included) is served but cannot be reached, and the warning says so.
 */
export function pathOperations(
  pathItem: JsonObject,
  itemPointer: string,
  where: string,
  /** Whether the document is OpenAPI 3.2 or later: earlier versions have neither field, and keep ignoring them. */
  since32: boolean,
): {
  readonly operations: readonly PathOperation[];
  readonly warnings: readonly string[];
} {
  const operations: PathOperation[] = [];
  const warnings: string[] = [];
  for (const method of HTTP_METHODS) {
    if (method === 'query' && !since32) continue;
    const op = pathItem[method];
    if (isObject(op)) operations.push({ method: method.toUpperCase(), op, pointer: `${itemPointer}/${method}` });
  }
  const additional = pathItem.additionalOperations;
  if (!since32 || !isObject(additional)) return { operations, warnings };
  for (const [method, op] of Object.entries(additional)) {
    const pointer = `${itemPointer}/additionalOperations/${escapePointerToken(method)}`;
    if (!isObject(op)) continue;
    if (!TOKEN.test(method) || (HTTP_METHODS as readonly string[]).includes(method.toLowerCase())) {
      warnings.push(`${where}: additionalOperations.${method} is ignored: it is not a method, or one the path item's own fields name`);
      continue;
    }
    if (!PARSED.has(method)) {
      warnings.push(`${where}: ${method} cannot be reached: Node's HTTP parser refuses the method before the sandbox sees the request`);
    }
    operations.push({ method, op, pointer });
  }
  return { operations, warnings };
}
