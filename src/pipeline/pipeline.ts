import type { PreparedOperation } from '../generation/generation.js';
import type { StoreChange } from '../vocabulary/record.js';
import type { LimitVerdict } from '../limits/limiter.js';
import type { Force } from '../mock/forced-answer.js';
import { NO_DECISION } from '../faults/decide.js';
import { nearestOperations } from '../routing/nearest.js';
import type { RuleRequest, RuleRespond } from '../rules/rule.js';
import { parseQuery } from '../validation/parse-query.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Applied, Delivery, Responded, SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { answerHeaders } from '../answers/answer-headers.js';
import { notAcceptable } from '../answers/encode.js';
import { contractViolation, finishAnswer } from '../answers/finish.js';
import { corsHeaders, isPreflight, preflightHeaders } from './cors.js';
import { appliedHeader, appliedRecord, shapeRequest, type RuleCandidates, type Shaping } from './shaping.js';
import type { Caller, Surface } from './surface.js';
import { callbacksDue, type CallbacksDue } from './callbacks-due.js';

export type { CallbacksDue } from './callbacks-due.js';

export interface PipelineResult {
  /** The answer, with every header it is sent with. */
  readonly response: SandboxResponse;
  readonly operation: OperationSpec | undefined;
  readonly caller: Caller | undefined;
  /** For the journal: the body read, the rate-limit decision, what shaped the answer, the store change. */
  readonly requestBody?: Buffer | undefined;
  readonly applied?: Applied | undefined;
  readonly change?: StoreChange | undefined;
  /** The operation's OpenAPI callbacks to send, when it declares some and succeeded (core sends them after the answer). */
  readonly callbacks?: CallbacksDue | undefined;
}

