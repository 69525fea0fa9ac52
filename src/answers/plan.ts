import { answerResponse, answerStatus, declaredResponse } from '../openapi/bindings.js';
import type { SchemaCompiler } from '../validation/schema-compiler.js';
import type { OperationSpec, ResponseSpec } from '../vocabulary/operation.js';

/** The compiled schemas an operation's answers are checked against: the generation's, for the answer's direction. */
export interface AnswerSchemas {
  /** The document as it is served (examples, schemas to generate from). */
  readonly document: unknown;
  /** The answer-direction compiler, made on first use (a lazy generation pays for it on its first answer). */
  readonly compiler: () => SchemaCompiler;
}

/**
 * What an operation answers in, worked out once when the operation is prepared: the answer step
 * reads this, never the raw document's response list on each request.
 */
export interface AnswerPlan {
  readonly operation: OperationSpec;
  readonly schemas: AnswerSchemas;
  /** The success response's declared media types: what `Accept` is negotiated against. */
  readonly success: readonly string[];
  /** The response the document declares for a status: exactly, its `4XX` range, else `default`. */
  readonly responseFor: (status: number) => ResponseSpec | undefined;
  /**
   * When the operation declares no success at all (only errors, as Petstore v3's `POST /pet` declares
   * only `405`): the error a valid request gets, and why.
   */
  readonly noSuccess: { readonly status: number; readonly reason: string } | undefined;
  /** Whether `value` satisfies the schema at `pointer`, as answers are checked (no schema: anything does). */
  readonly satisfies: (pointer: string | undefined, value: unknown) => boolean;
  /** What the answer step works out once per operation and key (an error schema's fields), kept with the plan. */
  readonly memo: <T>(key: string, make: () => T) => T;
}

export function answerPlan(operation: OperationSpec, schemas: AnswerSchemas): AnswerPlan {
  const responses = operation.responses;
  // The lowest declared 2xx (as the answer is chosen: OpenAPI 3.1 §4.8.16), else `default`.
  const successes = responses.filter((r) => r.status.startsWith('2')).sort((a, b) => a.status.localeCompare(b.status));
  const success = successes[0] ?? responses.find((r) => r.status === 'DEFAULT');
  const byStatus = new Map<number, ResponseSpec | undefined>();
  const responseFor = (status: number): ResponseSpec | undefined => {
    if (byStatus.has(status)) return byStatus.get(status);
    const found = declaredResponse(responses, status);
    if (byStatus.size < 64) byStatus.set(status, found);
    return found;
  };
  const memos = new Map<string, unknown>();
  const memo = <T>(key: string, make: () => T): T => {
    if (memos.has(key)) return memos.get(key) as T;
    const made = make();
    memos.set(key, made);
    return made;
  };
  return Object.freeze({
    operation,
    memo,
    schemas,
    success: success?.content.map((m) => m.mediaType) ?? [],
    responseFor,
    noSuccess: noSuccessOf(operation),
    satisfies: (pointer: string | undefined, value: unknown) => pointer === undefined || schemas.compiler().compile(pointer)(value),
  });
}

/**
 * An operation whose every declared response is an error (`4xx`, `5xx`): its answer to a valid
 * request is the first of them, and the message says so.
 */
function noSuccessOf(op: OperationSpec): AnswerPlan['noSuccess'] {
  if (op.responses.length === 0) return undefined;
  const chosen = answerResponse(op.responses);
  const status = answerStatus(chosen);
  if (status < 400) return undefined;
  const declared = op.responses.map((r) => r.status.toLowerCase()).join(', ');
  return {
    status,
    reason: `${op.method} ${op.pathTemplate} declares no success response (only ${declared}), so a valid request is answered ${status}`,
  };
}
