import { quoted, readAuthorization } from './authorization.js';

/** HTTP basic credentials (RFC 7617), decoded strictly. */
export type BasicRead =
  | { readonly kind: 'credentials'; readonly username: string; readonly password: string }
  | { readonly kind: 'missing' }
  /** Another `Authorization` scheme was sent. */
  | { readonly kind: 'other-scheme'; readonly scheme: string }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Canonical base64 with padding (RFC 4648 §4): the token68 RFC 7617 §2 sends. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// RFC 7617 §2: "The user-id and password MUST NOT contain any control characters".
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function readBasic(header: string | undefined): BasicRead {
  const read = readAuthorization(header);
  if (read.kind === 'missing') return read;
  if (read.kind === 'malformed') return { kind: 'malformed', reason: 'the Authorization header is not "Basic <base64 of user:password>"' };
  if (read.scheme !== 'basic') return { kind: 'other-scheme', scheme: read.scheme };
  const encoded = read.credentials;
  if (encoded === '' || !BASE64.test(encoded)) return { kind: 'malformed', reason: 'the basic credentials are not base64' };
  const bytes = Buffer.from(encoded, 'base64');
  // Non-zero padding bits decode too: only the canonical spelling is accepted.
  if (bytes.toString('base64') !== encoded) return { kind: 'malformed', reason: 'the basic credentials are not canonical base64' };
  let text: string;
  try {
    // RFC 7617 §2.1: the sandbox's challenge asks for UTF-8 (charset="UTF-8").
    text = utf8.decode(bytes);
  } catch {
    return { kind: 'malformed', reason: 'the basic credentials are not UTF-8' };
  }
  const colon = text.indexOf(':');
  if (colon < 0) return { kind: 'malformed', reason: 'the basic credentials have no colon between user-id and password' };
  if (CONTROL.test(text)) return { kind: 'malformed', reason: 'the basic credentials contain control characters' };
  // The user-id ends at the first colon (RFC 7617 §2): a password may contain colons.
  return { kind: 'credentials', username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** The challenge of RFC 7617 §2 and §2.1. */
export const basicChallenge = (realm: string): string => `Basic realm=${quoted(realm)}, charset="UTF-8"`;
