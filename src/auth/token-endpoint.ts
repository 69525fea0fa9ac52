import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { Limiter } from '../limits/limiter.js';
import { errorBody, type ErrorCode } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { basicChallenge, readBasic } from './basic.js';
import { REALM } from './check-scheme.js';
import type { ApiKeyRecord, KeyRegistry } from './key-registry.js';
import type { TokenStore } from './token-store.js';

/** How long a minted token works, on the sandbox clock (RFC 6749 §5.1 `expires_in`). */
export const TOKEN_LIFETIME_SECONDS = 3600;
/** Largest token request body: a handful of form fields. */
const BODY_LIMIT = 16 * 1024;
const FORM = 'application/x-www-form-urlencoded';
/** A scope-token (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface TokenCapabilities {
  readonly keys: Pick<KeyRegistry, 'findBasic'>;
  readonly tokens: Pick<TokenStore, 'mint'>;
  readonly clocks: Pick<WorkspaceClocks, 'of'>;
  readonly limiter: Pick<Limiter, 'take'>;
  /** The plan a token request whose client did not authenticate is counted under, per address. */
  readonly anonymousPlan: string;
}

export interface TokenAnswer {
  /** The answer with its own headers (the caller adds the standard ones). */
  readonly response: SandboxResponse;
  /** The client's key, when it authenticated. */
  readonly key: ApiKeyRecord | undefined;
}

type OAuthError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

/** The catalogue code each RFC 6749 §5.2 error is answered under. */
const CODE: Readonly<Record<OAuthError, ErrorCode>> = {
  invalid_request: 'malformed_request',
  invalid_client: 'invalid_client',
  unsupported_grant_type: 'unsupported_grant_type',
  invalid_scope: 'invalid_scope',
};

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * An error both an OAuth client (RFC 6749 §5.2: `error`, `error_description`) and a client of the
 * sandbox's Error shape (`code`, `message`, `status`) can read. `invalid_client` is a 401 with a
 * Basic challenge (§5.2: the scheme the client may authenticate with).
 */
function refuse(error: OAuthError, description: string, key?: ApiKeyRecord): TokenAnswer {
  const body = errorBody(CODE[error], description);
  const headers: Record<string, string> = { ...NO_STORE };
  if (error === 'invalid_client') headers['www-authenticate'] = basicChallenge(REALM);
  return { response: { status: body.status, headers, body: { error, error_description: description, ...body } }, key };
}

/** A form value decoded as RFC 6749 §2.3.1 asks of client credentials sent with HTTP basic. */
const formDecoded = (text: string): string => new URLSearchParams(`v=${text}`).get('v') ?? '';

type ClientRead =
  { readonly kind: 'client'; readonly id: string; readonly secret: string } | { readonly kind: 'refused'; readonly answer: TokenAnswer };

/** Client authentication (RFC 6749 §2.3.1): HTTP basic, or `client_id`/`client_secret` in the body, never both. */
function readClient(req: SandboxRequest, form: URLSearchParams): ClientRead {
  const basic = readBasic(req.headers.authorization);
  const inBody = form.has('client_id');
  if (basic.kind === 'credentials' && inBody)
    return {
      kind: 'refused',
      answer: refuse('invalid_request', 'Authenticate the client one way only: HTTP basic or client_id in the body'),
    };
  if (basic.kind === 'malformed')
    return { kind: 'refused', answer: refuse('invalid_client', `Malformed client credentials: ${basic.reason}`) };
  if (basic.kind === 'credentials') return { kind: 'client', id: formDecoded(basic.username), secret: formDecoded(basic.password) };
  if (inBody) return { kind: 'client', id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
  return {
    kind: 'refused',
    answer: refuse('invalid_client', 'Client authentication is required: HTTP basic, or client_id and client_secret'),
  };
}

/** Parses the form (RFC 6749 §3.2: an empty value counts as absent; no parameter twice). */
function parseForm(bytes: Buffer): URLSearchParams | string {
  const form = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
    if (value === '') continue;
    if (form.has(name)) return `the parameter ${name} is given more than once`;
    form.set(name, value);
  }
  return form;
}

