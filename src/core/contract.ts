import type { SandboxClock } from '../clock/clock.js';
import type { Generation } from '../generation/generation.js';
import type { Redaction } from '../journal/redaction.js';
import type { RecordStore } from '../store/record-store.js';
import type { Exchange, SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { ApiModel } from '../vocabulary/operation.js';
import type { ReloadOutcome, SandboxStatus } from '../vocabulary/reload.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import type { Notice } from './events.js';
import type { WebhooksPart } from './webhooks.js';

/** A sandbox as the edges (the node handler, Express, the CLI, MCP) and the tests see it (built by `createSandbox`). */
export interface Sandbox {
  /** The document's current generation (model, routes, validators). */
  readonly generation: () => Generation;
  /** The current generation's operation model. */
  readonly model: ApiModel;
  /** The path prefix the API is served under. */
  readonly basePath: string;
  /** Largest request body accepted, in bytes (the edge refuses larger ones before reading them). */
  readonly bodyLimit: number;
  /** The records, behind the record-store contract. */
  readonly store: RecordStore;
  /** The default workspace's clock. */
  readonly clock: SandboxClock;
  /** Answers one request. Never throws: a bug becomes a 500 in the Error shape. */
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  onExchange(listener: (exchange: Exchange) => void): void;
  /** Told of what happens while the sandbox runs that an operator should know (a workspace evicted). */
  onNotice(listener: (notice: Notice) => void): void;
  /** Back to the seeded state: store, issued keys, workspaces, counters, bans, clocks, journal and rules. */
  reset(): Promise<void>;
  /** The workspaces: each key's own records, clock, journal entries and rules. */
  readonly workspaces: Workspaces;
  /**
   * Reads the document, its `$ref`'d files, the fixtures (and the config, given `reloadConfig`)
   * again, builds the next generation aside and swaps it in; on failure the last good one serves.
   * State is kept. Reloads run one at a time.
   */
  reload(): Promise<ReloadOutcome>;
  /** The generation serving, its files, the last reload. */
  status(): SandboxStatus;
  /**
   * What the journal redacts as of the last reload (the document's credential names, the config's
   * secrets): the request log shows a query string redacted the same way.
   */
  readonly redaction: () => Redaction;
  /** Webhook subscriptions to store changes and their deliveries (docs/webhooks.md). */
  readonly webhooks: Pick<WebhooksPart, 'subscriptions' | 'deliveries'>;
  /** Stops: the store's acknowledged changes made durable, its files and connections closed. */
  close(): Promise<void>;
}
