/**
 * Reads a bearer token from an `Authorization` header (RFC 6750 §2.1). The scheme name is
 * case-insensitive (RFC 9110 §11.1); the token must be a token68.
 */
export type BearerRead =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed'; readonly reason: string };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function readBearer(header: string | undefined): BearerRead {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +(.*))?$/.exec(header.trim());
  if (!match) return { kind: 'malformed', reason: 'the Authorization header is not "Bearer <API_KEY>"' };
  if (match[1]?.toLowerCase() !== 'bearer')
    return { kind: 'malformed', reason: `the ${match[1] ?? ''} scheme is not accepted; use Bearer` };
  const token = match[2]?.trim() ?? '';
  if (!TOKEN68.test(token)) return { kind: 'malformed', reason: 'the bearer token is empty or has characters a token may not have' };
  return { kind: 'token', token };
}

/**
 * The `WWW-Authenticate` challenge for a 401, or a 403 `insufficient_scope` with the scopes the
 * resource needs (RFC 6750 §3, §3.1). No error code when nothing was sent.
 */
export function bearerChallenge(
  realm: string,
  error?: {
    readonly code: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
    readonly description: string;
    readonly scope?: readonly string[];
  },
): string {
  const base = `Bearer realm="${realm}"`;
  if (!error) return base;
  const challenge = `${base}, error="${error.code}", error_description="${error.description.replace(/["\\]/g, '')}"`;
  return error.scope && error.scope.length > 0 ? `${challenge}, scope="${error.scope.join(' ')}"` : challenge;
}
