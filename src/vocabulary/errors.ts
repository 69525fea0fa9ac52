/**
 * The one catalogue of errors the sandbox answers with. Every non-success answer carries one of
 * these codes in the API's own Error shape `{code, message, status}`. Codes are stable: clients and
 * tests match on them; messages are for people and may change.
 */
export const ERRORS = {
  route_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  missing_credentials: 401,
  malformed_credentials: 401,
  invalid_api_key: 401,
  insufficient_scope: 403,
  invalid_client: 401,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  rate_limited: 429,
  key_banned: 429,
  validation_failed: 400,
  malformed_json: 400,
  body_required: 400,
  invalid_path_encoding: 400,
  malformed_request: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  resource_not_found: 404,
  resource_exists: 409,
  operation_removed: 410,
  admin_unauthorized: 401,
  internal_error: 500,
  not_implemented: 501,
  response_contract_violation: 500,
  invalid_preference: 400,
  preference_unsatisfiable: 422,
  verification_failed: 422,
  injected_fault: 503,
  forced_status: 500,
  workspace_permanent: 409,
  reload_failed: 422,
  service_unavailable: 503,
  no_success_declared: 500,
} as const;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Each code's title: a short summary of the kind of problem, the same on every occurrence (RFC 9457
 * §3.1.3). The message says what happened this time.
 */
export const TITLES: Readonly<Record<ErrorCode, string>> = {
  route_not_found: 'No such route',
  method_not_allowed: 'Method not allowed',
  not_acceptable: 'No acceptable media type',
  missing_credentials: 'Credentials missing',
  malformed_credentials: 'Credentials malformed',
  invalid_api_key: 'Unknown API key',
  insufficient_scope: 'Insufficient scope',
  invalid_client: 'Invalid client',
  unsupported_grant_type: 'Unsupported grant type',
  invalid_scope: 'Invalid scope',
  rate_limited: 'Rate limit exceeded',
  key_banned: 'API key banned',
  validation_failed: 'Request invalid',
  malformed_json: 'Malformed JSON',
  body_required: 'Request body required',
  invalid_path_encoding: 'Invalid path encoding',
  malformed_request: 'Malformed request',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Request body too large',
  uri_too_long: 'Request target too long',
  headers_too_large: 'Request headers too large',
  resource_not_found: 'Resource not found',
  resource_exists: 'Resource already exists',
  operation_removed: 'Operation removed',
  admin_unauthorized: 'Admin token required',
  internal_error: 'Internal error',
  not_implemented: 'Not implemented',
  response_contract_violation: 'Answer breaks the document',
  invalid_preference: 'Invalid preference',
  preference_unsatisfiable: 'Preference cannot be satisfied',
  verification_failed: 'Verification failed',
  injected_fault: 'Injected fault',
  forced_status: 'Forced status',
  workspace_permanent: 'Workspace is permanent',
  reload_failed: 'Reload failed',
  service_unavailable: 'Service unavailable',
  no_success_declared: 'No success declared',
};

/**
 * The problem type URI of a code (RFC 9457 §3.1.1): a `tag:` URI (RFC 4151), which names the problem
 * without promising a page behind it; each is described in docs/errors.md.
 */
export const problemType = (code: ErrorCode): string => `tag:understudy.dev,2026:problem:${code}`;

export interface Violation {
  /** Where the problem is: `body.name`, `query.limit`, `path.petId`, `header.x-trace`. */
  readonly location: string;
  readonly message: string;
}

export interface ErrorBody {
  readonly code: ErrorCode;
  readonly message: string;
  readonly status: number;
  readonly details?: readonly Violation[];
}

/**
 * Thrown by a shared store that cannot be reached (Redis down, a command timed out): the request
 * is answered 503 with `Retry-After`, never with stale or empty data.
 */
export class Unavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
    this.name = 'Unavailable';
  }
}

export function errorBody(code: ErrorCode, message: string, details?: readonly Violation[]): ErrorBody {
  const status = ERRORS[code];
  return details && details.length > 0 ? { code, message, status, details } : { code, message, status };
}
