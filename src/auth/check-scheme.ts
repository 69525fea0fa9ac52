import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SchemeUse, SecurityScheme } from '../vocabulary/operation.js';
import { readAuthorization } from './authorization.js';
import { basicChallenge, readBasic } from './basic.js';
import { bearerChallenge, readBearer } from './bearer.js';
import { readCookies } from '../validation/read-cookies.js';
import type { Challenge, CredentialLookup, Credentials } from './credentials.js';
import { readScheme, schemeChallenge } from './http-scheme.js';
import type { ApiKeyRecord } from './key-registry.js';

export const REALM = 'understudy';

/**
 * How useful a failure is to the caller, so that the most helpful one is reported when several
 * requirements fail: a valid key short of a scope (403) says the most, then a credential sent but
 * wrong, one sent but broken, one sent in another scheme, and last nothing sent at all.
 */
export const RANK = { missing: 0, otherScheme: 1, malformed: 2, invalid: 3, scope: 4 } as const;

export type SchemeVerdict =
  /** `key` is undefined for a scheme the sandbox cannot check; `granted` undefined means every scope. */
  | { readonly kind: 'pass'; readonly key: ApiKeyRecord | undefined; readonly granted: readonly string[] | undefined }
  | {
      readonly kind: 'fail';
      readonly rank: number;
      readonly error: ErrorBody;
      readonly challenge: Challenge | undefined;
      /** For a missing credential: how to send it, for the message. */
      readonly how: string;
      /** The key presented, when it was valid (short of a scope): the request is counted against it. */
      readonly key?: ApiKeyRecord;
    };

type Fail = Extract<SchemeVerdict, { kind: 'fail' }>;

const pass = (key: ApiKeyRecord, granted: readonly string[] | undefined = key.scopes): SchemeVerdict => ({ kind: 'pass', key, granted });
const missing = (how: string, challenge: Challenge | undefined): Fail => ({
  kind: 'fail',
  rank: RANK.missing,
  error: errorBody('missing_credentials', `Missing credentials: send ${how}`),
  challenge,
  how,
});
const fail = (rank: number, error: ErrorBody, challenge: Challenge | undefined, how: string): Fail => ({
  kind: 'fail',
  rank,
  error,
  challenge,
  how,
});

const bearer = (text: string): Challenge => ({ scheme: 'bearer', text });

/** The challenge a scheme answers with when nothing (or nothing usable) was sent; none for apiKey. */
export function plainChallenge(scheme: SecurityScheme): Challenge | undefined {
  switch (scheme.kind) {
    case 'bearer':
    case 'oauth2':
    case 'openIdConnect':
      return bearer(bearerChallenge(REALM));
    case 'basic':
      return { scheme: 'basic', text: basicChallenge(REALM) };
    case 'http':
      return { scheme: scheme.scheme.toLowerCase(), text: schemeChallenge(scheme.scheme, REALM) };
    default:
      return undefined;
  }
}

/** Bearer tokens (RFC 6750 §2.1) for http bearer, OAuth 2 and OpenID Connect: a key or a minted token. */
function checkBearer(credentials: Credentials, lookup: CredentialLookup): SchemeVerdict {
  const how = 'Authorization: Bearer <API_KEY>';
  const read = readBearer(credentials.headers.authorization);
  if (read.kind === 'missing') return missing(how, bearer(bearerChallenge(REALM)));
  if (read.kind === 'malformed') {
    const sent = readAuthorization(credentials.headers.authorization);
    const rank = sent.kind === 'credentials' && sent.scheme !== 'bearer' ? RANK.otherScheme : RANK.malformed;
    const challenge = bearer(bearerChallenge(REALM, { code: 'invalid_request', description: read.reason }));
    return fail(rank, errorBody('malformed_credentials', `Malformed credentials: ${read.reason}`), challenge, how);
  }
  const key = lookup.key(read.token);
  if (key) return pass(key);
  const minted = lookup.token(read.token);
  if (minted.kind === 'valid') return pass(minted.token.key, minted.token.scopes ?? minted.token.key.scopes);
  const message = minted.kind === 'expired' ? 'The access token has expired' : 'The API key is not valid';
  const challenge = bearer(bearerChallenge(REALM, { code: 'invalid_token', description: message }));
  return fail(RANK.invalid, errorBody('invalid_api_key', message), challenge, how);
}

