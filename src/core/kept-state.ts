import type { StatePart } from './state-parts.js';

/**
 * What a data file keeps beside the records so that workspaces survive a restart: each durable
 * part's state under its name (the keys issued, as digests: a key's value is never written
 * anywhere; the workspaces created; the clocks' offsets; the rules; the tokens minted; the named snapshots). Counters,
 * bans and the journal start afresh, as after a reset. A file written before rules and tokens were
 * kept has neither, and they start empty.
 */
export type KeptState = Readonly<Record<string, unknown>>;

export const keptState = (parts: readonly StatePart[]): KeptState =>
  Object.fromEntries(parts.flatMap((part) => (part.durable ? [[part.name, part.durable.save()]] : [])));

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Why a kept value does not read, or undefined. */
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
  const rule = Array.isArray(value.rules) ? value.rules.findIndex((r: unknown) => !isObject(r) || !isObject(r.rule)) : -1;
  if (value.rules !== undefined && !Array.isArray(value.rules)) return 'rules needs to be a list';
  if (rule >= 0) return `rules[${rule}] needs a rule`;
  if (
    value.tokens !== undefined &&
    (!Array.isArray(value.tokens) || !value.tokens.every((t: unknown) => Array.isArray(t) && isText(t[0])))
  ) {
    return 'tokens needs a list of [digest, token] pairs';
  }
  if (
    value.snapshots !== undefined &&
    (!Array.isArray(value.snapshots) ||
      !value.snapshots.every((s: unknown) => isObject(s) && isText(s.workspace) && isObject(s.snapshot) && isText(s.snapshot.name)))
  ) {
    return 'snapshots needs a list of { workspace, snapshot } with a named snapshot';
  }
  return undefined;
}

/** Puts kept state back at start, part by part in the list's order; a value that does not read stops the start, naming the file. */
export function restoreKept(value: unknown, parts: readonly StatePart[], file: string): void {
  if (value === undefined) return;
  const problem = problemOf(value);
  if (problem) throw new Error(`the data file ${file} holds sandbox state that does not read (${problem}); it was left untouched`);
  const kept = value as KeptState;
  for (const part of parts) if (part.durable && kept[part.name] !== undefined) part.durable.load(kept[part.name]);
}
