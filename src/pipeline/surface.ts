import type { AuthOutcome, Credentials } from '../auth/authenticate.js';
import type { Generation, PreparedOperation } from '../generation/generation.js';
import type { Client, LimitVerdict } from '../limits/limiter.js';
import type { ValidInput } from '../validation/request-validator.js';
import type { DrawStreams } from '../faults/draws.js';
import type { FaultPolicy } from '../faults/decide.js';
import type { FaultSettings } from '../faults/settings.js';
import type { RuleLookup } from '../rules/rule-store.js';
import type { Awaitable, Responded } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import type { CorsPolicy } from './cors.js';

/** Who a request comes from, once the authenticate step has looked at it. */
export interface Caller {
  /** Who it is counted against: a key, or the client address when no valid key was sent. */
  readonly client: Client;
  /** The key's safe id when a valid key was sent. */
  readonly keyId: string | undefined;
  /** The key's name, when it has one. */
  readonly keyName?: string | undefined;
  /** The workspace whose records and clock the request uses. */
  readonly workspace: string;
}

export interface Identity {
  readonly caller: Caller;
  /** Set when the credentials do not satisfy the operation: answered 401 (or 403) in turn. */
  readonly rejection: Extract<AuthOutcome, { kind: 'rejected' }> | undefined;
}

/** What the respond step is given besides the validated input. */
export interface RespondContext {
  readonly caller: Caller;
  readonly generation: Generation;
  /** The request's query as received, for links that carry it on. */
  readonly rawQuery: ReadonlyMap<string, readonly string[]>;
}

/**
 * One API served through the pipeline: its compiled document and the capabilities its steps use.
 * The Pet Store (or any user's document) is one surface; the admin API, described by its own
 * document, is another. Each step gets only what it needs through these members.
 */
export interface Surface {
  /** The current generation, read once per request. */
  readonly generation: () => Generation;
  /**
   * The number of the served API's generation, as every answer names it (`X-Sandbox-Generation`):
   * the admin surface answers from its own document but names the API's.
   */
  readonly servedGeneration?: () => string;
  readonly cors: CorsPolicy;
  /** Largest request body read, in bytes. */
  readonly bodyLimit: number;
  /** Whether credentials are checked before a missing route is revealed (404/405 only to a known caller). */
  readonly credentialsFirst: boolean;
  /** Whether answers are checked against the document (a broken one becomes a 500 naming why). */
  readonly checkResponses: boolean;
  /** The authenticate step: who is calling, for the operation matched (undefined when none was). */
  identify(generation: Generation, operation: OperationSpec | undefined, credentials: Credentials, clientAddress: string): Identity;
  /** The rate-limit step; surfaces without limits leave it out. */
  readonly limit?: (caller: Caller) => Awaitable<LimitVerdict>;
  /** "Now" for the caller (its workspace's clock), for sunsets. */
  now(caller: Caller): number;
  /** The dispatch step: the answer to a valid request. */
  respond(prepared: PreparedOperation, input: ValidInput, context: RespondContext): Promise<Responded>;
  /** Latency and faults (the API surface only): the limits on every source, the config's defaults, the draws. */
  readonly faults?: SurfaceFaults;
  /** The admin rules (the API surface only), tried on valid requests where preferences apply. */
  readonly rules?: RuleLookup;
}

export interface SurfaceFaults {
  readonly policy: FaultPolicy;
  /** The config's default latency and faults, or undefined when it sets none. */
  readonly defaults: FaultSettings | undefined;
  /** Deterministic draws, one stream per key (or client address). */
  readonly draws: DrawStreams;
}
