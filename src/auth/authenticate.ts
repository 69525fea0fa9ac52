import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SecurityRequirement, SecurityScheme } from '../vocabulary/operation.js';
import { bearerChallenge, readBearer } from './bearer.js';
import type { ApiKeyRecord, KeyRegistry } from './key-registry.js';

/** Finds the key record a presented credential belongs to. */
export type KeyLookup = Pick<KeyRegistry, 'find'>;

export type AuthOutcome =
  | { readonly kind: 'key'; readonly key: ApiKeyRecord }
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'rejected'; readonly error: ErrorBody; readonly challenge: string | undefined };

export interface Credentials {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: ReadonlyMap<string, readonly string[]>;
}

type SchemeOutcome = { readonly kind: 'key'; readonly key: ApiKeyRecord } | Extract<AuthOutcome, { kind: 'rejected' }>;

const REALM = 'understudy';

/** Checks one scheme's credential against the key registry. */
function checkScheme(scheme: SecurityScheme, credentials: Credentials, keys: KeyLookup): SchemeOutcome {
  if (scheme.kind === 'bearer') {
    const read = readBearer(credentials.headers.authorization);
    if (read.kind === 'missing') {
      return {
        kind: 'rejected',
        error: errorBody('missing_credentials', 'Missing API key: send Authorization: Bearer <API_KEY>'),
        challenge: bearerChallenge(REALM),
      };
    }
    if (read.kind === 'malformed') {
      const message = `Malformed credentials: ${read.reason}`;
      return {
        kind: 'rejected',
        error: errorBody('malformed_credentials', message),
        challenge: bearerChallenge(REALM, { code: 'invalid_request', description: read.reason }),
      };
    }
    const key = keys.find(read.token);
    if (key) return { kind: 'key', key };
    return {
      kind: 'rejected',
      error: errorBody('invalid_api_key', 'The API key is not valid'),
      challenge: bearerChallenge(REALM, { code: 'invalid_token', description: 'The API key is not valid' }),
    };
  }
  const sent = scheme.in === 'header' ? credentials.headers[scheme.parameter] : credentials.query.get(scheme.parameter)?.[0];
  if (sent === undefined || sent === '') {
    return {
      kind: 'rejected',
      error: errorBody('missing_credentials', `Missing API key: send it in the ${scheme.in} "${scheme.parameter}"`),
      challenge: undefined,
    };
  }
  const key = keys.find(sent);
  return key
    ? { kind: 'key', key }
    : { kind: 'rejected', error: errorBody('invalid_api_key', 'The API key is not valid'), challenge: undefined };
}

/**
 * Authenticates a request against an operation's security requirements (OpenAPI 3.1 §4.8.30): any
 * one requirement suffices, and every scheme within it must pass. An empty requirement (`{}`) makes
 * credentials optional; no requirements at all make the operation public.
 */
export function authenticate(
  requirements: readonly SecurityRequirement[],
  schemes: ReadonlyMap<string, SecurityScheme>,
  credentials: Credentials,
  keys: KeyLookup,
): AuthOutcome {
  if (requirements.length === 0) return { kind: 'anonymous' };
  let firstRejection: Extract<AuthOutcome, { kind: 'rejected' }> | undefined;
  for (const requirement of requirements) {
    if (requirement.length === 0) return { kind: 'anonymous' };
    let key: ApiKeyRecord | undefined;
    let rejected: Extract<AuthOutcome, { kind: 'rejected' }> | undefined;
    for (const name of requirement) {
      const scheme = schemes.get(name);
      if (!scheme) continue;
      const outcome = checkScheme(scheme, credentials, keys);
      if (outcome.kind === 'rejected') {
        rejected = outcome;
        break;
      }
      key = outcome.key;
    }
    if (!rejected && key) return { kind: 'key', key };
    firstRejection ??= rejected;
  }
  return firstRejection ?? { kind: 'anonymous' };
}
