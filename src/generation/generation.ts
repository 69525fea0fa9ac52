import { resolveBinding, type ResolvedBinding } from '../dispatch/resolve-binding.js';
import { mockAnswer } from '../mock/mock-answer.js';
import { Router } from '../routing/router.js';
import { RequestValidator, type ValidationOptions } from '../validation/request-validator.js';
import { ResponseCheck } from '../validation/response-check.js';
import { SchemaCompiler } from '../validation/schema-compiler.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';
import { lifecycleHeaders } from './lifecycle-headers.js';

/** One operation, with everything the pipeline needs to answer it, built once. */
export interface PreparedOperation {
  readonly operation: OperationSpec;
  readonly method: string;
  readonly pathTemplate: string;
  readonly validator: RequestValidator;
  /** How dispatch serves it: the store action, parameter names, writable fields. */
  readonly binding: ResolvedBinding;
  readonly check: ResponseCheck;
  /** Deprecation, Sunset and Link headers, from the document. */
  readonly lifecycleHeaders: Readonly<Record<string, string>>;
  /** The answer generated from the document, for operations with no state behind them (made on first use). */
  readonly generatedAnswer: () => SandboxResponse;
}

/**
 * Everything built from one version of a document: the operation model, the routes, the
 * validators, the dispatch decisions and the generated answers. Immutable, and handed to the
 * pipeline by one reference, so a new document can be built aside and swapped in at once while a
 * request in flight finishes on the generation it started on.
 */
export interface Generation {
  /** Counts from 1; a reload makes the next. */
  readonly number: number;
  readonly model: ApiModel;
  /** The path prefix the API is served under (`/v1`). */
  readonly basePath: string;
  readonly router: Router<PreparedOperation>;
}

export interface GenerationOptions {
  /** Overrides the document's base path. */
  readonly basePath: string | null;
  readonly seed: number;
  /** The "now" generated dates are relative to. */
  readonly referenceDate: Date;
  readonly validation: ValidationOptions;
}

/** Builds a generation; an operation that cannot be prepared stops it with a message naming the operation. */
export function buildGeneration(model: ApiModel, number: number, options: GenerationOptions): Generation {
  const basePath = options.basePath ?? model.basePath;
  const compiler = new SchemaCompiler(model.document, model.dialect);
  const prepared = model.operations.map((op) => {
    try {
      return prepareOperation(model, op, compiler, basePath, options);
    } catch (error) {
      throw new Error(`operation ${op.id} (${op.method} ${op.pathTemplate}): ${(error as Error).message}`, { cause: error });
    }
  });
  return Object.freeze({ number, model, basePath, router: new Router(prepared, basePath) });
}

function prepareOperation(
  model: ApiModel,
  op: OperationSpec,
  compiler: SchemaCompiler,
  basePath: string,
  options: GenerationOptions,
): PreparedOperation {
  let generated: SandboxResponse | undefined;
  return Object.freeze({
    operation: op,
    method: op.method,
    pathTemplate: op.pathTemplate,
    validator: new RequestValidator(op, compiler, model.document, options.validation),
    binding: resolveBinding(model, op),
    check: new ResponseCheck(op, compiler),
    lifecycleHeaders: lifecycleHeaders(model, op, basePath),
    generatedAnswer: () => (generated ??= mockAnswer(model.document, op, options.seed, options.referenceDate)),
  });
}
