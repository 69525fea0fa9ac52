import type { FaultSpec } from '../faults/fault-spec.js';
import type { LatencyModel } from '../faults/latency.js';
import type { FaultSettings } from '../faults/settings.js';
import type { BodyMatcher, StringMatcher } from '../journal/patterns.js';

/**
 * An admin rule: sticky behaviour for the requests it matches, set by `POST /__sandbox/rules` until
 * it is deleted, used up (`times`) or the sandbox is reset. These are the shapes after parsing
 * (`parse-rule.ts`): the match's key is the key's safe id, never the key; instants are Unix ms.
 */
export interface RuleMatch {
  readonly operationId?: string;
  /** Upper case. */
  readonly method?: string;
  /** The request path exactly as received (percent-encoded, without the query), or a documented template. */
  readonly path?: string;
  /** The key's safe id (`key_…`). */
  readonly key?: string;
  /** The workspace of the request's key (`default` for requests with no valid key). */
  readonly workspace?: string;
  readonly query?: Readonly<Record<string, StringMatcher>>;
  /** Header names in lower case. */
  readonly headers?: Readonly<Record<string, StringMatcher>>;
  readonly body?: BodyMatcher | readonly BodyMatcher[];
}

/** The answer a rule forces, as `Prefer: code=…, example=…` would, with a body and headers of its own. */
export interface RuleRespond {
  readonly status: number;
  readonly example?: string;
  /** Present when the rule gives the body (which may be JSON `null`): `{ value }`. */
  readonly body?: { readonly value: unknown };
  /** Header names in lower case. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A rule as given, checked against the document and the keys. */
export interface RuleDefinition {
  readonly match: RuleMatch;
  /**
   * The documented path templates `match.path` names, when it names templates (`/v1/pets/{id}`):
   * a request to any of their operations matches, whatever the values of its path parameters.
   */
  readonly pathTemplates?: readonly string[];
  readonly respond?: RuleRespond;
  readonly latency?: LatencyModel;
  /** One fault entry or a list, as in the config (`FaultSpec`). */
  readonly fault?: FaultSpec | readonly FaultSpec[];
  /** The share of matching requests the rule applies to, 0 to 1 (default 1). */
  readonly probability?: number;
  /** The rule expires after applying this many times. */
  readonly times?: number;
  /** Sandbox-clock instants, Unix ms: the rule applies from `from` (inclusive) until `until` (exclusive). */
  readonly from?: number;
  readonly until?: number;
}

/** A stored rule: its definition and its id. */
export interface Rule extends RuleDefinition {
  /** `rule_1`, `rule_2`, …: in order of creation (a reset starts again at 1). */
  readonly id: string;
  /** Unique to this rule, never reused (ids are, after a reset): what its uses are counted under on Redis. */
  readonly uid: string;
  /** The rule's latency and faults as a source of the fault decision (`rule` in request > rule > document > config). */
  readonly faults: FaultSettings | undefined;
}

/** A stored rule and how many times it has applied so far. */
export interface RuleStatus {
  readonly rule: Rule;
  readonly applied: number;
}

/** What a rule is matched against: one valid request that reached its operation, and the caller's clock. */
export interface RuleRequest {
  readonly operationId: string;
  /** The operation's documented path template (`/pets/{petId}`). */
  readonly pathTemplate: string;
  /** Upper case. */
  readonly method: string;
  /** As received, still percent-encoded, without the query. */
  readonly path: string;
  /** The raw query string, without the `?`. */
  readonly query: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The key's safe id, or undefined when the request carried no valid key. */
  readonly keyId: string | undefined;
  /** The caller's workspace. */
  readonly workspace: string;
  /** The request body as the document reads it (JSON, a form, XML), or undefined. */
  readonly body: unknown;
  /** Now on the sandbox clock of the caller's workspace, Unix ms. */
  readonly now: number;
}