/** What a token request comes to before it is counted: a refusal, or a grant to mint. */
type Decision = TokenAnswer | { readonly grant: ApiKeyRecord; readonly scopes: readonly string[] | undefined };

/**
 * The OAuth 2 token endpoint for the client credentials grant (RFC 6749 §4.4): the client
 * authenticates as a configured key (its `username`/`password`, or the key as client_id with no
 * secret) and gets a bearer token that stands for that key (plan, quota, workspace) until it expires
 * on the sandbox clock. Every token request counts against its client's key like an API request
 * (the rate-limit headers, 429s and bans of its plan), or against the caller's address under the
 * anonymous plan when the client did not authenticate; a refused request mints nothing.
 */
export function tokenEndpoint(capabilities: TokenCapabilities): (req: SandboxRequest) => Promise<TokenAnswer> {
  const { keys, tokens, clocks, limiter, anonymousPlan } = capabilities;
  return async (req) => {
    const decision = await decide(req, keys);
    const key = 'grant' in decision ? decision.grant : decision.key;
    const client = key ?? { id: `address:${req.clientAddress}`, plan: anonymousPlan };
    const now = clocks.of(key?.workspace ?? DEFAULT_WORKSPACE).now();
    const counted = limiter.take(client, now);
    const verdict = counted instanceof Promise ? await counted : counted;
    if (!verdict.admitted) {
      const body = errorBody(verdict.code, verdict.message);
      return { response: { status: body.status, headers: { ...verdict.headers, ...NO_STORE }, body }, key };
    }
    if (!('grant' in decision)) {
      const { response } = decision;
      return { response: { ...response, headers: { ...verdict.headers, ...response.headers } }, key };
    }
    const granted = decision.scopes;
    const token = tokens.mint(decision.grant, granted, now, TOKEN_LIFETIME_SECONDS * 1000);
    const body = {
      access_token: token,
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      ...(granted ? { scope: granted.join(' ') } : {}),
    };
    return { response: { status: 200, headers: { ...verdict.headers, ...NO_STORE }, body }, key };
  };
}

/** Reads and checks a token request: the refusal it earns, or the key and scopes to mint a token for. */
async function decide(req: SandboxRequest, keys: TokenCapabilities['keys']): Promise<Decision> {
  if (req.method !== 'POST') {
    const body = errorBody('method_not_allowed', `${req.method} is not allowed here; allowed: POST`);
    return { response: { status: body.status, headers: { allow: 'POST' }, body }, key: undefined };
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== FORM) return refuse('invalid_request', `The token request must be ${FORM}`);
  const read = await req.readBody(BODY_LIMIT);
  if (read.kind !== 'ok')
    return refuse('invalid_request', read.kind === 'too-large' ? `The body exceeds ${BODY_LIMIT} bytes` : read.reason);
  const form = parseForm(read.bytes);
  if (typeof form === 'string') return refuse('invalid_request', `Malformed token request: ${form}`);
  const grant = form.get('grant_type');
  if (grant === null) return refuse('invalid_request', 'grant_type is required');
  if (grant !== 'client_credentials')
    return refuse('unsupported_grant_type', 'The sandbox mints tokens for grant_type=client_credentials only');
  const client = readClient(req, form);
  if (client.kind === 'refused') return client.answer;
  const key = keys.findBasic(client.id, client.secret);
  if (!key) return refuse('invalid_client', 'The client credentials are not valid');
  const requested = form.get('scope')?.split(' ');
  if (requested?.some((scope) => !SCOPE_TOKEN.test(scope)))
    return refuse('invalid_request', 'scope is not a space-separated list of scopes', key);
  const lacking = requested && key.scopes ? requested.filter((scope) => !key.scopes?.includes(scope)) : [];
  if (lacking.length > 0) return refuse('invalid_scope', `The client may not request ${lacking.join(', ')}`, key);
  // Granted: what was asked for, else everything the key carries (RFC 6749 §3.3).
  return { grant: key, scopes: requested ?? key.scopes };
}
