import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { TransitionConfig } from '../config/config.js';
import { shown } from '../dispatch/context.js';
import { propertiesOf, propertySchema } from '../dispatch/record-fields.js';
import type { ResolvedBinding } from '../dispatch/resolve-binding.js';
import type { Generation } from '../generation/generation.js';
import type { RecordStore } from '../store/record-store.js';
import { readTransitions, type TransitionRule, type WrittenTransition } from '../transitions/rules.js';
import type { Schedule } from '../transitions/schedule.js';
import { Transitions } from '../transitions/transitions.js';
import type { Row, StoreChange } from '../vocabulary/record.js';

/** The extension a record schema's property declares its timed transitions with. */
export const TRANSITIONS_EXTENSION = 'x-understudy-transitions';

/**
 * The transition rules the config and the document declare, or the problems with them (each naming
 * where it is): the config's `transitions` list, then each `x-understudy-transitions` on a property
 * of a collection's record schema. A field declared in both takes the config's.
 */
export function declaredTransitions(
  config: readonly TransitionConfig[],
  generation: Generation,
): { readonly rules: TransitionRule[]; readonly problems: string[] } {
  const rules: TransitionRule[] = [];
  const problems: string[] = [];
  const declared = new Set<string>();
  const add = (collection: string, field: string, written: readonly WrittenTransition[], where: string): void => {
    if (declared.has(`${collection}\u0000${field}`)) return;
    declared.add(`${collection}\u0000${field}`);
    const read = readTransitions(collection, field, written);
    if ('problem' in read) problems.push(`${where}.${read.problem}`);
    else rules.push(...read.rules);
  };
  const byField = new Map<string, WrittenTransition[]>();
  for (const t of config) byField.set(`${t.collection}\u0000${t.field}`, [...(byField.get(`${t.collection}\u0000${t.field}`) ?? []), t]);
  for (const [id, written] of byField) {
    const [collection = '', field = ''] = id.split('\u0000');
    add(collection, field, written, `transitions (${collection}.${field})`);
  }
  for (const { binding } of generation.operations) {
    const collection = binding.operation.binding.resource;
    if (collection === undefined || binding.recordPointer === undefined) continue;
    for (const field of propertiesOf(binding.document, binding.recordPointer, true)) {
      const written = propertySchema(binding.document, binding.recordPointer, field)?.[TRANSITIONS_EXTENSION];
      if (written === undefined) continue;
      const where = `${binding.recordPointer}/properties/${field}/${TRANSITIONS_EXTENSION}`;
      if (!Array.isArray(written) || !written.every(isWritten)) problems.push(`${where} must be a list of {from, to, after}`);
      else add(collection, field, written, where);
    }
  }
  return { rules, problems };
}

const isWritten = (value: unknown): value is WrittenTransition =>
  typeof value === 'object' &&
  value !== null &&
  ['string', 'number', 'boolean'].includes(typeof (value as Record<string, unknown>).from) &&
  ['string', 'number', 'boolean'].includes(typeof (value as Record<string, unknown>).to) &&
  ['string', 'number'].includes(typeof (value as Record<string, unknown>).after);

/**
 * The transitions wired to the store, the workspaces' clocks and the current generation (which
 * shows a record and knows its update timestamps), telling each change made to `emit`.
 */
export function transitionsPart(
  rules: readonly TransitionRule[],
  parts: {
    readonly store: Pick<RecordStore, 'update'>;
    readonly clocks: WorkspaceClocks;
    readonly generation: () => Generation;
    readonly emit: (change: StoreChange) => void;
    readonly warn: (message: string) => void;
    /** Where the fields followed are kept: this process's memory unless given (Redis's, shared by the replicas). */
    readonly schedule?: Schedule | undefined;
  },
): Transitions {
  const bindingOf = (collection: string): ResolvedBinding | undefined => {
    const bindings = parts.generation().operations.map((op) => op.binding);
    return (
      bindings.find((b) => b.operation.binding.resource === collection && b.operation.binding.action === 'read') ??
      bindings.find((b) => b.operation.binding.resource === collection)
    );
  };
  const report = (error: unknown): void => parts.warn(`transitions: ${error instanceof Error ? error.message : String(error)}`);
  return new Transitions(
    rules,
    {
      now: (workspace) => parts.clocks.of(workspace).now(),
      update: (workspace, collection, key, change) => parts.store.update(workspace, collection, key, change),
      shown: (collection, row: Row) => {
        const binding = bindingOf(collection);
        return binding === undefined ? row : shown(binding, row);
      },
      stamp: (collection, fields, at) => {
        const updated = bindingOf(collection)?.timestamps.updated ?? [];
        if (updated.length === 0) return fields;
        const iso = new Date(at).toISOString();
        return { ...fields, ...Object.fromEntries(updated.map((name) => [name, iso])) };
      },
      emit: parts.emit,
      report,
    },
    parts.schedule,
  );
}
