/** What the journal never shows: credentials, wherever a request or its answer carries them. */

import type { SecurityScheme } from '../vocabulary/operation.js';

export const REDACTED = '[redacted]';

export interface Redaction {
  /** Header names (lower case) whose whole value is a credential: apiKey schemes `in: header`. */
  readonly headers: ReadonlySet<string>;
  /** Query parameters whose value is a credential: apiKey schemes `in: query`, and `access_token` (RFC 6750 §2.3). */
  readonly query: ReadonlySet<string>;
  /** JSON properties (at any depth) and form fields, in request and answer bodies, whose values are credentials. */
  readonly fields: ReadonlySet<string>;
  /** Values never shown wherever they appear (path, query, headers, bodies): given secrets and issued keys. */
  readonly scrub: RegExp;
}

/** Keys the admin API issues (`sk_<plan>_` and 24 base64url characters: `auth/key-registry.ts`). */
const ISSUED_KEY = String.raw`\bsk_[\w-]{25,}`;

/** OAuth 2 and login fields (RFC 6749 §4.4, §5.1; OpenID Connect's `id_token`). */
const SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'password'];

/** Shortest literal secret scrubbed wherever it appears. */
const MIN_SECRET_LENGTH = 6;

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The redaction for a document's security schemes, plus literal secrets (the admin token, the
 * configured keys) that must not appear even where no scheme says to look for them.
 */
export function redactionFor(schemes: ReadonlyMap<string, SecurityScheme>, secrets: readonly string[] = []): Redaction {
  const headers = new Set<string>();
  const query = new Set<string>(['access_token']);
  for (const scheme of schemes.values()) {
    if (scheme.kind !== 'apiKey') continue;
    if (scheme.in === 'header') headers.add(scheme.parameter.toLowerCase());
    if (scheme.in === 'query') query.add(scheme.parameter);
  }
  // Longest first, so that a secret containing another is replaced whole. A very short one would
  // blank out ordinary text everywhere; where it is sent as a credential it is redacted anyway.
  const literal = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const scrub = new RegExp([...literal.map(escaped), ISSUED_KEY].join('|'), 'g');
  return { headers, query, fields: new Set(SECRET_FIELDS), scrub };
}

/** Without a document's schemes: `Authorization`, cookies, `access_token`, OAuth fields and issued keys. */
export const BASE_REDACTION: Redaction = redactionFor(new Map());

export const scrub = (text: string, r: Redaction): string => text.replace(r.scrub, REDACTED);

/** `Bearer abc` → `Bearer [redacted]`: the scheme says how a client authenticated, the rest is the secret. */
const authorization = (value: string): string => {
  const space = value.indexOf(' ');
  return space < 0 ? REDACTED : `${value.slice(0, space)} ${REDACTED}`;
};

/** `a=1; b=2` → `a=[redacted]; b=[redacted]` (RFC 6265 §4.2): any cookie may be a session. */
const cookies = (value: string): string =>
  value
    .split(';')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? pair : `${pair.slice(0, equals)}=${REDACTED}`;
    })
    .join(';');

/** `Set-Cookie: id=abc; Path=/` → `id=[redacted]; Path=/`: the attributes stay. */
const setCookie = (value: string): string => {
  const semi = value.indexOf(';');
  const first = semi < 0 ? value : value.slice(0, semi);
  return cookies(first) + (semi < 0 ? '' : value.slice(semi));
};

/** Headers with credentials replaced; names as given (lower case), absent values left out. */
export function redactHeaders(headers: Readonly<Record<string, string | undefined>>, r: Redaction): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name === 'authorization' || name === 'proxy-authorization') out[name] = authorization(value);
    else if (name === 'cookie') out[name] = cookies(value);
    else if (name === 'set-cookie') out[name] = setCookie(value);
    else if (r.headers.has(name)) out[name] = REDACTED;
    else out[name] = scrub(value, r);
  }
  return out;
}

const decodedName = (name: string): string => {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
};

/** A raw `a=1&b=2` string (query or form body) with the values of `names` replaced; the rest as received. */
export function redactPairs(text: string, names: ReadonlySet<string>, r: Redaction): string {
  if (text === '') return text;
  const pairs = text.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    return names.has(decodedName(name)) ? `${name}=${REDACTED}` : pair;
  });
  return scrub(pairs.join('&'), r);
}

/** A JSON value with credential fields replaced; the same value when it has none. */
export function redactJson(value: unknown, r: Redaction): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => redactJson(item, r));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (typeof value === 'string') {
    const text = scrub(value, r);
    return text === value ? value : text;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const redacted = r.fields.has(name) && item !== null && item !== undefined ? REDACTED : redactJson(item, r);
    if (redacted !== item) changed = true;
    out[name] = redacted;
  }
  return changed ? out : value;
}
