import { answerPlan, type AnswerPlan } from '../answers/plan.js';
import { callbacksOf, type CallbackSpec } from '../openapi/callbacks.js';
import { resolveBinding, type ResolvedBinding } from '../dispatch/resolve-binding.js';
import { forcedAnswer, type Force, type ForcedAnswer } from '../mock/forced-answer.js';
import { mockAnswer } from '../mock/mock-answer.js';
import { unsatisfiableSchemas } from '../mock/unsatisfiable.js';
import { Router } from '../routing/router.js';
import { RequestValidator, type ValidationOptions } from '../validation/request-validator.js';
import { ResponseCheck } from '../validation/response-check.js';
import { compilerFor } from '../schemas/document-schemas.js';
import { documentSettings, layered, type FaultSettings } from '../faults/settings.js';
import { directionalView, type Direction } from '../openapi/directional.js';
import { valueAt } from '../openapi/json-pointer.js';
import type { SchemaCompiler } from '../validation/schema-compiler.js';
import { errorBody } from '../vocabulary/errors.js';
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
  /** What it answers in, worked out once: the answer step reads this, not the document. */
  readonly answers: AnswerPlan;
  /** Deprecation, Sunset and Link headers, from the document. */
  readonly lifecycleHeaders: Readonly<Record<string, string>>;
  /** The answer generated from the document, for operations with no state behind them (made on first use). */
  readonly generatedAnswer: () => SandboxResponse;
  /** The answer a request forces (`Prefer: code=404`, `example=…`), from the document, or why it cannot be given. */
  readonly forcedAnswer: (force: Force, accept: string | undefined) => ForcedAnswer;
  /** The latency and faults the document sets for it (`x-understudy-latency`, `x-understudy-faults`, over the root's). */
  readonly faults: FaultSettings | undefined;
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
  /** The number as every answer names it (`X-Sandbox-Generation`), made once. */
  readonly label: string;
  readonly model: ApiModel;
  /** The path prefix the API is served under (`/v1`). */
  readonly basePath: string;
  readonly router: Router<PreparedOperation>;
  /** Every operation, prepared, in document order. */
  readonly operations: readonly PreparedOperation[];
  /** The document's schemas, compiled on first use of each, as requests and as answers see them. */
  readonly schemas: GenerationSchemas;
  /** What the start warns about: operations no request can reach, operations that declare no success. */
  readonly warnings: readonly string[];
  /** Each operation's OpenAPI `callbacks`, by the operation's pointer (OperationSpec.pointer); empty for most documents. */
  readonly callbacks: ReadonlyMap<string, readonly CallbackSpec[]>;
}

/** The schema compilers of one generation: one per direction (openapi/directional.ts), made on first use. */
export interface GenerationSchemas {
  readonly compiler: (direction: Direction) => SchemaCompiler;
}

export interface GenerationOptions {
  /** Overrides the document's base path. */
  readonly basePath: string | null;
  readonly seed: number;
  /** The "now" generated dates are relative to. */
  readonly referenceDate: Date;
  readonly validation: ValidationOptions;
  /** Serve a document's example even when it breaks its schema (for negative tests). */
  readonly serveInvalidExamples: boolean;
}

/** Progress while a generation is built: `done` of `total` operations prepared. */
export interface CompileProgress {
  readonly phase: 'compiling';
  readonly done: number;
  readonly total: number;
  /** Whether request validators are compiled now or on each operation's first request. */
  readonly lazy: boolean;
}

/**
 * Above this many operations, an operation's request validator is compiled on its first request
 * rather than at start. Compiling is most of what start-up costs on a large document (Ajv turns
 * every schema into code: about 0.8 s of GitHub's 1,000 operations) and most operations of a large
 * API are never called in a session. Below it, every schema is compiled at start, so a schema Ajv
 * cannot compile stops the start naming the operation and the schema. Above it, references that
 * resolve nowhere are still caught at start (openapi/check-refs.ts); any other schema fault is
 * reported, naming the operation and the schema, on the operation's first request (a 500 in the
 * log), never by the other operations.
 */
