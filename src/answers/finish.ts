import type { ResponseCheck } from '../validation/response-check.js';
import { errorBody, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { answerHeaders } from './answer-headers.js';
import { encodeAnswer } from './encode.js';
import { shapeError } from './error-body.js';
import type { AnswerPlan } from './plan.js';

/** What the steps before decided about an answer's headers, and the request it answers. */
export interface Finishing {
  readonly cors?: Readonly<Record<string, string>> | undefined;
  readonly limit?: Readonly<Record<string, string>> | undefined;
  readonly lifecycle?: Readonly<Record<string, string>> | undefined;
  readonly requestId: string;
  readonly generation: string;
  readonly accept: string | undefined;
  /** The request's path: an error's occurrence (RFC 9457 `instance`). */
  readonly path: string;
  /** Set to check the finished answer against the document (`validation.checkResponses`). */
  readonly check?: ResponseCheck | undefined;
}

/** A finished answer, and what it breaks in the document when it was checked (empty: nothing; undefined: not checked). */
export interface Finished {
  readonly response: SandboxResponse;
  readonly violations: readonly Violation[] | undefined;
}

/**
 * The one step that finishes every answer of the API, success or error, in this order: an error
 * in the document's shape (error-body.ts), the body in the media type chosen among those the
 * document declares (encode.ts; JSON is written by the edge), every header assembled
 * (answer-headers.ts), and the whole answer checked against the document when asked. Nothing
 * here reads the raw document's response list: the operation's answer plan has it.
 */
export function finishAnswer(plan: AnswerPlan | undefined, given: SandboxResponse, parts: Finishing): Finished {
  const shaped = plan ? shapeError(plan, given, parts.path) : given;
  const { response, contentType } = plan
    ? encodeAnswer(plan, shaped, parts.accept)
    : { response: shaped, contentType: undefined as string | undefined };
  const headers = answerHeaders({
    cors: parts.cors,
    limit: parts.limit,
    lifecycle: parts.lifecycle,
    own: response.headers,
    requestId: parts.requestId,
    generation: parts.generation,
    hasBody: response.body !== undefined,
    contentType,
  });
  const answer = { ...response, headers };
  return { response: answer, violations: parts.check?.check(answer) };
}

/**
 * The answer sent in place of one that breaks the document (`validation.checkResponses`): a 500
 * naming why, so the sandbox never contradicts its contract unnoticed.
 */
export function contractViolation(
  broken: SandboxResponse,
  violations: readonly Violation[],
  parts: Pick<Finishing, 'requestId' | 'generation'>,
): SandboxResponse {
  const summary = violations.map((v) => `${v.location} ${v.message}`).join('; ');
  const message = `The sandbox's answer (${broken.status}) breaks the document: ${summary}`;
  const body = errorBody('response_contract_violation', message, violations);
  return {
    status: 500,
    headers: answerHeaders({ own: {}, requestId: parts.requestId, generation: parts.generation, hasBody: true }),
    body,
  };
}
