import { authenticate, type AuthOutcome } from '../auth/authenticate.js';
import { dispatch } from '../dispatch/actions.js';
import type { Client } from '../limits/limiter.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { parseQuery } from '../validation/parse-query.js';
import { corsHeaders, isPreflight, preflightHeaders } from './cors.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Parts } from '../core/parts.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';

export interface PipelineResult {
  readonly response: SandboxResponse;
  readonly operation: OperationSpec | undefined;
  /** The key's safe id when a valid key was sent. */
  readonly keyId: string | undefined;
}

/** Longest request target (path and query) served; longer ones get 414 (RFC 9112 §3 suggests ≥ 8000). */
export const MAX_TARGET_LENGTH = 8192;

const fail = (error: ErrorBody, headers: Record<string, string> = {}): SandboxResponse => ({ status: error.status, headers, body: error });

/**
 * One API request, start to finish. Each step either continues or settles the answer:
 *
 *   route ─ authenticate ─ rate limit ─┬─ 429 ──────────────────────────────────────────────┐
 *                                      ├─ 400/415/501 (HTTP itself), 414, 404/405 (no route), │
 *                                      │  401 (bad key), 400 (query encoding)                 │
 *                                      ├─ 410 (past the sunset) ─ 413 (body) ─ 400/415 ──────┤
 *                                      └─ dispatch (store or document) ──────────────────────┴─ headers
 *
 * Rate limiting comes before the route and key failures are answered, so every request that
 * reaches the API uses quota, including wrong ones: probing for routes or keys is throttled too.
 */
export async function runPipeline(parts: Parts, req: SandboxRequest): Promise<PipelineResult> {
  const cors = corsHeaders(parts.config.cors, req);
  if (isPreflight(req)) {
    const headers = preflightHeaders(parts.config.cors, req, parts.router.methodsAt(req.path));
    return { response: { status: 204, headers }, operation: undefined, keyId: undefined };
  }

  // 1. Route.
  const route = parts.router.match(req.method, req.path);
  const operation = route.kind === 'found' ? route.operation : undefined;
  const query = parseQuery(req.query);
  const queryValues = query.ok ? query.values : new Map<string, readonly string[]>();

  // 2. Authenticate: against the operation's requirements, or any scheme when no route matched.
  // A public operation still counts a valid key it is sent against that key, not the address.
  const credentials = { headers: req.headers, query: queryValues };
  const anyKey = (): AuthOutcome =>
    authenticate([...parts.model.securitySchemes.keys()].map((name) => [name]), parts.model.securitySchemes, credentials, parts.keys);
  const auth: AuthOutcome = operation ? authenticate(operation.security, parts.model.securitySchemes, credentials, parts.keys) : anyKey();
  const caller = auth.kind === 'anonymous' ? anyKey() : auth;
  const keyId = caller.kind === 'key' ? caller.key.id : undefined;
  const client: Client = caller.kind === 'key' ? caller.key : { id: `address:${req.clientAddress}`, plan: parts.config.anonymousPlan };

  // 3. Rate limit.
  const verdict = parts.limiter.take(client);
  const compiled = operation ? parts.operations.get(operation) : undefined;
  const base = { ...cors, ...verdict.headers, ...compiled?.lifecycleHeaders };
  const settle = (response: SandboxResponse): PipelineResult => ({
    response: { ...response, headers: { ...base, ...response.headers, ...mergedLink(base.link, response.headers.link) } },
    operation,
    keyId,
  });
  if (!verdict.admitted) return settle(fail(errorBody(verdict.code, verdict.message)));

  // 4. Failures found before the limiter, answered now that the request is counted.
  if (req.malformed) return settle(fail(errorBody(req.malformed.code, req.malformed.message)));
  if (req.path.length + req.query.length > MAX_TARGET_LENGTH) {
    return settle(fail(errorBody('uri_too_long', `The request target exceeds ${MAX_TARGET_LENGTH} characters`)));
  }
  if (route.kind === 'not-found') return settle(fail(errorBody('route_not_found', `No operation at ${req.method} ${truncate(req.path)}`)));
  if (route.kind === 'bad-encoding') return settle(fail(errorBody('invalid_path_encoding', 'The path has broken percent-encoding')));
  if (route.kind === 'method-not-allowed') {
    const message = `${req.method} is not allowed here; allowed: ${route.allow.join(', ')}`;
    return settle(fail(errorBody('method_not_allowed', message), { allow: route.allow.join(', ') }));
  }
  if (auth.kind === 'rejected') return settle(fail(auth.error, auth.challenge ? { 'www-authenticate': auth.challenge } : {}));
  if (!query.ok) return settle(fail(errorBody('malformed_request', 'The query string has broken percent-encoding')));
  if (!compiled || !operation) throw new Error(`operation ${route.operation.id} was not compiled`);
  const sunset = operation.lifecycle.sunset;
  if (sunset && parts.clock.now() >= sunset.getTime()) {
    return settle(fail(errorBody('operation_removed', `${operation.id} was removed on ${sunset.toUTCString()}`)));
  }

  // 5. Body, read only now and only for operations that take one.
  const body = compiled.validator.takesBody ? await req.readBody(parts.config.bodyLimit) : undefined;
  if (body?.kind === 'too-large') return settle(fail(errorBody('payload_too_large', `The request body exceeds ${body.limit} bytes`), { connection: 'close' }));

  // 6. Validate.
  const validated = compiled.validator.validate({ pathParams: route.pathParams, query: queryValues, headers: req.headers }, body);
  if (!validated.ok) return settle(fail(validated.error));

  // 7. Dispatch.
  const answer = await dispatch(compiled.plan, validated.input, { store: parts.store, basePath: parts.basePath, rawQuery: queryValues, mock: compiled.mock });
  return settle(answer);
}

/** Both the answer's own links (`rel="next"`) and the operation's (`rel="successor-version"`). */
function mergedLink(base: string | undefined, own: string | undefined): Record<string, string> {
  if (base === undefined || own === undefined) return {};
  return { link: `${own}, ${base}` };
}

const truncate = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