/** What the steps after validation add to an answer. */
interface Extras {
  readonly requestBody?: Buffer | undefined;
  readonly applied?: Applied | undefined;
  readonly change?: StoreChange | undefined;
  readonly delivery?: Delivery | undefined;
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
  const served = surface.servedGeneration?.() ?? generation.label;
  const cors = corsHeaders(surface.cors, req);
  if (isPreflight(req)) {
    const headers = preflightHeaders(surface.cors, req, generation.router.methodsAt(req.path));
    const response = { status: 204, headers: answerHeaders({ own: headers, requestId: req.id, generation: served, hasBody: false }) };
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
  const finishing = {
    cors,
    limit: verdict?.headers,
    lifecycle: prepared?.lifecycleHeaders,
    requestId: req.id,
    generation: served,
    accept: req.headers.accept,
    path: req.path,
  };
  const settle = (given: SandboxResponse, extras?: Extras): PipelineResult => {
    // The last step: one place finishes every answer, and says what it breaks when asked to check.
    const check = surface.checkResponses && prepared ? prepared.check : undefined;
    const finished = finishAnswer(prepared?.answers, given, check ? { ...finishing, check } : finishing);
    const violations = finished.violations ?? [];
    const sent = violations.length > 0 ? contractViolation(finished.response, violations, finishing) : finished.response;
    if (extras === undefined) return { response: sent, operation, caller };
    return {
      response: extras.delivery ? { ...sent, delivery: extras.delivery } : sent,
      operation,
      caller,
      requestBody: extras.requestBody,
      applied: extras.applied,
      change: extras.change,
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
  if (route.kind === 'not-found') {
    // The nearest documented operations, so a typo is found at once.
    const near = nearestOperations(generation.model.operations, generation.basePath, req.method, req.path, req.query);
    return settle(fail(errorBody('route_not_found', `No operation at ${req.method} ${truncate(req.path)}`, near)));
  }
  if (route.kind === 'bad-encoding') return settle(fail(errorBody('invalid_path_encoding', 'The path has broken percent-encoding')));
  if (route.kind === 'method-not-allowed') {
    const message = `${req.method} is not allowed here; allowed: ${route.allow.join(', ')}`;
    const near = nearestOperations(generation.model.operations, generation.basePath, req.method, req.path, req.query);
    return settle(fail(errorBody('method_not_allowed', message, near), { allow: route.allow.join(', ') }));
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

  const requestBody = body?.kind === 'ok' ? body.bytes : undefined;

  // 6. Validate.
  const raw = {
    pathParams: route.pathParams,
    query: query.values,
    queryPlusKept: query.plusKept,
    headers: req.headers,
    rawQuery: req.query,
  };
  const validated = validator.validate(raw, body);
  if (!validated.ok) return settle(fail(validated.error), { requestBody });

  // 7. Negotiate: a valid request whose answer the client would not take is refused before anything
  // is done (406, RFC 9110 §15.5.7); a broken one learns what is wrong with it first.
  const unacceptable = notAcceptable(route.operation.answers, req.headers.accept);
  if (unacceptable) return settle(fail(unacceptable), { requestBody });

  // 8. Shape: preferences (a forced status or example), the admin rule that applies, and latency and
  // faults, from the request, the rule, the document and the config. A malformed preference is a 400.
  // Admin rules are tried only when there are some: without any, this step costs one size check more.
  const rules = surface.rules;
  const candidates: RuleCandidates | undefined =
    rules !== undefined && rules.size > 0
      ? { store: rules, request: ruleRequest(req, op, caller, validated.input.body, surface.now(caller)) }
      : undefined;
  const shape = () => shapeRequest(req.headers, req.query, route.operation, surface.faults, caller.keyId ?? caller.client.id, candidates);
  let shaping = shape();
  // A rule's use is taken from the count replicas share; one they used up meanwhile is gone: shape again.
  while (candidates && 'faults' in shaping && shaping.rule && !(await candidates.store.claim(shaping.rule))) shaping = shape();
  if (!('faults' in shaping)) return settle(fail(shaping), { requestBody });
  const context = { caller, generation, rawQuery: queryValues };
  if (shaping.force === undefined && shaping.faults === NO_DECISION) {
    // 9. Respond (the answer is checked against the document after its headers are assembled).
    const responded = await surface.respond(route.operation, validated.input, context);
    const result = settle(responded, { requestBody, change: responded.change });
    const specs = generation.callbacks.size === 0 ? undefined : generation.callbacks.get(op.pointer);
    if (specs === undefined || result.response.status < 200 || result.response.status > 299) return result;
    return { ...result, callbacks: callbacksDue(specs, req, route.pathParams, queryValues, validated.input.body, result) };
  }
  const respond = (): Promise<Responded> => surface.respond(route.operation, validated.input, context);
  const forced = await forcedResponse(shaping, route.operation, req, { verdict, now: surface.now(caller) }, respond);
  if (forced.kind === 'refused') return settle(fail(forced.error), { requestBody });
  const preference = appliedHeader(shaping, forced.applied);
  const ruled = shaping.ruleAnswer ? withRuleAnswer(forced.response, shaping.ruleAnswer) : forced.response;
  // The answer depends on the request's preferences: caches must key on them (RFC 7240 §2).
  const response = preference === undefined ? ruled : withHeader(withHeader(ruled, 'preference-applied', preference), 'vary', 'Prefer');
  return settle(response, {
    requestBody,
    change: forced.response.change,
    applied: appliedRecord(preference, shaping),
    delivery: shaping.faults.delivery,
  });
}

const truncate = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

type Forced =
  | { readonly kind: 'answer'; readonly response: Responded; readonly applied: Force | undefined }
  | { readonly kind: 'refused'; readonly error: ErrorBody };

/**
 * The answer a shaped request gets. Nothing forced: the normal answer (a delay or a fault only
 * changes how it is delivered). `code=429`: the sandbox's own 429, with the key's real windows. A
 * forced non-2xx: the document's response for it, and nothing is done to the store. A forced 2xx
 * (or only an example, `dynamic` or `seed`) on a stateful operation: the normal stateful answer,
 * whose body the named example replaces when one is given; on an operation with no state, the
 * document's response. What the operation does not declare is a 422 listing what it does.
 */
async function forcedResponse(
  shaping: Shaping,
  prepared: PreparedOperation,
  req: SandboxRequest,
  limits: { readonly verdict: LimitVerdict | undefined; readonly now: number },
  respond: () => Promise<Responded>,
): Promise<Forced> {
  const { verdict, now } = limits;
  const force = shaping.force;
  if (force === undefined) return { kind: 'answer', response: await respond(), applied: undefined };
  // The sandbox's own 429, unless a rule gives the body or an example for it.
  const rule = shaping.ruleAnswer;
  const real429 =
    shaping.codeFrom === 'request' || (shaping.codeFrom === 'rule' && rule?.body === undefined && rule?.example === undefined);
  if (force.code === 429 && verdict?.admitted && real429) {
    const reset = Number(verdict.headers['x-ratelimit-reset']);
    const retry = Math.max(1, Math.ceil(reset - now / 1000));
    const by = shaping.codeFrom === 'rule' ? `rule ${shaping.rule?.id ?? ''}` : 'Prefer: code=429';
    const body = errorBody('rate_limited', `Forced by ${by}; the rate-limit headers describe the key’s real windows`);
    return { kind: 'answer', response: { status: 429, headers: { 'retry-after': String(retry) }, body }, applied: { code: 429 } };
  }
  const chosen = prepared.forcedAnswer(force, req.headers.accept);
  if (chosen.kind === 'unsatisfiable') {
    // A status drawn from a fault list that the operation does not declare is answered anyway, in the Error shape.
    if (shaping.codeFrom === 'fault' && force.code !== undefined && force.example === undefined) {
      const body = { ...errorBody('injected_fault', `A fault list drew ${force.code} for this request`), status: force.code };
      return { kind: 'answer', response: { status: force.code, headers: {}, body }, applied: undefined };
    }
    return { kind: 'refused', error: chosen.error };
  }
  const stateful = prepared.binding.operation.binding.action !== 'mock';
  const success = force.code === undefined || (force.code >= 200 && force.code < 300);
  if (!stateful || !success) return { kind: 'answer', response: chosen.response, applied: chosen.applied };
  const responded = await respond();
  // The stateful answer stands unless an example shapes the body or another 2xx was asked for.
  if (force.example === undefined && (force.code === undefined || force.code === responded.status)) {
    return { kind: 'answer', response: responded, applied: force.code === undefined ? {} : { code: force.code } };
  }
  // The document's body, on the stateful answer's headers (a create's Location) with the document's own over them.
  const headers = { ...responded.headers, ...chosen.response.headers };
  return { kind: 'answer', response: { ...chosen.response, headers, change: responded.change }, applied: chosen.applied };
}

/** What admin rules are matched against: the valid request, its operation, its key and its workspace's "now". */
const ruleRequest = (req: SandboxRequest, op: OperationSpec, caller: Caller, body: unknown, now: number): RuleRequest => ({
  operationId: op.id,
  pathTemplate: op.pathTemplate,
  method: req.method,
  path: req.path,
  query: req.query,
  headers: req.headers,
  keyId: caller.keyId,
  workspace: caller.workspace,
  body,
  now,
});

/** A rule's own body (in place of the document's, and of any encoding made of it) and headers on its answer. */
function withRuleAnswer(response: Responded, answer: RuleRespond): Responded {
  const { encoded: _encoded, ...rest } = response;
  const base = answer.body === undefined ? response : { ...rest, body: answer.body.value };
  return answer.headers === undefined ? base : { ...base, headers: { ...base.headers, ...answer.headers } };
}

const withHeader = (response: Responded, name: string, value: string): Responded => ({
  ...response,
  headers: { ...response.headers, [name]: value },
});
