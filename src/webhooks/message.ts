import { validateHeaderName, validateHeaderValue } from 'node:http';

/** A JSON value, what a webhook's body is made of. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface EnqueueInput {
  readonly workspace: string;
  readonly url: string;
  /** The receiver's Standard Webhooks secret (`whsec_…`); a fresh one when absent. */
  readonly secret?: string;
  /** What happened (`order.created`), kept on the record; the payload carries what the receiver reads. */
  readonly event: string;
  /** The body, sent as JSON; absent: no body (a callback that declares none). */
  readonly payload: JsonValue | undefined;
  /** Upper case; POST when absent (every webhook). */
  readonly method?: string;
  /** The statuses that deliver it (a callback's declared 2xx); any 2xx when absent. */
  readonly success?: readonly number[];
  /** Sent as they are, except those the engine owns (Host, Content-*, the webhook-* headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Enqueued {
  readonly id: string;
  readonly secret: string;
  readonly status: 'pending' | 'refused';
  readonly reason?: string;
}

/** Headers the engine sets itself; a caller's own are dropped. */
const OWNED = /^(host|content-length|content-type|transfer-encoding|connection|webhook-(id|timestamp|signature))$/i;

/** The caller's headers, less those the engine sets itself (a caller's Host or signature would be a lie). */
export const callersHeaders = (headers: Readonly<Record<string, string>> = {}): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !OWNED.test(name)));

/** Why the caller's headers cannot be sent (a bad name, a line break in a value), checked when queued. */
export function headerProblem(headers: Readonly<Record<string, string>>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return `the header ${JSON.stringify(name)} cannot be sent as it is`;
    }
  }
  return undefined;
}