/** HTTP basic (RFC 7617): a configured username and password, or the key as user-id with no password. */
function checkBasic(credentials: Credentials, lookup: CredentialLookup): SchemeVerdict {
  const how = 'Authorization: Basic <base64 of user:password>';
  const challenge: Challenge = { scheme: 'basic', text: basicChallenge(REALM) };
  const read = readBasic(credentials.headers.authorization);
  if (read.kind === 'missing') return missing(how, challenge);
  if (read.kind === 'other-scheme') {
    const error = errorBody('malformed_credentials', `Malformed credentials: the ${read.scheme} scheme is not accepted; use Basic`);
    return fail(RANK.otherScheme, error, challenge, how);
  }
  if (read.kind === 'malformed')
    return fail(RANK.malformed, errorBody('malformed_credentials', `Malformed credentials: ${read.reason}`), challenge, how);
  const key = lookup.basic(read.username, read.password);
  return key ? pass(key) : fail(RANK.invalid, errorBody('invalid_api_key', 'The user-id or password is not valid'), challenge, how);
}

/** Another `Authorization` scheme: its credentials are the key. */
function checkHttp(scheme: string, credentials: Credentials, lookup: CredentialLookup): SchemeVerdict {
  const how = `Authorization: ${scheme} <API_KEY>`;
  const challenge: Challenge = { scheme: scheme.toLowerCase(), text: schemeChallenge(scheme, REALM) };
  const read = readScheme(credentials.headers.authorization, scheme.toLowerCase());
  if (read.kind === 'missing') return missing(how, challenge);
  if (read.kind === 'other-scheme') {
    const error = errorBody('malformed_credentials', `Malformed credentials: the ${read.scheme} scheme is not accepted; use ${scheme}`);
    return fail(RANK.otherScheme, error, challenge, how);
  }
  if (read.kind === 'malformed')
    return fail(RANK.malformed, errorBody('malformed_credentials', `Malformed credentials: ${read.reason}`), challenge, how);
  const key = lookup.key(read.credentials);
  return key ? pass(key) : fail(RANK.invalid, errorBody('invalid_api_key', 'The API key is not valid'), challenge, how);
}

/** An API key in a header, the query or a cookie (OpenAPI 3.1 §4.8.27.1). */
function checkApiKey(
  scheme: Extract<SecurityScheme, { kind: 'apiKey' }>,
  credentials: Credentials,
  lookup: CredentialLookup,
): SchemeVerdict {
  const how = `the API key in the ${scheme.in} "${scheme.parameter}"`;
  const sent =
    scheme.in === 'header'
      ? credentials.headers[scheme.parameter]
      : scheme.in === 'query'
        ? credentials.query.get(scheme.parameter)?.[0]
        : readCookies(credentials.headers.cookie).get(scheme.parameter)?.[0];
  if (sent === undefined || sent === '') return missing(how, undefined);
  const key = lookup.key(sent);
  return key ? pass(key) : fail(RANK.invalid, errorBody('invalid_api_key', 'The API key is not valid'), undefined, how);
}

function checkCredential(scheme: SecurityScheme, credentials: Credentials, lookup: CredentialLookup): SchemeVerdict {
  switch (scheme.kind) {
    case 'bearer':
    case 'oauth2':
    case 'openIdConnect':
      return checkBearer(credentials, lookup);
    case 'basic':
      return checkBasic(credentials, lookup);
    case 'http':
      return checkHttp(scheme.scheme, credentials, lookup);
    case 'apiKey':
      return checkApiKey(scheme, credentials, lookup);
    case 'unchecked':
      return { kind: 'pass', key: undefined, granted: undefined };
  }
}

/**
 * One scheme of a requirement: the credential, then the scopes it names against those the key (or
 * token) carries. A missing scope is 403 `insufficient_scope` (RFC 6750 §3.1), with the scopes the
 * operation needs in the Bearer challenge.
 */
export function checkScheme(scheme: SecurityScheme, use: SchemeUse, credentials: Credentials, lookup: CredentialLookup): SchemeVerdict {
  const verdict = checkCredential(scheme, credentials, lookup);
  if (verdict.kind === 'fail' || verdict.key === undefined || verdict.granted === undefined) return verdict;
  const granted = verdict.granted;
  const lacking = use.scopes.filter((scope) => !granted.includes(scope));
  if (lacking.length === 0) return verdict;
  const message = `The credentials lack the scope${lacking.length > 1 ? 's' : ''} ${lacking.join(', ')} this operation requires`;
  const bearerLike = scheme.kind === 'bearer' || scheme.kind === 'oauth2' || scheme.kind === 'openIdConnect';
  const challenge = bearerLike
    ? bearer(bearerChallenge(REALM, { code: 'insufficient_scope', description: message, scope: use.scopes }))
    : undefined;
  return { kind: 'fail', rank: RANK.scope, error: errorBody('insufficient_scope', message), challenge, how: '', key: verdict.key };
}
