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
  workspace_permanent: 409,
  reload_failed: 422,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERRORS;

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
