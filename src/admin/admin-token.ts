import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerChallenge, readBearer } from '../auth/bearer.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';

/** Why a request does not open the admin API: `401 admin_unauthorized` and its `WWW-Authenticate` challenge. */
export interface AdminRefusal {
  readonly error: ErrorBody;
  readonly challenge: string;
}

const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

/**
 * Whether an `Authorization` header carries the admin token (RFC 6750 §2.1), compared in constant
 * time; the refusal when it does not. What every door to the admin API asks first: its operations
 * and the MCP endpoint under it.
 */
export function checkAdminToken(authorization: string | undefined, token: string): AdminRefusal | undefined {
  const bearer = readBearer(authorization);
  if (bearer.kind === 'token' && sameSecret(bearer.token, token)) return undefined;
  const challenge = bearerChallenge(
    'understudy-admin',
    bearer.kind === 'missing' ? undefined : { code: 'invalid_token', description: 'not the admin token' },
  );
  return { error: errorBody('admin_unauthorized', 'The admin API needs Authorization: Bearer <admin token>'), challenge };
}
