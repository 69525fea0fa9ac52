import { quoted, readAuthorization } from './authorization.js';

/**
 * Any other HTTP authentication scheme the document names (`Digest`, `HOBA`, a vendor's own): the
 * sandbox cannot run each scheme's protocol, so the credentials after the scheme name are taken as
 * the key, which lets a client exercise the API with the header it will send in production.
 */
export type SchemeRead =
  | { readonly kind: 'credentials'; readonly credentials: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'other-scheme'; readonly scheme: string }
  | { readonly kind: 'malformed'; readonly reason: string };

export function readScheme(header: string | undefined, scheme: string): SchemeRead {
  const read = readAuthorization(header);
  if (read.kind === 'missing') return read;
  if (read.kind === 'malformed') return { kind: 'malformed', reason: `the Authorization header is not "${scheme} <API_KEY>"` };
  if (read.scheme !== scheme) return { kind: 'other-scheme', scheme: read.scheme };
  if (read.credentials === '') return { kind: 'malformed', reason: `the ${scheme} credentials are empty` };
  return { kind: 'credentials', credentials: read.credentials };
}

/** A challenge for the scheme, named as the document spells it (RFC 9110 §11.6.1). */
export const schemeChallenge = (scheme: string, realm: string): string => `${scheme} realm=${quoted(realm)}`;
