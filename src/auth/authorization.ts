/**
 * The `Authorization` header split into its scheme and credentials (RFC 9110 §11.6.2:
 * `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`). Scheme names are case-insensitive (§11.1), so
 * the scheme is given in lower case.
 */
export type AuthorizationRead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'credentials'; readonly scheme: string; readonly credentials: string };

/** An auth-scheme is a token (RFC 9110 §5.6.2). */
const HEADER = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?: +(.*))?$/;

export function readAuthorization(header: string | undefined): AuthorizationRead {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = HEADER.exec(header.trim());
  if (!match) return { kind: 'malformed' };
  return { kind: 'credentials', scheme: (match[1] ?? '').toLowerCase(), credentials: (match[2] ?? '').trim() };
}

/** A challenge parameter's quoted-string (RFC 9110 §5.6.4), without what would need escaping. */
export const quoted = (text: string): string => `"${text.replace(/["\\\r\n]/g, '')}"`;
