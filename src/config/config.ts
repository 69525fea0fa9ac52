/** The sandbox's configuration: built once at start-up, validated, frozen, handed down in slices. */

import type { FaultsConfig } from '../faults/settings.js';
import type { PlanLimits } from '../limits/limiter.js';

export interface SandboxConfig {
  /** The OpenAPI document. */
  readonly spec: string;
  /** Seed definitions for the store, or null to generate every collection from its schema. */
  readonly fixtures: string | null;
  /** A JSON file the store persists to (created, seeded, when absent); null keeps it in memory. */
  readonly data: string | null;
  /**
   * A workspace snapshot file (docs/snapshots.md) imported into the workspace it names and restored
   * there before the sandbox answers; null for none.
   */
  readonly snapshot: string | null;
  /** When the data file's log is flushed to the disk: before each answer, once a second, or when the kernel decides. */
  readonly fsync: 'always' | 'everysec' | 'no';
  readonly host: string;
  readonly port: number;
  /** Overrides the path prefix taken from the document's first server. */
  readonly basePath: string | null;
  /** Seeds the fixtures and generated answers: the same seed gives the same data. */
  readonly seed: number;
  /** Guards `/__sandbox`; null disables the admin API. */
  readonly adminToken: string | null;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimit: number;
  /** ISO instant the clock starts frozen at, or null to follow the system clock. */
  readonly clock: { readonly frozenAt: string | null };
  readonly plans: Readonly<Record<string, PlanLimits>>;
  readonly keys: readonly KeyConfig[];
  /** Requests with no valid key are limited per client address under this plan. */
  readonly anonymousPlan: string;
  readonly bans: { readonly threshold: number; readonly durationSeconds: number };
  readonly validation: {
    readonly unknownQueryParameters: 'ignore' | 'reject';
    readonly checkResponses: boolean;
    /** Serve a document's example even when it breaks its own schema (for negative tests); off: a valid generated answer. */
    readonly serveInvalidExamples: boolean;
  };
  /** Origins allowed to call from a browser; `*` for any. */
  readonly cors: { readonly origins: readonly string[] };
  /**
   * The request log: its level, and its format on standard output: `pretty` (one short aligned line
   * per request, for a person), `json` (pino's JSON lines, for a log shipper), or `auto` (pretty when
   * standard output is a terminal, JSON otherwise).
   */
  readonly log: { readonly level: 'silent' | 'error' | 'warn' | 'info' | 'debug'; readonly format: 'auto' | 'pretty' | 'json' };
  /** Where parsed YAML (the document, the fixtures) and compiled validators are kept between starts; null: made at every start. */
  readonly cacheDir: string | null;
  /** How many recent requests the admin API's journal keeps. */
  readonly journalSize: number;
  /**
   * Most workspaces held at once; past it the least recently used idle one is evicted (never the
   * default one nor one the config names). With none idle, an admin-issued workspace is still made.
   */
  readonly maxWorkspaces: number;
  /** A workspace used within this many seconds (of the shared sandbox clock) is never evicted, whatever its pool. */
  readonly workspaceIdleSeconds: number;
  /**
   * Latency and faults: the defaults for every operation (below admin rules and document extensions),
   * whether clients may choose their own (`Prefer: delay=`, `fault=`), and the caps on every source.
   */
  readonly faults: FaultsConfig;
  /** The pages a browser opens: the interactive docs and the admin console. */
  readonly pages: PagesConfig;
  /** A Redis every replica shares: records, keys, workspaces, counters, bans, rules, clocks and the journal. */
  readonly redis: RedisConfig;
  /** Webhooks: where deliveries may go, how they are retried, and the subscriptions the sandbox starts with. */
  readonly webhooks: WebhooksConfig;
  /** Timed transitions of record fields (`placed → approved after 10m`), beside those the document declares. */
  readonly transitions: readonly TransitionConfig[];
}

