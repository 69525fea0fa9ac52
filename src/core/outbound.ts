import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import type { Generation } from '../generation/generation.js';
import type { Journal } from '../journal/journal.js';
import { outboundEntry } from '../journal/outbound.js';
import type { Redaction } from '../journal/redaction.js';
import type { PipelineResult } from '../pipeline/pipeline.js';
import type { SandboxStore } from '../store/record-store.js';
import type { Backend } from './backend.js';
import { sendCallbacks } from './callbacks.js';
import { tiedWebhooks, webhookBody } from './document-events.js';
import type { Events } from './events.js';
import type { StartupProgress } from './startup-progress.js';
import { declaredTransitions, transitionsPart } from './transitions.js';
import { webhooksPart, type WebhooksPart } from './webhooks.js';

export interface OutboundParts {
  readonly config: SandboxConfig;
  readonly current: () => Generation;
  readonly seed: () => number;
  readonly clocks: WorkspaceClocks;
  readonly store: SandboxStore;
  readonly backend: Pick<Backend, 'deliveries' | 'schedule'>;
  readonly events: Events;
  /** The journal an attempt is written to, when one is kept. */
  readonly journal: Journal | undefined;
  readonly redaction: () => Redaction;
  readonly onProgress: ((event: StartupProgress) => void) | undefined;
}

/**
 * What the sandbox sends rather than answers: webhooks on store changes (the document's own
 * webhooks among the events), records that move through their states on the clock, and the
 * callbacks an operation declares. Read at start: a reload ties neither webhooks nor transitions
 * again.
 */
export function wireOutbound(o: OutboundParts) {
  const { events, clocks } = o;
  const warn = (message: string): void => events.notify({ level: 'warn', message });
  // The document's own webhooks, tied to store changes at start.
  const documentEvents = tiedWebhooks(o.current());
  for (const message of documentEvents.warnings) o.onProgress?.({ phase: 'warning', message });
  const webhooks: WebhooksPart = webhooksPart(
    o.config.webhooks,
    o.config.seed,
    clocks,
    warn,
    {
      event: (name) => documentEvents.tied.get(name)?.event,
      body: (name, change, at) => {
        const webhook = documentEvents.tied.get(name);
        return webhook === undefined ? undefined : webhookBody(o.current(), webhook, change, o.seed(), at);
      },
    },
    o.backend.deliveries,
  );
  // A store change a subscription listens for is queued after its answer is made (src/webhooks/).
  events.on('exchange', webhooks.listener);
  // Each attempt at a delivery is journaled beside the requests, as a request the sandbox sent.
  const { journal } = o;
  if (journal !== undefined) {
    webhooks.deliveries.onAttempt((delivery, attempt) => {
      if (journal.wants()) journal.addEntry(outboundEntry({ ...attempt, delivery }, o.redaction(), Date.now()), 'own');
    });
  }
  // Records that move through their states on the clock (src/transitions/): what the config and the
  // document declare; a change a transition makes is delivered like a request's.
  const declared = declaredTransitions(o.config.transitions, o.current());
  if (declared.problems.length > 0) throw new Error(`timed transitions: ${declared.problems.join('; ')}`);
  const transitions = transitionsPart(declared.rules, {
    store: o.store,
    clocks,
    generation: o.current,
    emit: webhooks.changed,
    warn,
    schedule: o.backend.schedule,
  });
  if (transitions.declared) {
    events.on('exchange', (exchange) => {
      if (exchange.change !== undefined) transitions.observe(exchange.change);
    });
  }
  /** After an operation's answer is made: the callbacks it declares, queued for delivery. */
  const sendCallbacksOf = (result: PipelineResult): void => {
    if (result.callbacks === undefined || result.caller === undefined) return;
    try {
      sendCallbacks(result.callbacks, {
        workspace: result.caller.workspace,
        generation: o.current(),
        deliveries: webhooks.deliveries,
        secret: webhooks.callbackSecret,
        seed: o.seed(),
        now: clocks.of(result.caller.workspace).now(),
        warn,
      });
    } catch (error) {
      // A callback that cannot be made is the log's to say; the answer is made already.
      warn(`callbacks: ${(error as Error).message}`);
    }
  };
  return { webhooks, transitions, sendCallbacksOf };
}