export const EAGER_OPERATIONS = 300;

/** How often (in operations) building reports progress. */
const PROGRESS_EVERY = 100;

/** Builds a generation; an operation that cannot be prepared stops it with a message naming the operation. */
export function buildGeneration(
  model: ApiModel,
  number: number,
  options: GenerationOptions,
  onProgress?: (event: CompileProgress) => void,
): Generation {
  const basePath = options.basePath ?? model.basePath;
  const total = model.operations.length;
  const lazy = total > EAGER_OPERATIONS;
  // Requests are validated, and answers checked, against the document as each direction sees it (a
  // required readOnly `id` is not required of a client: openapi/directional.ts); a document with no
  // such property is its own view, so one compiler serves validation, answer generation and dispatch.
  // Registering an 11 MB document with Ajv costs a walk of all of it: a lazy generation pays it on
  // its first request instead.
  const compilers = new Map<Direction, SchemaCompiler>();
  const compilerOf = (direction: Direction): SchemaCompiler => {
    let compiler = compilers.get(direction);
    if (!compiler) compilers.set(direction, (compiler = compilerFor(directionalView(model.document, direction))));
    return compiler;
  };
  const rootFaults = documentFaults(model.document, 'the document root');
  const prepared = model.operations.map((op, i) => {
    if (i % PROGRESS_EVERY === 0) onProgress?.({ phase: 'compiling', done: i, total, lazy });
    try {
      const faults = layered(documentFaults(operationNode(model, op), `${op.method} ${op.pathTemplate}`), rootFaults);
      return prepareOperation(model, op, compilerOf, basePath, options, lazy, faults);
    } catch (error) {
      throw new Error(`operation ${op.id} (${op.method} ${op.pathTemplate}): ${(error as Error).message}`, { cause: error });
    }
  });
  onProgress?.({ phase: 'compiling', done: total, total, lazy });
  const router = new Router(prepared, basePath, (p) => p.operation.parameters);
  const callbacks = callbacksOf(model.document, model.locate);
  return Object.freeze({
    number,
    label: String(number),
    model,
    basePath,
    router,
    operations: prepared,
    schemas: Object.freeze({ compiler: compilerOf }),
    warnings: [
      ...unreachableWarnings(model, router),
      ...noSuccessWarnings(model, prepared),
      ...(lazy ? [] : emptySchemaWarnings(model)),
      ...callbacks.warnings,
    ],
    callbacks: callbacks.byOperation,
  });
}

/** What a node of the document sets for latency and faults; a malformed value stops the start, naming it. */
function documentFaults(node: unknown, where: string): FaultSettings | undefined {
  const read = documentSettings(node, where);
  if (!read.ok) throw new Error(read.error);
  return read.value;
}

const operationNode = (model: ApiModel, op: OperationSpec): unknown => valueAt(model.document, op.pointer);

/**
 * An operation whose method and path shape an earlier one already has (`/a/{x}` and `/a/{y}`, or two
 * `#` keys naming no header) cannot be reached: the start says so, naming both.
 */
function unreachableWarnings(model: ApiModel, router: Router<PreparedOperation>): string[] {
  const named = (op: OperationSpec): string => `${op.method} ${op.pathTemplate} (${op.id})`;
  return router.unreachable.map(({ operation: { operation: op }, by }) => {
    const pointer = model.locate(op.pointer);
    return `${pointer}: ${named(op)} cannot be reached: ${named(by.operation)} has the same method and path shape and comes first`;
  });
}

/**
 * A schema an answer is generated from that no value satisfies: every answer in it would break the
 * document. Looked for on documents compiled at start only (a walk of every answer schema costs
 * about 0.6 s on GitHub's 1,000 operations, which a lazy start does not pay).
 */
