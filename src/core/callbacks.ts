import { hash } from 'node:crypto';
import type { Generation } from '../generation/generation.js';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { seededFaker } from '../mock/seeded-faker.js';
import type { CallbacksDue } from '../pipeline/pipeline.js';
import { satisfies } from '../schemas/document-schemas.js';
import { fillCallbackPayload } from '../webhooks/callback-payload.js';
import type { Deliveries, JsonValue } from '../webhooks/deliveries.js';
import { expandParts } from '../webhooks/runtime-expression.js';

/**
 * Sends a succeeded operation's OpenAPI callbacks (docs/callbacks.md), after its answer: each to the
 * URL its runtime expression names, with a body generated from the callback's schema and filled by
 * name from the record, the answer and the request, through the delivery engine (signed, allow-
 * listed, retried on the workspace's clock; the callback's declared 2xx statuses deliver it). A URL
 * that does not expand (the request had no `callbackUrl`) is said in the log and sent nowhere.
 */
export function sendCallbacks(
  due: CallbacksDue,
  parts: {
    readonly workspace: string;
    readonly generation: Generation;
    readonly deliveries: Pick<Deliveries, 'enqueue'>;
    /** The secret every callback is signed with (`webhooks.callbackSecret`). */
    readonly secret: string;
    readonly seed: number;
    /** The workspace's sandbox time: the generated bodies' dates are near it. */
    readonly now: number;
    readonly warn: (message: string) => void;
  },
): void {
  const { context, record } = due;
  const document = parts.generation.model.document;
  for (const spec of due.specs) {
    const url = expandParts(spec.url, context);
    if (!url.ok) {
      parts.warn(`callback ${spec.name} (${spec.pointer}) not sent: ${url.reason}`);
      continue;
    }
    let payload: JsonValue | undefined;
    if (spec.requestBody !== undefined) {
      const pointer = spec.requestBody.schemaPointer;
      // The same callback of the same request gets the same body: seeded by the sandbox's seed, the
      // callback and its URL.
      const seed = Number.parseInt(hash('sha256', `${parts.seed}\u0000${spec.pointer}\u0000${url.value}`, 'hex').slice(0, 8), 16);
      const generated = pointer === undefined ? {} : fakeFromSchema(document, pointer, seededFaker(seed, new Date(parts.now)));
      const sources = { record, response: context.response.body, request: context.request.body };
      const fits = (value: unknown): boolean => satisfies(document, pointer, value);
      payload = fillCallbackPayload(generated, sources, { fits }).payload as JsonValue;
    }
    parts.deliveries
      .enqueue({
        workspace: parts.workspace,
        url: url.value,
        event: `callback.${spec.name}`,
        payload,
        method: spec.method,
        secret: parts.secret,
        ...(spec.anySuccess ? {} : { success: spec.successStatuses }),
      })
      .catch((error: unknown) => parts.warn(`callback ${spec.name}: ${(error as Error).message}`));
  }
}
