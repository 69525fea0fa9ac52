import type { ErrorBody } from '../vocabulary/errors.js';
import type { SecurityRequirement, SecurityScheme } from '../vocabulary/operation.js';
import { checkScheme, plainChallenge, RANK, type SchemeVerdict } from './check-scheme.js';
import type { Challenge, CredentialLookup, Credentials } from './credentials.js';
import type { ApiKeyRecord } from './key-registry.js';

export type { Challenge, CredentialLookup, Credentials } from './credentials.js';

export type AuthOutcome =
  | { readonly kind: 'key'; readonly key: ApiKeyRecord }
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'rejected';
      readonly error: ErrorBody;
      /** The `WWW-Authenticate` field value, when an HTTP scheme is involved. */
      readonly challenge: string | undefined;
      /** A valid key that fell short of a scope: who the request is counted against. */
      readonly key?: ApiKeyRecord;
    };

type Fail = Extract<SchemeVerdict, { kind: 'fail' }>;
type RequirementVerdict =
  | { readonly kind: 'pass'; readonly key: ApiKeyRecord | undefined }
  /** `how`: what to send to satisfy the requirement, for the message when nothing was sent. */
  | { readonly kind: 'fail'; readonly failure: Fail; readonly how: string };

/** Every scheme of one requirement must pass; the request is counted against the first key found. */
function checkRequirement(
  requirement: SecurityRequirement,
  schemes: ReadonlyMap<string, SecurityScheme>,
  credentials: Credentials,
  lookup: CredentialLookup,
): RequirementVerdict {
  let key: ApiKeyRecord | undefined;
  let failure: Fail | undefined;
  const hows: string[] = [];
  for (const use of requirement) {
    const scheme = schemes.get(use.scheme);
    // The model refuses a requirement naming an undeclared scheme at start; nothing to check here.
    if (!scheme) continue;
    const verdict = checkScheme(scheme, use, credentials, lookup);
    if (verdict.kind === 'pass') {
      key ??= verdict.key;
      continue;
    }
    if (!failure || verdict.rank > failure.rank) failure = verdict;
    if (!hows.includes(verdict.how)) hows.push(verdict.how);
  }
  return failure ? { kind: 'fail', failure, how: hows.join(' and ') } : { kind: 'pass', key };
}

/**
 * One challenge per HTTP scheme the operation accepts (RFC 9110 §11.6.1 allows several), the
 * reported failure's own in place of its scheme's plain one. A 403 carries only its own: the caller
 * is known, and only a token with more scope would help.
 */
function challengeHeader(
  requirements: readonly SecurityRequirement[],
  schemes: ReadonlyMap<string, SecurityScheme>,
  reported: Fail,
): string | undefined {
  if (reported.rank === RANK.scope) return reported.challenge?.text;
  const challenges = new Map<string, string>();
  for (const requirement of requirements) {
    for (const use of requirement) {
      const scheme = schemes.get(use.scheme);
      const plain: Challenge | undefined = scheme && plainChallenge(scheme);
      if (plain && !challenges.has(plain.scheme)) challenges.set(plain.scheme, plain.text);
    }
  }
  if (reported.challenge) challenges.set(reported.challenge.scheme, reported.challenge.text);
  return challenges.size > 0 ? [...challenges.values()].join(', ') : undefined;
}

/**
 * Authenticates a request against an operation's security requirements (OpenAPI 3.1 §4.8.30): any
 * one requirement suffices, and every scheme within it must pass. An empty requirement (`{}`) makes
 * credentials optional; no requirements at all make the operation public. When every requirement
 * fails, the most helpful failure is reported (`RANK`; the first in document order on a tie); when
 * nothing was sent at all, the message lists every way to authenticate.
 */
export function authenticate(
  requirements: readonly SecurityRequirement[],
  schemes: ReadonlyMap<string, SecurityScheme>,
  credentials: Credentials,
  lookup: CredentialLookup,
): AuthOutcome {
  if (requirements.length === 0) return { kind: 'anonymous' };
  let reported: Fail | undefined;
  const ways: string[] = [];
  for (const requirement of requirements) {
    const verdict = checkRequirement(requirement, schemes, credentials, lookup);
    if (verdict.kind === 'pass') return verdict.key ? { kind: 'key', key: verdict.key } : { kind: 'anonymous' };
    if (!reported || verdict.failure.rank > reported.rank) reported = verdict.failure;
    ways.push(verdict.how);
  }
  if (!reported) return { kind: 'anonymous' };
  const error =
    reported.rank === RANK.missing ? { ...reported.error, message: `Missing credentials: send ${ways.join(', or ')}` } : reported.error;
  const challenge = challengeHeader(requirements, schemes, reported);
  return reported.key ? { kind: 'rejected', error, challenge, key: reported.key } : { kind: 'rejected', error, challenge };
}
