/**
 * What `understudy receive` answers to one request, and the line it prints for it. Pure: the
 * request is handed in whole (read by receive.ts), and nothing is written here.
 */

import { Webhook } from 'standardwebhooks';
import { clockText } from './terminal-log.js';

/** How the receiver answers, from its flags. */
export interface ReceivePolicy {
  /** Requests answered 503 first (`--fail N`). */
  readonly fail: number;
  /** The answer to the others (`--status CODE`). */
  readonly status: number;
  /** The Standard Webhooks secret that signatures are checked with (`--secret`), if any. */
  readonly secret?: string;
}

/** One request, as it arrived. */
export interface TakenRequest {
  readonly method: string;
  /** The path and query, as sent. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Whether a request's signature verified: only asked when the receiver has a secret. */
export type SignatureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface Answer {
  readonly status: number;
  /** An error answer's body, in the sandbox's error shape; none for a success. */
  readonly body?: { readonly code: string; readonly message: string; readonly status: number };
  /** Why the answer is what it is, for the printed line (`--fail: 1 of 2`). */
  readonly note?: string;
  readonly signature?: SignatureCheck;
  /** Whether this request used up one of the `--fail` answers. */
  readonly failed: boolean;
}

/**
 * The signature check of Standard Webhooks (https://www.standardwebhooks.com/), by the
 * specification's own library: the three `webhook-*` headers, the HMAC over `id.timestamp.body`,
 * and a timestamp within five minutes of this machine's clock.
 */
export function checkSignature(secret: string, request: TakenRequest): SignatureCheck {
  try {
    new Webhook(secret).verify(request.body, { ...request.headers }, { jsonParse: false });
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The answer to a request, given how many `--fail` answers were given before it. A bad signature is
 * answered 401 whatever else holds, and does not use up a `--fail` answer: those are for the
 * deliveries a sender would retry.
 */
export function answerFor(policy: ReceivePolicy, failedSoFar: number, request: TakenRequest): Answer {
  const signature = policy.secret === undefined ? undefined : checkSignature(policy.secret, request);
  const checked = signature === undefined ? {} : { signature };
  if (signature?.ok === false) {
    const message = `the signature did not verify with --secret: ${signature.reason}`;
    return { status: 401, body: { code: 'invalid_signature', message, status: 401 }, failed: false, ...checked };
  }
  if (failedSoFar < policy.fail) {
    const note = `--fail: ${failedSoFar + 1} of ${policy.fail}`;
    const message = `failing on purpose (${note})`;
    return { status: 503, body: { code: 'receiver_failing', message, status: 503 }, note, failed: true, ...checked };
  }
  if (policy.status >= 400) {
    const message = `answering ${policy.status} to every request (--status ${policy.status})`;
    return { status: policy.status, body: { code: 'receiver_status', message, status: policy.status }, failed: false, ...checked };
  }
  return { status: policy.status, failed: false, ...checked };
}

/** The event a Standard Webhooks body names (its `type`), when the body is JSON with one. */
export function eventOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && 'type' in parsed && typeof parsed.type === 'string') return parsed.type;
  } catch {
    // Not JSON: no event to name.
  }
  return undefined;
}

/**
 * The line a person reads, e.g.
 * `10:04:05.123 POST /hooks webhook-id=msg_2x type=pets.created → 503 (--fail: 1 of 1)`.
 * A part the request does not have is left out.
 */
export function textLine(at: number, request: TakenRequest, answer: Answer): string {
  const id = request.headers['webhook-id'];
  const event = eventOf(request.body);
  const parts = [clockText(at), request.method, request.path];
  if (id !== undefined) parts.push(`webhook-id=${id}`);
  if (event !== undefined) parts.push(`type=${event}`);
  parts.push(`→ ${answer.status}`);
  if (answer.signature !== undefined) {
    parts.push(answer.signature.ok ? 'signature verified' : `signature INVALID (${answer.signature.reason})`);
  }
  if (answer.note !== undefined) parts.push(`(${answer.note})`);
  return `${parts.join(' ')}\n`;
}

/** The same as one JSON line, for scripts: the whole request (headers, body as sent) and the answer. */
export function jsonLine(at: number, request: TakenRequest, answer: Answer): string {
  const event = eventOf(request.body);
  return `${JSON.stringify({
    time: new Date(at).toISOString(),
    method: request.method,
    path: request.path,
    webhookId: request.headers['webhook-id'] ?? null,
    type: event ?? null,
    status: answer.status,
    signature: answer.signature === undefined ? null : answer.signature.ok ? 'verified' : 'invalid',
    ...(answer.signature?.ok === false && { signatureError: answer.signature.reason }),
    headers: request.headers,
    body: request.body,
  })}\n`;
}