export interface TransitionConfig {
  /** The collection, as `understudy explain` names it. */
  readonly collection: string;
  readonly field: string;
  readonly from: string;
  readonly to: string;
  /** How long a record stays in `from`: `30s`, `10m`, `2h`, `2d`, or a number of seconds. */
  readonly after: string | number;
}

export interface WebhooksConfig {
  /**
   * Where deliveries may go: addresses, CIDR ranges, host names or `*.domain` patterns. A URL whose
   * host resolves to anything else is refused, never attempted. Loopback only by default.
   */
  readonly allow: readonly string[];
  /** Wall time one attempt may take, in milliseconds. */
  readonly timeoutMs: number;
  /** Attempts per delivery, the first included. */
  readonly maxAttempts: number;
  /** The wait before each retry, in seconds of the workspace's sandbox clock (the last repeats). */
  readonly backoffSeconds: readonly number[];
  /** Deliveries a workspace may have pending at once; one more is refused. */
  readonly queueLimit: number;
  /** Subscriptions made at start (and again after a reset). */
  readonly subscriptions: readonly SubscriptionConfig[];
  /**
   * The Standard Webhooks secret OpenAPI callbacks are signed with (`whsec_…`); null: one made from
   * the seed, the same every start with the same seed. `GET /__sandbox/webhooks` shows it.
   */
  readonly callbackSecret: string | null;
}

export interface SubscriptionConfig {
  /** `record.created`, `pets.updated`, `pets.status=sold`…: see docs/webhooks.md. */
  readonly event: string;
  readonly url: string;
  /** The Standard Webhooks secret (`whsec_…`) deliveries are signed with; one is made when absent. */
  readonly secret?: string;
  /** The workspace whose changes it hears; the default workspace when absent. */
  readonly workspace?: string;
}

export interface RedisConfig {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`); null: every part of the state in this process. */
  readonly url: string | null;
  /** Prepended to every Redis key and channel: several sandboxes can share one Redis under different prefixes. */
  readonly prefix: string;
  /**
   * How rate limits are decided while Redis is unreachable: `local` (each replica alone, at its
   * share of each limit), `open` (every request admitted), `closed` (every request refused, 503).
   */
  readonly outage: 'local' | 'open' | 'closed';
  /** How many replicas share the limits: under `local`, each admits its share (limit ÷ replicas, rounded up). */
  readonly replicas: number;
  /** How long a Redis command may take before the request that needs it is answered 503. */
  readonly commandTimeoutMs: number;
}

export interface PagesConfig {
  /** The docs page's path (Swagger UI on the live document), or null for no docs page. */
  readonly docs: string | null;
  /** Whether each docs visitor gets a key of its own, in a workspace of its own (off: the visitor pastes a key). */
  readonly visitorKeys: boolean;
  /** The plan of a visitor's key; null: the anonymous plan. */
  readonly visitorPlan: string | null;
  /**
   * Most visitor workspaces held at once (they count towards `maxWorkspaces` too). Past it an idle
   * visitor's workspace makes room; with none idle, a new visitor is answered 503 with Retry-After.
   * A visitor's workspace never makes another one go.
   */
  readonly visitorWorkspaces: number;
  /** Visitor keys minted per minute of the sandbox clock, across all addresses (each address: ten at most). */
  readonly visitorKeysPerMinute: number;
  /** Whether `/__sandbox/console` is served (it needs the admin API, and asks for its token). */
  readonly console: boolean;
}

/**
 * One API key. The same key is accepted however the document asks for it: as a bearer token, an
 * apiKey value, another `Authorization` scheme's credentials, HTTP basic with the key as user-id and
 * an empty password, or basic with `username`/`password` when both are given.
 */
export interface KeyConfig {
  readonly key: string;
  /** What people call the key (`demo-free`): shown beside its id in the console, the journal and the log; never the key itself. */
  readonly name?: string;
  readonly plan: string;
  /** The OAuth 2 scopes (or roles) the key carries; absent: every scope. */
  readonly scopes?: readonly string[];
  readonly username?: string;
  readonly password?: string;
  /** The workspace the key works in (created at start); absent: the shared default workspace. */
  readonly workspace?: string;
}
