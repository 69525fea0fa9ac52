import type { PreparedOperation } from '../generation/generation.js';
import { inDocumentShape } from '../mock/error-shape.js';
import { encodeAnswer, notAcceptable } from '../validation/answer-media.js';
import { parseQuery } from '../validation/parse-query.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { answerHeaders } from './answer-headers.js';
import { corsHeaders, isPreflight, preflightHeaders } from './cors.js';
import { checkedAnswer } from './response-check-step.js';
import type { Caller, Surface } from './surface.js';

export interface PipelineResult {
  /** The answer, with every header it is sent with. */
  readonly response: SandboxResponse;
  readonly operation: OperationSpec | undefined;
  readonly caller: Caller | undefined;
}

/** Longest request target (path and query) served; longer ones get 414 (RFC 9112 §3 suggests ≥ 8000). */
export const MAX_TARGET_LENGTH = 8192;

const fail = (error: ErrorBody, headers: Record<string, string> = {}): SandboxResponse => ({ status: error.status, headers, body: error });
const NO_QUERY: ReadonlyMap<string, readonly string[]> = new Map();

/**
 * One request to a surface, start to finish. Each step either continues or settles the answer:
 *
 *   route ─ authenticate ─ rate limit ─┬─ 429 ──────────────────────────────────────────────┐
 *                                      ├─ 400/415/501 (HTTP itself), 414, 404/405 (no route), │
 *                                      │  401 (bad credentials), 400 (query encoding)         │
 *                                      ├─ 410 (past the sunset) ─ 413 (body) ─ 400/415 ──────┤
 *                                      └─ respond (store, document or handler) ──────────────┴─ headers ─ check
 *
 * Rate limiting comes before the route and key failures are answered, so every request that
 * reaches the API uses quota, including wrong ones: probing for routes or keys is throttled too.
 */
export async function runPipeline(surface: Surface, req: SandboxRequest): Promise<PipelineResult> {
  // The generation is read once: a document swapped in meanwhile serves the next request.
  const generation = surface.generation();
  const cors = corsHeaders(surface.cors, req);
  if (isPreflight(req)) {
    const headers = preflightHeaders(surface.cors, req, generation.router.methodsAt(req.path));
    const response = { status: 204, headers: answerHeaders({ own: headers, requestId: req.id, hasBody: false }) };
    return { response, operation: undefined, caller: undefined };
  }

  // 1. Route.
  const route = generation.router.match(req.method, req.path, req.headers, req.query);
  const prepared: PreparedOperation | undefined = route.kind === 'found' ? route.operation : undefined;
  const operation = prepared?.operation;
  const query = parseQuery(req.query);
  const queryValues = query.ok ? query.values : NO_QUERY;

  // 2. Authenticate.
  const { caller, rejection } = surface.identify(generation, operation, { headers: req.headers, query: queryValues }, req.clientAddress);

  // 3. Rate limit.
  const counted = surface.limit?.(caller);
  const verdict = counted instanceof Promise ? await counted : counted;
  const settle = (given: SandboxResponse): PipelineResult => {
    // Errors in the shape the document declares for them, where it declares one.
    const answered = prepared ? inDocumentShape(generation.model.document, prepared.operation, given) : given;
    // The body in the media type chosen for it among those the document declares (XML built, text
    // and bytes as they are; JSON is written by the edge).
    const { response, contentType } = prepared
      ? encodeAnswer(generation.model.document, prepared.operation, answered, req.headers.accept)
      : { response: answered, contentType: undefined };
    const headers = answerHeaders({
      cors,
      limit: verdict?.headers,
      lifecycle: prepared?.lifecycleHeaders,
      own: response.headers,
      requestId: req.id,
      hasBody: response.body !== undefined,
      contentType,
    });
    const answer = { ...response, headers };
    // The last step: the whole answer, headers included, checked against the document.
    const checked = surface.checkResponses && prepared ? checkedAnswer(prepared, answer) : answer;
    if (checked === answer) return { response: answer, operation, caller };
    return {
      response: { ...checked, headers: answerHeaders({ own: checked.headers, requestId: req.id, hasBody: true }) },
      operation,
      caller,
    };
  };
  if (verdict && !verdict.admitted) return settle(fail(errorBody(verdict.code, verdict.message)));
  const refused = rejection ? fail(rejection.error, rejection.challenge ? { 'www-authenticate': rejection.challenge } : {}) : undefined;

  // 4. Failures found before the limiter, answered now that the request is counted.
  if (req.malformed) return settle(fail(errorBody(req.malformed.code, req.malformed.message)));
  if (req.path.length + req.query.length > MAX_TARGET_LENGTH) {
    return settle(fail(errorBody('uri_too_long', `The request target exceeds ${MAX_TARGET_LENGTH} characters`)));
  }
  if (refused && surface.credentialsFirst) return settle(refused);
  if (route.kind === 'not-found') return settle(fail(errorBody('route_not_found', `No operation at ${req.method} ${truncate(req.path)}`)));
  if (route.kind === 'bad-encoding') return settle(fail(errorBody('invalid_path_encoding', 'The path has broken percent-encoding')));
  if (route.kind === 'method-not-allowed') {
    const message = `${req.method} is not allowed here; allowed: ${route.allow.join(', ')}`;
    return settle(fail(errorBody('method_not_allowed', message), { allow: route.allow.join(', ') }));
  }
  if (refused) return settle(refused);
  if (!query.ok) return settle(fail(errorBody('malformed_request', 'The query string has broken percent-encoding')));
  const { operation: op, validator } = route.operation;
  const sunset = op.lifecycle.sunset;
  if (sunset && surface.now(caller) >= sunset.getTime()) {
    return settle(fail(errorBody('operation_removed', `${op.id} was removed on ${sunset.toUTCString()}`)));
  }

  // 5. Body, read only now and only for operations that take one.
  const body = validator.takesBody ? await req.readBody(surface.bodyLimit) : undefined;
  if (body?.kind === 'too-large')
    return settle(fail(errorBody('payload_too_large', `The request body exceeds ${body.limit} bytes`), { connection: 'close' }));

  // 6. Validate.
  const raw = { pathParams: route.pathParams, query: query.values, queryPlusKept: query.plusKept, headers: req.headers };
  const validated = validator.validate(raw, body);
  if (!validated.ok) return settle(fail(validated.error));

  // 7. Negotiate: a valid request whose answer the client would not take is refused before anything
  // is done (406, RFC 9110 §15.5.7); a broken one learns what is wrong with it first.
  const unacceptable = notAcceptable(op, req.headers.accept);
  if (unacceptable) return settle(fail(unacceptable));

  // 8. Respond (the answer is checked against the document after its headers are assembled).
  return settle(await surface.respond(route.operation, validated.input, { caller, generation, rawQuery: queryValues }));
}

const truncate = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
