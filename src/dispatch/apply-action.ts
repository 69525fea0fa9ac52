import { follow, isObject } from '../openapi/json-pointer.js';
import { propertySchema } from '../openapi/bindings.js';
import type { ValidInput } from '../validation/request-validator.js';

/**
 * An action on one record (`POST /orders/{id}/cancel`, `POST /customers/{id}`, `POST /pet/{petId}?status=sold`):
 * what it sets. The record fields its body names, those its query parameters name, and the state
 * its verb names: `cancel` sets a `status` (or `state`) enum to `cancelled`, `approve` to `approved`.
 */

/** The state field and value a verb sets: the record's enum holding the verb's past form. */
export interface VerbState {
  readonly field: string;
  readonly value: string;
}

const STATE_FIELDS = ['status', 'state', 'stage', 'phase'];

/** The verb of an action path (`/orders/{id}/cancel` → `cancel`), and the state it sets in the record, if any. */
export function verbState(document: unknown, recordPointer: string | undefined, pathTemplate: string): VerbState | undefined {
  const verb = pathTemplate.split('/').at(-1) ?? '';
  if (recordPointer === undefined || verb.startsWith('{') || verb === '') return undefined;
  const { value: record, pointer } = follow(document, recordPointer);
  if (!isObject(record)) return undefined;
  // `cancel` → `cancel`, `approve` → `approv`, `ship` → `ship`: the past form starts with the stem.
  const stem = verb.toLowerCase().replace(/e$/, '');
  for (const field of STATE_FIELDS) {
    const prop = propertySchema(document, record, pointer, field);
    const values = isObject(prop) && Array.isArray(prop.enum) ? prop.enum : [];
    const value = values.find((v): v is string => typeof v === 'string' && v.toLowerCase().startsWith(stem) && /(ed|led)$/i.test(v));
    if (value !== undefined) return { field, value };
  }
  return undefined;
}

/** What the action sets: its verb's state, then the record fields its query and body name (the body last). */
export function actionChanges(
  input: ValidInput,
  queryFields: readonly string[],
  writable: ReadonlySet<string> | undefined,
  state: VerbState | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (state) out[state.field] = state.value;
  for (const name of queryFields) if (input.query[name] !== undefined) out[name] = input.query[name];
  const body = input.body;
  if (isObject(body)) for (const name of Object.keys(body)) if (writable?.has(name)) out[name] = body[name];
  return out;
}
