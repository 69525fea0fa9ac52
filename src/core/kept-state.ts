import type { IssuedKeyRecord, KeyRegistry } from '../auth/key-registry.js';
import type { ClocksSnapshot, WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { RegistrySnapshot } from '../workspaces/registry.js';
import type { Workspaces } from '../workspaces/workspaces.js';

/**
 * What a data file keeps beside the records so that workspaces survive a restart: the keys issued
 * (as digests: a key's value is never written anywhere), the workspaces created, the clocks' offsets.
 * Counters, bans, rules and the journal start afresh, as after a reset.
 */
export interface KeptState {
  readonly keys: readonly IssuedKeyRecord[];
  readonly workspaces: RegistrySnapshot;
  readonly clocks: ClocksSnapshot;
}

export interface KeptParts {
  readonly keys: Pick<KeyRegistry, 'issued' | 'restoreIssued'>;
  readonly workspaces: Pick<Workspaces, 'snapshot' | 'restore'>;
  readonly clocks: Pick<WorkspaceClocks, 'snapshot' | 'restore'>;
}

export const keptState = (parts: KeptParts): KeptState => ({
  keys: parts.keys.issued(),
  workspaces: parts.workspaces.snapshot(),
  clocks: parts.clocks.snapshot(),
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Why a kept value is not a KeptState, or undefined. */
function problemOf(value: unknown): string | undefined {
  if (!isObject(value) || !Array.isArray(value.keys) || !isObject(value.workspaces) || !isObject(value.clocks)) {
    return 'it needs keys, workspaces and clocks';
  }
  const key = value.keys.findIndex(
    (k: unknown) => !isObject(k) || !isText(k.digest) || !isText(k.id) || !isText(k.plan) || !isText(k.workspace),
  );
  if (key >= 0) return `keys[${key}] needs digest, id, plan and workspace`;
  const { created, evicted } = value.workspaces;
  if (!Array.isArray(created) || !Array.isArray(evicted)) return 'workspaces needs created and evicted lists';
  const workspace = created.findIndex((w: unknown) => !isObject(w) || !isText(w.id) || !isNumber(w.createdAt) || !isNumber(w.lastUsedAt));
  if (workspace >= 0) return `workspaces.created[${workspace}] needs id, createdAt and lastUsedAt`;
  const { shared, own } = value.clocks;
  if (!isNumber(shared) || !isObject(own) || !Object.values(own).every(isNumber)) return 'clocks needs a shared offset and own offsets';
  return undefined;
}

/** Puts kept state back at start; a value that is not one stops the start, naming the file. */
export function restoreKept(value: unknown, parts: KeptParts, file: string): void {
  if (value === undefined) return;
  const problem = problemOf(value);
  if (problem) throw new Error(`the data file ${file} holds sandbox state that does not read (${problem}); it was left untouched`);
  const kept = value as KeptState;
  parts.workspaces.restore(kept.workspaces);
  parts.keys.restoreIssued(kept.keys);
  parts.clocks.restore(kept.clocks);
}
