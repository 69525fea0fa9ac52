/**
 * How a `path` is read wherever requests are matched (admin rules' `match.path`, journal patterns'
 * `path`), so that the same text means the same requests in both: either the path exactly as sent
 * (`/v1/pets/1`), or a documented path template, with or without the base path (`/v1/pets/{petId}`,
 * `/pets/{id}`: requests that reached one of its operations, whatever the values of its parameters;
 * parameter names need not be the document's).
 */

import type { OperationSpec } from '../vocabulary/operation.js';

/** What a path is read against: the served operations and the path prefix they are served under (`/v1`). */
export interface PathModel {
  readonly operations: readonly OperationSpec[];
  readonly basePath: string;
}

export type PathMatch =
  | { readonly kind: 'exact'; readonly path: string }
  | {
      readonly kind: 'template';
      /** The documented templates it names (`/pets/{petId}`): a request routed to one of them matches. */
      readonly templates: readonly string[];
      /** Their operations: a journal entry matches when it reached one of them. */
      readonly operations: readonly OperationSpec[];
    };

export type ReadPath = { readonly ok: true; readonly match: PathMatch } | { readonly ok: false; readonly message: string };

/** Literal text and whole `{name}` parameters (OpenAPI 3.1 §4.8.8.2 path templating), nothing else in braces. */
const WELL_FORMED = /^(?:[^{}]|\{[^{}/]+\})*$/;

/**
 * Reads a path; a template that is malformed or names no documented path is refused, with why: a
 * pattern or rule with it could never match anything.
 */
export function readPath(path: string, model: PathModel): ReadPath {
  if (!path.startsWith('/')) return { ok: false, message: 'must start with /: a path as sent, or a documented path template' };
  if (!path.includes('{') && !path.includes('}')) return { ok: true, match: { kind: 'exact', path } };
  if (!WELL_FORMED.test(path)) {
    return { ok: false, message: 'is not a path template: each parameter is one {name}, with no braces or / inside' };
  }
  const shape = templateShape(path);
  const operations = model.operations.filter(
    (op) => templateShape(op.pathTemplate) === shape || templateShape(model.basePath + op.pathTemplate) === shape,
  );
  if (operations.length === 0) {
    return { ok: false, message: 'is a path template no documented operation has (with or without the base path), so nothing matches it' };
  }
  return { ok: true, match: { kind: 'template', templates: [...new Set(operations.map((op) => op.pathTemplate))], operations } };
}

/** A template with its parameter names left out: `/pets/{petId}` and `/pets/{id}` are the same path. */
const templateShape = (template: string): string => template.replace(/\{[^}]*\}/g, '{}');
