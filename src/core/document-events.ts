import { hash } from 'node:crypto';
import type { Generation } from '../generation/generation.js';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { seededFaker } from '../mock/seeded-faker.js';
import { documentWebhooks } from '../openapi/document-webhooks.js';
import { follow } from '../openapi/json-pointer.js';
import { satisfies } from '../schemas/document-schemas.js';
import type { StoreChange } from '../vocabulary/record.js';
import { fillCallbackPayload } from '../webhooks/callback-payload.js';
import type { JsonValue } from '../webhooks/deliveries.js';

/** A document's webhook tied to a store change: a subscription may name it (`newPet`). */
export interface TiedWebhook {
  readonly name: string;
  /** The change it is sent for, in a subscription's words (`pets.created`). */
  readonly event: string;
  readonly bodyPointer: string | undefined;
}

const VERBS: readonly [string, RegExp][] = [
  ['created', /^(new|create|created|add|added|insert|inserted)$/],
  ['updated', /^(update|updated|change|changed|modify|modified|edit|edited)$/],
  ['deleted', /^(delete|deleted|remove|removed|destroy|destroyed)$/],
];

/** A webhook's name in words: `newPet`, `pet.created`, `PET_CREATED` → new pet, pet created. */
const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');

/**
 * The document's webhooks tied to store changes: by `x-understudy-event`, else by schema and name:
 * a webhook whose body is a collection's record schema, named with a verb (`newPet`, `petUpdated`,
 * `pet.deleted`), is sent when a record of that collection is created, updated or deleted. One that
 * cannot be tied is named in a warning, with how to tie it.
 */
export function tiedWebhooks(generation: Generation): { readonly tied: ReadonlyMap<string, TiedWebhook>; readonly warnings: string[] } {
  const { document, locate } = generation.model;
  const { webhooks, warnings } = documentWebhooks(document, locate);
  const tied = new Map<string, TiedWebhook>();
  if (webhooks.length === 0) return { tied, warnings };
  const bySchema = new Map<string, string>();
  for (const { binding } of generation.operations) {
    const collection = binding.operation.binding.resource;
    if (collection !== undefined && binding.recordPointer !== undefined)
      bySchema.set(follow(document, binding.recordPointer).pointer, collection);
  }
  for (const webhook of webhooks) {
    const collection = webhook.bodyPointer === undefined ? undefined : bySchema.get(webhook.bodyPointer);
    const verb = VERBS.find(([, pattern]) => words(webhook.name).some((word) => pattern.test(word)))?.[0];
    const event = webhook.event ?? (collection !== undefined && verb !== undefined ? `${collection}.${verb}` : undefined);
    if (event === undefined) {
      warnings.push(
        `${locate(webhook.pointer)}: webhook ${webhook.name} is tied to no store change (its body is no collection's record, or its name says no change): declare one with x-understudy-event (pets.created)`,
      );
      continue;
    }
    tied.set(webhook.name, { name: webhook.name, event, bodyPointer: webhook.bodyPointer });
  }
  return { tied, warnings };
}

/**
 * A document webhook's body for a change: generated from its schema and filled by name from the
 * record (the record itself, when the schema is the record's), seeded by the webhook and the record.
 */
export function webhookBody(generation: Generation, webhook: TiedWebhook, change: StoreChange, seed: number, at: number): JsonValue {
  const record = change.after ?? change.before ?? {};
  const pointer = webhook.bodyPointer;
  if (pointer === undefined) return record as JsonValue;
  const { document } = generation.model;
  const salt = Number.parseInt(
    hash('sha256', `${seed}\u0000${webhook.name}\u0000${change.collection}/${change.id}`, 'hex').slice(0, 8),
    16,
  );
  const generated = fakeFromSchema(document, pointer, seededFaker(salt, new Date(at)));
  return fillCallbackPayload(generated, { record }, { fits: (value) => satisfies(document, pointer, value) }).payload as JsonValue;
}
