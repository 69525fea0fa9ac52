import type { StoreChange } from '../vocabulary/record.js';
import type { JsonValue } from './message.js';

/**
 * What a subscription listens for, read from its `event` text:
 * - `record.created`, `record.updated`, `record.deleted`: that change to a record of any collection;
 * - `pets.created`, `pets.updated`, `pets.deleted`: that change to a record of one collection (its
 *   name as `understudy explain` prints it);
 * - `pets.status=sold`: a record of the collection whose field takes that value (created with it, or
 *   changed to it from another), the transition real providers send (`order.paid`).
 * `updated` covers a replacement and a partial update alike.
 */
export type EventPattern =
  | { readonly kind: 'change'; readonly collection: string | undefined; readonly action: Action }
  | { readonly kind: 'field'; readonly collection: string; readonly field: string; readonly value: string };

type Action = 'created' | 'updated' | 'deleted';

const ACTIONS: ReadonlySet<string> = new Set(['created', 'updated', 'deleted']);

/** The pattern an event text names, or why it names none (said at the field that holds it). */
export function parseEvent(text: string): { readonly pattern: EventPattern } | { readonly problem: string } {
  const field = /^(.+?)\.([^.=]+)=(.*)$/.exec(text);
  if (field) {
    const [, collection = '', name = '', value = ''] = field;
    if (value === '') return { problem: 'names no value after "=" (pets.status=sold)' };
    return { pattern: { kind: 'field', collection, field: name, value } };
  }
  const dot = text.lastIndexOf('.');
  const action = text.slice(dot + 1);
  if (dot <= 0 || !ACTIONS.has(action)) {
    return {
      problem:
        'must be record.created, record.updated, record.deleted, <collection>.<created|updated|deleted> or <collection>.<field>=<value>',
    };
  }
  const collection = text.slice(0, dot);
  return { pattern: { kind: 'change', collection: collection === 'record' ? undefined : collection, action: action as Action } };
}

const actionOf = (change: StoreChange): Action =>
  change.kind === 'created' ? 'created' : change.kind === 'deleted' ? 'deleted' : 'updated';

/** A field's value as an event text compares it: text as it is, anything else as JSON (`true`, `3`). */
const asText = (value: unknown): string | undefined =>
  value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value);

/** Whether a store change is one the pattern listens for. */
export function matches(pattern: EventPattern, change: StoreChange): boolean {
  if (pattern.kind === 'change') {
    return actionOf(change) === pattern.action && (pattern.collection === undefined || pattern.collection === change.collection);
  }
  if (pattern.collection !== change.collection || change.after === undefined) return false;
  const now = asText(change.after[pattern.field]);
  // A transition: the field takes the value now, and did not have it before (a create has no before).
  return now === pattern.value && asText(change.before?.[pattern.field]) !== pattern.value;
}

/**
 * The body a subscription's delivery carries, in the shape Standard Webhooks recommends: the event's
 * `type`, when it happened (`timestamp`, on the workspace's sandbox clock), and `data`: the
 * collection, the record's id, what happened, and the record as the document shows it (after the
 * change; before it, for a deletion), with the record before the change beside it for an update.
 */
export function eventPayload(event: string, change: StoreChange, at: number): JsonValue {
  // A record is what a JSON body made or the seed generated: JSON through and through.
  const record = (change.after ?? change.before ?? null) as JsonValue;
  const previous = change.before as JsonValue;
  return {
    type: event,
    timestamp: new Date(at).toISOString(),
    data: {
      collection: change.collection,
      id: change.id,
      change: actionOf(change),
      record,
      ...(change.after !== undefined && change.before !== undefined ? { previous } : {}),
    },
  };
}