const emptySchemaWarnings = (model: ApiModel): string[] =>
  unsatisfiableSchemas(model.document).map(({ pointer, reason }) => `${model.locate(pointer)}: admits no value (${reason})`);

/** An operation that declares only errors answers a valid request with one: the start says so, naming it. */
function noSuccessWarnings(model: ApiModel, prepared: readonly PreparedOperation[]): string[] {
  return prepared.flatMap(({ operation: op, answers }) => {
    if (answers.noSuccess === undefined) return [];
    const pointer = model.locate(`${op.pointer}/responses`);
    return [`${pointer}: ${answers.noSuccess.reason}`];
  });
}

function prepareOperation(
  model: ApiModel,
  op: OperationSpec,
  compilerOf: (direction: Direction) => SchemaCompiler,
  basePath: string,
  options: GenerationOptions,
  lazy: boolean,
  faults: FaultSettings | undefined,
): PreparedOperation {
  let generated: SandboxResponse | undefined;
  let validator: RequestValidator | undefined;
  let check: ResponseCheck | undefined;
  const validatorOf = (): RequestValidator => {
    if (validator) return validator;
    const compiler = compilerOf('request');
    try {
      compileRequestSchemas(op, compiler, model.locate);
    } catch (error) {
      // Lazily, this runs on a request: the message must still say whose schema failed.
      if (lazy) throw new Error(`operation ${op.id} (${op.method} ${op.pathTemplate}): ${(error as Error).message}`, { cause: error });
      throw error;
    }
    return (validator = new RequestValidator(op, compiler, model.document, options.validation));
  };
  if (!lazy) validatorOf();
  const answers = answerPlan(op, { document: model.document, compiler: () => compilerOf('response') });
  const noSuccess = answers.noSuccess;
  return Object.freeze({
    operation: op,
    method: op.method,
    pathTemplate: op.pathTemplate,
    get validator() {
      return validatorOf();
    },
    binding: resolveBinding(model, op),
    // Compiles each response schema on the first answer it checks.
    get check() {
      return (check ??= new ResponseCheck(op, compilerOf('response')));
    },
    answers,
    lifecycleHeaders: lifecycleHeaders(model, op, basePath),
    faults,
    forcedAnswer: (force: Force, accept: string | undefined) =>
      forcedAnswer(model.document, op, force, {
        seed: options.seed,
        referenceDate: options.referenceDate,
        accept,
        serveInvalidExamples: options.serveInvalidExamples,
      }),
    // An operation that declares only errors answers with the first, saying why; the answer step puts
    // that in the error's declared shape (or, with no content declared, in X-Sandbox-Error).
    generatedAnswer: () =>
      (generated ??=
        noSuccess === undefined
          ? mockAnswer(model.document, op, options.seed, options.referenceDate, { serveInvalidExamples: options.serveInvalidExamples })
          : {
              status: noSuccess.status,
              headers: {},
              body: { ...errorBody('no_success_declared', noSuccess.reason), status: noSuccess.status },
            }),
  });
}

/**
 * Compiles the schemas of an operation's request one by one, so a schema Ajv refuses is named by
 * its pointer in the user's file (`schema #/components/schemas/Pet: ...`; `#/definitions/Pet` for a
 * Swagger 2.0 document). The compiler keeps them, so the request validator built next finds them compiled.
 */
function compileRequestSchemas(op: OperationSpec, compiler: SchemaCompiler, locate: ApiModel['locate']): void {
  const pointers = [...op.parameters.map((p) => p.schemaPointer), ...(op.requestBody?.content.map((m) => m.schemaPointer) ?? [])];
  for (const pointer of pointers) {
    if (pointer === undefined) continue;
    try {
      compiler.compile(pointer);
    } catch (error) {
      throw new Error(`schema ${locate(pointer)}: ${(error as Error).message}`, { cause: error });
    }
  }
}
