import { performance } from 'node:perf_hooks';
import { answerHeaders } from '../answers/answer-headers.js';
import type { PipelineResult } from '../pipeline/pipeline.js';
import type { Replication } from '../replicas/replication.js';
import { errorBody, Unavailable, type ErrorBody } from '../vocabulary/errors.js';
import type { Exchange, SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { Events } from './events.js';

/** A door's answer: a plain one (a probe, a page: never journaled), or an exchange the listeners hear. */
export type DoorAnswer = { readonly plain: SandboxResponse } | { readonly result: PipelineResult };

/**
 * One way into the sandbox: the health probes, the pages, the token endpoint, the admin API, the
 * API. The front door asks each in turn; the first whose `answer` is not undefined answers.
 */
export interface Door {
  readonly name: string;
  /** Whether what it answers is an exchange (journaled, counted): a failure of its own is one too. */
  readonly exchanges: boolean;
  /** Its answer, or undefined when the request is not for this door. Decided synchronously. */
  answer(req: SandboxRequest): Promise<DoorAnswer> | undefined;
}

export interface FrontDoorParts {
  readonly doors: readonly Door[];
  readonly events: Events;
  /** The current generation's label, for the headers of an answer made outside any door. */
  readonly generation: () => string;
  /** The query parameters that carry credentials, redacted from an exchange's request. */
  readonly redactQuery: (req: SandboxRequest) => SandboxRequest;
  /** With replicas: this replica among the others, and which requests change what they share. */
  readonly replication: () => Replication | undefined;
  readonly sharesChange: (req: SandboxRequest) => boolean;
}

/**
 * Answers every request through the first door that takes it. Each door is isolated: one that
 * throws gives a 500 in the Error shape, never an unanswered socket; the exchange's listeners hear
 * it after the answer is made and cannot change it (`Events`). With replicas, a change the others
 * must have (an admin change, a token minted) is shared before it is answered.
 */
export function frontDoor(parts: FrontDoorParts): (req: SandboxRequest) => Promise<SandboxResponse> {
  const { doors, events } = parts;
  const failed = (req: SandboxRequest): PipelineResult =>
    bare(req, errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`), parts.generation());

  const serve = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const started = performance.now();
    for (const door of doors) {
      let result: PipelineResult;
      let failure: { error: unknown } | undefined;
      try {
        const pending = door.answer(req);
        if (pending === undefined) continue;
        const answer = await pending;
        if ('plain' in answer) return answer.plain;
        result = answer.result;
      } catch (error) {
        if (!door.exchanges) return failed(req).response;
        result = failed(req);
        failure = { error };
      }
      const { response, operation, caller, requestBody, applied, change } = result;
      const exchange: Exchange = {
        request: parts.redactQuery(req),
        response,
        operationId: operation?.id,
        keyId: caller?.keyId,
        keyName: caller?.keyName,
        workspace: caller?.workspace ?? DEFAULT_WORKSPACE,
        durationMs: performance.now() - started,
        ...failure,
        requestBody,
        applied,
        change,
      };
      events.emit('exchange', exchange);
      return response;
    }
    // The API's door takes every request the others leave: this is a door list without one.
    return failed(req).response;
  };

  return (req) => {
    const replication = parts.replication();
    if (replication === undefined || !parts.sharesChange(req)) return serve(req);
    // Every replica has the change before it is answered.
    return replication
      .change(() => serve(req))
      .catch((error: unknown) => {
        if (error instanceof Unavailable) {
          events.notify({ level: 'error', message: `a change could not be shared with the other replicas: ${error.message}` });
          return unavailable(
            req,
            'Redis cannot be reached: the change was made on this replica only, and is undone when Redis is back',
            parts.generation(),
          );
        }
        events.notify({ level: 'error', message: `sharing a change failed: ${(error as Error).message}` });
        return failed(req).response;
      });
  };
}

/** 503 for a change the replicas cannot be told of. */
export function unavailable(req: SandboxRequest, problem: string, generation: string): SandboxResponse {
  const answer = bare(req, errorBody('service_unavailable', problem), generation).response;
  return { ...answer, headers: { ...answer.headers, 'retry-after': '1' } };
}

/** An answer the sandbox gives outside any surface: the Error shape, the standard headers. */
export function bare(req: SandboxRequest, body: ErrorBody, generation: string): PipelineResult {
  return {
    response: { status: body.status, headers: answerHeaders({ own: {}, requestId: req.id, generation, hasBody: true }), body },
    operation: undefined,
    caller: undefined,
  };
}
