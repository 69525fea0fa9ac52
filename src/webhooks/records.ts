import type { OutboundRequest, ReceivedAnswer } from './send.js';

/**
 * How an attempt ended: `delivered` a 2xx; `failed` any other answer, a connection that failed or
 * closed, an answer over the size cap, a name that did not resolve; `timeout` no full answer in time;
 * `refused` never attempted, because the allow-list forbids the address.
 */
export type AttemptOutcome = 'delivered' | 'failed' | 'refused' | 'timeout';

/** One attempt, as the journal and the console will show it. */
export interface AttemptRecord {
  /** 1 for the first attempt, counting retries and replays alike. */
  readonly attempt: number;
  /** When it started, on the workspace's sandbox clock (ms since the epoch). */
  readonly at: number;
  readonly request: OutboundRequest;
  readonly response?: ReceivedAnswer;
  readonly error?: string;
  /** Wall time the attempt took (the network does not run on the sandbox clock). */
  readonly durationMs: number;
  readonly outcome: AttemptOutcome;
  /** When the next retry is due on the sandbox clock; absent when none will follow. */
  readonly nextAttemptAt?: number;
  /** Set on an attempt made by `replay`, which stands outside the retry schedule. */
  readonly replay?: true;
}

/**
 * `pending` has an attempt due or under way; `delivered` a receiver took it; `failed` every attempt
 * failed; `refused` it was never sent (the allow-list, a full queue, a bad secret: see `reason`).
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'refused';

/** A message and every attempt to deliver it. */
export interface Delivery {
  /** The Standard Webhooks message id (`msg_…`), the same on every attempt and replay. */
  readonly id: string;
  readonly workspace: string;
  readonly event: string;
  readonly url: string;
  readonly status: DeliveryStatus;
  /** When it was queued, on the workspace's sandbox clock. */
  readonly createdAt: number;
  /** When the next attempt is due on the sandbox clock, while one is scheduled. */
  readonly nextAttemptAt?: number;
  /** Why it was refused. */
  readonly reason?: string;
  readonly attempts: readonly AttemptRecord[];
}

/** What the store keeps beside the record: what every attempt needs to send and sign again. */
export interface StoredDelivery extends Delivery {
  readonly body: string;
  /** Upper case; absent: POST (deliveries stored before callbacks had a method). */
  readonly method?: string;
  /** The statuses that deliver it; absent: any 2xx. */
  readonly success?: readonly number[];
  readonly secret: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A replay asked for and not yet made. */
  readonly replayRequested?: true;
}

/** The record without what must not leave the engine (the secret) or repeats the attempts (the body). */
export function publicDelivery(stored: StoredDelivery): Delivery {
  const {
    body: _body,
    secret: _secret,
    headers: _headers,
    replayRequested: _replay,
    method: _method,
    success: _success,
    ...delivery
  } = stored;
  return delivery;
}

export interface DeliveryFilter {
  readonly workspace?: string;
  readonly status?: DeliveryStatus;
}
