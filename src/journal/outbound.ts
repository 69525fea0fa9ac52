/** The journal's entry for a request the sandbox sent: one attempt at a webhook or callback delivery. */

import { textView, type JournalEntry, type OutboundView } from './entry.js';
import { redactHeaders, redactPairs, type Redaction } from './redaction.js';

/** One attempt as the delivery engine records it (src/webhooks/records.ts), in the journal's own terms. */
export interface SentAttempt {
  readonly delivery: { readonly id: string; readonly workspace: string; readonly event: string; readonly url: string };
  readonly attempt: number;
  /** When it started, on the workspace's sandbox clock. */
  readonly at: number;
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly response?: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string };
  readonly error?: string;
  readonly durationMs: number;
  readonly outcome: OutboundView['outcome'];
  readonly nextAttemptAt?: number;
  readonly replay?: true;
}

/**
 * The entry of an attempt: method, path and query of the URL it went to, the receiver's status (0
 * when none answered, as HAR writes it), both messages as the journal shows any, and `outbound`.
 * Its id is the delivery's with the attempt's number, so every attempt has an entry of its own.
 */
export function outboundEntry(sent: SentAttempt, r: Redaction, wallTime: number): JournalEntry {
  const { delivery, request, response } = sent;
  const url = new URL(request.url);
  const requestMime = request.headers['content-type'];
  const responseMime = response?.headers['content-type'];
  // Events the engine names `callback.<name>` are an OpenAPI callback's; every other is a subscription's.
  const outbound: OutboundView = {
    kind: delivery.event.startsWith('callback.') ? 'callback' : 'webhook',
    delivery: delivery.id,
    event: delivery.event,
    url: delivery.url,
    attempt: sent.attempt,
    outcome: sent.outcome,
    ...(sent.error === undefined ? {} : { error: sent.error }),
    ...(sent.nextAttemptAt === undefined ? {} : { nextAttemptAt: sent.nextAttemptAt }),
    ...(sent.replay === true ? { replay: true as const } : {}),
  };
  return {
    id: `${delivery.id}.${sent.attempt}`,
    time: sent.at,
    wallTime,
    method: request.method,
    path: url.pathname,
    query: redactPairs(url.search.slice(1), r.query, r),
    workspace: delivery.workspace,
    status: response?.status ?? 0,
    durationMs: Math.round(sent.durationMs * 1000) / 1000,
    request: {
      headers: redactHeaders(request.headers, r),
      ...(request.body === '' ? {} : { body: textView(request.body, requestMime, r) }),
    },
    response: {
      headers: response === undefined ? {} : redactHeaders(response.headers, r),
      ...(response === undefined || response.body === '' ? {} : { body: textView(response.body, responseMime, r) }),
    },
    outbound,
  };
}
