import { authenticate, type AuthOutcome, type CredentialLookup } from '../auth/authenticate.js';
import type { KeyRegistry } from '../auth/key-registry.js';
import type { TokenStore } from '../auth/token-store.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import { dispatch } from '../dispatch/dispatch.js';
import type { Generation } from '../generation/generation.js';
import type { Limiter } from '../limits/limiter.js';
import type { RuleLookup } from '../rules/rule-store.js';
import type { RecordStore } from '../store/record-store.js';
import type { SecurityRequirement, SecurityScheme } from '../vocabulary/operation.js';
import { errorBody, Unavailable } from '../vocabulary/errors.js';
import type { Responded } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { CorsPolicy } from './cors.js';
import type { Caller, Surface, SurfaceFaults } from './surface.js';

/** The configuration the API surface reads. */
export interface ApiSettings {
  readonly cors: CorsPolicy;
  readonly bodyLimit: number;
  /** Requests with no valid key are limited per client address under this plan. */
  readonly anonymousPlan: string;
  readonly checkResponses: boolean;
}

/** What the API surface's steps use, and nothing more. */
export interface ApiCapabilities {
  readonly generation: () => Generation;
  readonly keys: Pick<KeyRegistry, 'find' | 'findBasic'>;
  /** Tokens minted by the token endpoint. */
  readonly tokens: Pick<TokenStore, 'find'>;
  readonly limiter: Pick<Limiter, 'take'>;
  readonly clocks: Pick<WorkspaceClocks, 'of'>;
  readonly store: RecordStore;
  readonly settings: ApiSettings;
  /** Latency and faults: their policy, the config's defaults, the draws. */
  readonly faults: SurfaceFaults;
  /** The admin rules, matched against each valid request. */
  readonly rules: RuleLookup;
}

/** The user's API: keys bound to plans, rate limits, and answers from the store or the document. */
export function apiSurface(capabilities: ApiCapabilities): Surface {
  const { keys, tokens, limiter, clocks, store, settings } = capabilities;
  const now = (caller: Caller): number => clocks.of(caller.workspace).now();
  const lookup: CredentialLookup = {
    key: (presented) => keys.find(presented),
    basic: (username, password) => keys.findBasic(username, password),
    // A token expires on the sandbox clock of its key's workspace.
    token: (presented) => tokens.find(presented, (workspace) => clocks.of(workspace).now()),
  };
  return {
    generation: capabilities.generation,
    faults: capabilities.faults,
    rules: capabilities.rules,
    cors: settings.cors,
    bodyLimit: settings.bodyLimit,
    credentialsFirst: false,
    checkResponses: settings.checkResponses,
    identify(generation, operation, credentials, clientAddress) {
      const schemes = generation.model.securitySchemes;
      // Against the operation's requirements, or any scheme when no route matched. A public
      // operation still counts a valid key it is sent against that key, not the address; so does a
      // valid key short of a scope (403).
      const anyKey = (): AuthOutcome => authenticate(eachScheme(schemes), schemes, credentials, lookup);
      const auth = operation ? authenticate(operation.security, schemes, credentials, lookup) : anyKey();
      const counted = auth.kind === 'anonymous' ? anyKey() : auth;
      const key = counted.kind === 'anonymous' ? undefined : counted.key;
      const caller: Caller = key
        ? { client: key, keyId: key.id, keyName: key.name, workspace: key.workspace }
        : { client: { id: `address:${clientAddress}`, plan: settings.anonymousPlan }, keyId: undefined, workspace: DEFAULT_WORKSPACE };
      return { caller, rejection: auth.kind === 'rejected' ? auth : undefined };
    },
    limit: (caller) => limiter.take(caller.client, now(caller)),
    now,
    respond: (prepared, input, { caller, generation, rawQuery }) =>
      dispatch(prepared.binding, input, {
        store,
        workspace: caller.workspace,
        basePath: generation.basePath,
        rawQuery,
        generatedAnswer: prepared.generatedAnswer,
        now: now(caller),
      }).catch(unavailableAnswer),
  };
}

/** A store that cannot be reached is a 503 the client may retry; any other failure stays a bug (500). */
export function unavailableAnswer(error: unknown): Responded {
  if (!(error instanceof Unavailable)) throw error;
  // The cause (an ioredis message) is for the operator's log, not the client.
  const body = errorBody('service_unavailable', "The sandbox's shared store cannot be reached; retry shortly");
  return { status: body.status, headers: { 'retry-after': String(error.retryAfterSeconds) }, body };
}

const anySchemeOf = new WeakMap<ReadonlyMap<string, SecurityScheme>, readonly SecurityRequirement[]>();

/**
 * Each checkable scheme as a requirement of its own, without scopes: who a request is, whatever the
 * operation asks. Built once per document (the map is the generation's).
 */
function eachScheme(schemes: ReadonlyMap<string, SecurityScheme>): readonly SecurityRequirement[] {
  let requirements = anySchemeOf.get(schemes);
  if (!requirements) {
    // A scheme the sandbox cannot check identifies nobody: it would make every request anonymous.
    requirements = [...schemes.values()].filter((s) => s.kind !== 'unchecked').map((s) => [{ scheme: s.name, scopes: [] }]);
    anySchemeOf.set(schemes, requirements);
  }
  return requirements;
}
