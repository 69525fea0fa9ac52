import { sendsJson } from './bindings.js';
import { escapePointerToken, follow, isObject } from './json-pointer.js';
import { readRequestBody } from './media.js';
import { asWritten, type Locate } from './original-location.js';
import { pathOperations } from './path-operations.js';

/** The extension a document's webhook names the store change it is sent for with (`pets.created`). */
export const EVENT_EXTENSION = 'x-understudy-event';

/** One of the document's own `webhooks` (OpenAPI 3.1 §4.8.1): what the API sends a subscriber. */
export interface DocumentWebhook {
  /** Its key in `webhooks` (`newPet`): what a subscription names. */
  readonly name: string;
  /** Where its operation is: `#/webhooks/newPet/post`. */
  readonly pointer: string;
  /** Its body's JSON schema, where it declares one (the schema itself, `$ref`s followed). */
  readonly bodyPointer: string | undefined;
  /** The store change it is declared for (`x-understudy-event`), if it declares one. */
  readonly event: string | undefined;
}

/** The document's `webhooks` (3.1 and later), each by name; a webhook whose body does not read is left out with a warning. */
export function documentWebhooks(document: unknown, locate: Locate = asWritten): { webhooks: DocumentWebhook[]; warnings: string[] } {
  const webhooks: DocumentWebhook[] = [];
  const warnings: string[] = [];
  if (!isObject(document) || !isObject(document.webhooks)) return { webhooks, warnings };
  const later = /^3\.(?:[2-9]|\d{2,})\./.test(String(document.openapi));
  for (const name of Object.keys(document.webhooks)) {
    const item = follow(document, `#/webhooks/${escapePointerToken(name)}`);
    if (!isObject(item.value)) continue;
    const [first] = pathOperations(item.value, item.pointer, locate(item.pointer), later).operations;
    if (first === undefined) continue;
    const { op, pointer } = first;
    try {
      const body = readRequestBody(document, op.requestBody, `${pointer}/requestBody`);
      const media = body?.content.find((m) => sendsJson(m)) ?? body?.content[0];
      const schema = media?.schemaPointer === undefined ? undefined : follow(document, media.schemaPointer).pointer;
      const declared = op[EVENT_EXTENSION] ?? item.value[EVENT_EXTENSION];
      webhooks.push({ name, pointer, bodyPointer: schema, event: typeof declared === 'string' ? declared : undefined });
    } catch (error) {
      warnings.push(`${locate(pointer)}: webhook ${name} is never sent: ${(error as Error).message}`);
    }
  }
  return { webhooks, warnings };
}
