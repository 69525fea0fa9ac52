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
  readonly workspaces: Pick<Workspaces, 'createForVisitor'>;
  /** The shared sandbox clock: the visitor keys' minting limit counts in its minutes. */
  readonly clock: Clock;
  /** Keeps a visitor's new key and workspace (a data file, the other replicas) before the key is answered. */
  readonly keep: () => Promise<void>;
  /** Tells the operator (the log) of what a visitor could not be given. */
  readonly warn: (message: string) => void;
}

export interface VisitorSettings {
  /** The plan of the key minted for each visitor, or null: the visitor pastes a key. */
  readonly visitorPlan: string | null;
  /** Visitor keys minted per minute of the sandbox clock, across all addresses. */
  readonly visitorKeysPerMinute: number;
}

/** Visitor keys a client address may mint per minute of the sandbox clock (all addresses: the config's). */
const VISITOR_KEYS_PER_MINUTE = 10;
const VISITOR_BODY_LIMIT = 4096;

/** The answer's standard headers, with the endpoint's own. */
type Headers = (req: SandboxRequest, own: Record<string, string>) => Record<string, string>;

/**
 * `POST /docs/visitor`: a key for this visitor, in a workspace of its own (the one it already has
 * while that still works). No token is needed, so what it may mint is bounded here: per address
 * and in all per minute of the sandbox clock (429), and in workspaces by the visitors' own pool,
 * which never makes room by evicting anyone else's workspace (503 when it is full of busy ones).
 */
export function createVisitorEndpoint(
  settings: VisitorSettings,
  capabilities: VisitorCapabilities,
  headers: Headers,
): (req: SandboxRequest) => Promise<SandboxResponse> {
  const plan = settings.visitorPlan;
  const minted = new Map<string, number>();
  let mintedInAll = 0;
  let mintMinute = -1;
  /** The minute the operator was last told of a refused visitor: once a minute at most, however many are refused. */
  let warnedMinute = -1;

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
    const now = capabilities.clock.now();
    const minute = Math.floor(now / 60_000);
    if (minute !== mintMinute) {
      minted.clear();
      mintedInAll = 0;
      mintMinute = minute;
    }
    const count = minted.get(req.clientAddress) ?? 0;
    const limited =
      count >= VISITOR_KEYS_PER_MINUTE
        ? `At most ${VISITOR_KEYS_PER_MINUTE} visitor keys a minute per address`
        : mintedInAll >= settings.visitorKeysPerMinute
          ? `At most ${settings.visitorKeysPerMinute} visitor keys a minute in all`
          : undefined;
    if (limited !== undefined) {
      const retry = String(Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000)));
      return fail(req, errorBody('rate_limited', limited), { 'retry-after': retry });
    }
    const made = await capabilities.workspaces.createForVisitor();
    if (made.kind === 'full') {
      const retry = Math.ceil(made.retryAfterMs / 1000);
      if (warnedMinute !== minute) {
        warnedMinute = minute;
        capabilities.warn(
          `docs visitors are refused a workspace: every visitor workspace was used within workspaceIdleSeconds (the first falls idle in ${retry} s; told once a minute)`,
        );
      }
      return fail(req, errorBody('service_unavailable', 'No workspace is free for a new visitor now; try again later'), {
        'retry-after': String(retry),
      });
    }
    // Counted once minted: a refused visitor used nothing.
    minted.set(req.clientAddress, count + 1);
    mintedInAll++;
    const workspace = made.id;
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
