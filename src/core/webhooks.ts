import { hash } from 'node:crypto';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { WebhooksConfig } from '../config/config.js';
import type { Exchange } from '../vocabulary/exchange.js';
import type { StoreChange } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { Deliveries, workspaceClock, type JsonValue } from '../webhooks/deliveries.js';
import { eventPayload } from '../webhooks/events.js';
import type { DeliveryStore } from '../webhooks/store.js';
import { Subscriptions } from '../webhooks/subscriptions.js';

/** The webhooks as the rest of the sandbox sees them: the admin API's, the exchange listener, the resets. */
export interface WebhooksPart {
  /** What OpenAPI callbacks are signed with: the config's, or one made from the seed. */
  readonly callbackSecret: string;
  readonly subscriptions: Subscriptions;
  readonly deliveries: Deliveries;
  /** Hears each answered request: a store change that a subscription listens for queues a delivery. */
  readonly listener: (exchange: Exchange) => void;
  /** A store change made other than by a request (a timed transition): delivered the same way. */
  readonly changed: (change: StoreChange) => void;
  /** A clock was moved (or may have been): retries now due are made at once. */
  readonly clockMoved: () => void;
  /** A workspace removed: its subscriptions and deliveries go. */
  readonly forget: (workspace: string) => Promise<void>;
  /** Back to the configured subscriptions, with no delivery. */
  readonly reset: () => Promise<void>;
  readonly close: () => void;
}

/**
 * Webhooks on store changes: the subscriptions and the delivery engine, wired to the requests'
 * changes and to the workspaces' clocks. Nothing here runs on a request's path but a comparison
 * per subscription: a delivery is queued after the answer is made, and sent later (src/webhooks/).
 */
/** The document's own webhooks a subscription may name, and the body each sends for a change. */
export interface NamedWebhooks {
  readonly event: (name: string) => string | undefined;
  readonly body: (name: string, change: StoreChange, at: number) => JsonValue | undefined;
}

export function webhooksPart(
  config: WebhooksConfig,
  seed: number,
  clocks: WorkspaceClocks,
  warn: (message: string) => void,
  named: NamedWebhooks = { event: () => undefined, body: () => undefined },
  /** Where deliveries are kept: this process's memory unless given (Redis's, shared by the replicas). */
  store?: DeliveryStore,
): WebhooksPart {
  const callbackSecret = config.callbackSecret ?? `whsec_${hash('sha256', `understudy callbacks ${seed}`, 'base64').slice(0, 32)}`;
  const subscriptions = new Subscriptions(
    config.subscriptions.map((s) => ({ event: s.event, url: s.url, workspace: s.workspace ?? DEFAULT_WORKSPACE, secret: s.secret })),
    named.event,
  );
  const report = (error: unknown): void => warn(`webhooks: ${error instanceof Error ? error.message : String(error)}`);
  const deliveries = new Deliveries({
    clock: workspaceClock(clocks),
    outbound: { allow: config.allow },
    timeoutMs: config.timeoutMs,
    maxAttempts: config.maxAttempts,
    backoffSeconds: config.backoffSeconds,
    queueLimit: config.queueLimit,
    report,
    ...(store === undefined ? {} : { store }),
  });
  const changed = (change: StoreChange): void => {
    if (subscriptions.size === 0) return;
    const at = clocks.of(change.workspace).now();
    for (const { subscription, secret } of subscriptions.dueFor(change)) {
      deliveries
        .enqueue({
          workspace: change.workspace,
          url: subscription.url,
          event: subscription.event,
          // A document's own webhook sends the body its schema describes; any other, the standard envelope.
          payload: named.body(subscription.event, change, at) ?? eventPayload(subscription.event, change, at),
          secret,
        })
        .catch(report);
    }
  };
  const listener = (exchange: Exchange): void => {
    if (exchange.change !== undefined) changed(exchange.change);
  };
  return {
    callbackSecret,
    subscriptions,
    deliveries,
    listener,
    changed,
    clockMoved: () => deliveries.clockMoved(),
    forget: async (workspace) => {
      subscriptions.forget(workspace);
      await deliveries.forget(workspace);
    },
    reset: async () => {
      subscriptions.reset();
      await deliveries.reset();
    },
    close: () => deliveries.close(),
  };
}
