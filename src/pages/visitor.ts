import type { ApiKeyRecord, KeyRegistry } from '../auth/key-registry.js';
import type { Clock } from '../clock/clock.js';
import type { Generation } from '../generation/generation.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { SecurityScheme } from '../vocabulary/operation.js';
import type { Workspaces } from '../workspaces/workspaces.js';

/** What the endpoint uses of the sandbox. */
export interface VisitorCapabilities {
  readonly generation: () => Generation;
  readonly keys: Pick<KeyRegistry, 'issue' | 'find'>;
  readonly workspaces: Pick<Workspaces, 'create'>;
  /** The shared sandbox clock: the visitor keys' minting limit counts in its minutes. */
  readonly clock: Clock;
  /** Keeps a visitor's new key and workspace (a data file, the other replicas) before the key is answered. */
  readonly keep: () => Promise<void>;
}

/** Visitor keys a client address may mint per minute of the sandbox clock. */
const VISITOR_KEYS_PER_MINUTE = 10;
const VISITOR_BODY_LIMIT = 4096;

/** The answer's standard headers, with the endpoint's own. */
type Headers = (req: SandboxRequest, own: Record<string, string>) => Record<string, string>;

/**
 * `POST /docs/visitor`: a key for this visitor, in a workspace of its own (the one it already has
 * while that still works). No token is needed, so what it may mint is bounded here.
 */
export function createVisitorEndpoint(
  plan: string | null,
  capabilities: VisitorCapabilities,
  headers: Headers,
): (req: SandboxRequest) => Promise<SandboxResponse> {
  const minted = new Map<string, number>();
  let mintMinute = -1;

  const fail = (req: SandboxRequest, body: ErrorBody, own: Record<string, string> = {}): SandboxResponse => ({
    status: body.status,
    headers: headers(req, own),
    body,
  });

  return async (req) => {
    const authorizations = authorizationsOf(capabilities.generation().model.securitySchemes);
    const json = (body: unknown): SandboxResponse => ({ status: 200, headers: headers(req, { 'cache-control': 'no-store' }), body });
    if (plan === null) return json({ key: null, plan: null, authorizations });
    const read = await req.readBody(VISITOR_BODY_LIMIT);
    if (read.kind === 'too-large') return fail(req, errorBody('payload_too_large', `The body exceeds ${VISITOR_BODY_LIMIT} bytes`));
    if (read.kind === 'invalid') return fail(req, errorBody('malformed_request', `The body could not be read: ${read.reason}`));
    let held: unknown;
    try {
      held = read.bytes.length === 0 ? undefined : (JSON.parse(read.bytes.toString('utf8')) as { key?: unknown }).key;
    } catch {
      return fail(req, errorBody('malformed_json', 'The body is not valid JSON'));
    }
    if (typeof held === 'string') {
      const kept: ApiKeyRecord | undefined = capabilities.keys.find(held);
      if (kept?.plan === plan) return json({ key: held, id: kept.id, plan, workspace: kept.workspace, authorizations });
    }
    const minute = Math.floor(capabilities.clock.now() / 60_000);
    if (minute !== mintMinute) {
      minted.clear();
      mintMinute = minute;
    }
    const count = minted.get(req.clientAddress) ?? 0;
    if (count >= VISITOR_KEYS_PER_MINUTE) {
      const retry = String(Math.max(1, Math.ceil(((minute + 1) * 60_000 - capabilities.clock.now()) / 1000)));
      return fail(req, errorBody('rate_limited', `At most ${VISITOR_KEYS_PER_MINUTE} visitor keys a minute per address`), {
        'retry-after': retry,
      });
    }
    minted.set(req.clientAddress, count + 1);
    const workspace = await capabilities.workspaces.create();
    const issued = capabilities.keys.issue(plan, workspace);
    await capabilities.keep();
    return json({ key: issued.key, id: issued.record.id, plan, workspace, authorizations });
  };
}

/**
 * How the docs page authorises its try-it calls with the visitor's key, per security scheme: the
 * key as the value (API key, bearer and other `Authorization` schemes), as the basic user-id with an
 * empty password, or as an OAuth 2 / OpenID Connect access token (the sandbox takes a key there too).
 */
function authorizationsOf(schemes: ReadonlyMap<string, SecurityScheme>): { scheme: string; use: 'value' | 'basic' | 'token' }[] {
  const out: { scheme: string; use: 'value' | 'basic' | 'token' }[] = [];
  for (const [name, scheme] of schemes) {
    if (scheme.kind === 'basic') out.push({ scheme: name, use: 'basic' });
    else if (scheme.kind === 'oauth2' || scheme.kind === 'openIdConnect') out.push({ scheme: name, use: 'token' });
    // Swagger UI sends HTTP schemes other than basic and bearer (Digest, HOBA…) not at all: none is offered.
    else if (scheme.kind === 'bearer' || scheme.kind === 'apiKey') out.push({ scheme: name, use: 'value' });
  }
  return out;
}
