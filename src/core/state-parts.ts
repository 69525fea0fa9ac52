import type { IssuedKeyRecord, KeyRegistry } from '../auth/key-registry.js';
import type { MintedToken, TokenStore } from '../auth/token-store.js';
import type { ClocksSnapshot, WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { DrawStreams } from '../faults/draws.js';
import type { Journal } from '../journal/journal.js';
import type { Limiter } from '../limits/limiter.js';
import type { SharedPart } from '../replicas/shared-state.js';
import type { RuleStore } from '../rules/rule-store.js';
import type { RuleStatus } from '../rules/rule.js';
import type { SandboxStore } from '../store/record-store.js';
import type { RegistrySnapshot } from '../workspaces/registry.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import type { Tracked, Transitions } from '../transitions/transitions.js';
import type { KeptSnapshot, SnapshotBook } from '../workspaces/snapshot-book.js';
import { checkClock, checkCounters, checkRecords, checkRules, checkTransitions, type PartCheck } from '../workspaces/snapshot-document.js';
import type { CapturedRecords } from '../store/record-store.js';
import type { CapturedCounters } from '../limits/counter-store.js';
import type { Rule } from '../rules/rule.js';
import type { WebhooksPart } from './webhooks.js';
import type { MadeSubscription } from '../webhooks/subscriptions.js';

/** A workspace as the parts forget it: its id and the safe ids of the keys working in it. */
export interface WorkspaceScope {
  readonly id: string;
  readonly keyIds: ReadonlySet<string>;
}

/**
 * What a part holds of one workspace, taken into a named snapshot and put back exactly
 * (docs/snapshots.md). Records, counters and bans, the clock, the rules and the timed transitions'
 * follow-up take part; keys, the journal and webhooks do not (docs/decisions/0026-snapshots.md).
 */
export interface WorkspaceCapture {
  /** What the part holds of the workspace now, as JSON: nothing at all for a workspace that never used it. */
  capture(scope: WorkspaceScope): unknown;
  /** What it holds of the workspace becomes the captured value exactly; `takenAt` is when it was captured, on the workspace's clock. */
  restore(scope: WorkspaceScope, value: unknown, takenAt: number): void | Promise<void>;
  /** The problems of a value read from a file (an imported snapshot), each located. */
  readonly check: PartCheck;
}

/**
 * One part of what a sandbox holds beyond its document (issued keys, workspaces, clocks, rules,
 * tokens, draws, the journal, webhooks, transitions, records, counters, deliveries), and what each
 * of the sandbox's operations on state does with it. A reset, a workspace's reset, the data file
 * and the replicas each iterate one list of these (`stateParts`), so no part is left out of one.
 */
export interface StatePart {
  readonly name: string;
  /**
   * `replica`: held in this process, so each replica resets its own; `backend`: held where the
   * records or counters are (on Redis, one copy for every replica), reset once.
   */
  readonly held: 'replica' | 'backend';
  /**
   * Back to the start: the seed, the configured keys and subscriptions, the clocks at zero. A
   * `replica` part's reset is synchronous (`resetReplicaParts`).
   */
  reset(): void | Promise<void>;
  /** Forgets what it holds of one workspace (a workspace reset or removed); absent: nothing per workspace. */
  forget?(scope: WorkspaceScope): void | Promise<void>;
  /** Kept in a data file across a restart: its state as JSON, and put back from it (absent in an older file). */
  readonly durable?: { save(): unknown; load(value: unknown): void };
  /** Shared with the other replicas through Redis, entry by entry (`SharedState`). */
  readonly shared?: Omit<SharedPart, 'name'>;
  /** Taken into a workspace's snapshots, and put back from them. */
  readonly perWorkspace?: WorkspaceCapture;
}

export interface StateOwners {
  readonly store: Pick<SandboxStore, 'reset' | 'forget' | 'capture' | 'restore'>;
  readonly limiter: Pick<Limiter, 'reset' | 'forget' | 'capture' | 'restore'>;
  readonly keys: Pick<KeyRegistry, 'reset' | 'issued' | 'restoreIssued' | 'replaceIssued'>;
  readonly workspaces: Pick<Workspaces, 'resetAll' | 'snapshot' | 'restore' | 'replaceCreated'>;
  readonly clocks: Pick<WorkspaceClocks, 'reset' | 'forget' | 'snapshot' | 'restore' | 'replace' | 'of' | 'follows' | 'place'>;
  readonly rules: Pick<RuleStore, 'reset' | 'removeWhere' | 'held' | 'replace' | 'putBack'>;
  readonly tokens: Pick<TokenStore, 'reset' | 'held' | 'replace'>;
  readonly draws: Pick<DrawStreams, 'reset'>;
  readonly journal: Pick<Journal, 'clear'>;
  readonly webhooks: Pick<WebhooksPart, 'subscriptions' | 'deliveries' | 'forget'>;
  readonly transitions: Pick<Transitions, 'reset' | 'forget' | 'capture' | 'restore'>;
  readonly snapshots: SnapshotBook;
}

const parsed = <T>(entries: ReadonlyMap<string, string>): [string, T][] => [...entries].map(([id, value]) => [id, JSON.parse(value) as T]);
const SHARED_CLOCK = 'shared';
const OWN_CLOCK = 'own:';
/** A configured webhook subscription removed, as its entry says it (an admin-made one's entry is the subscription). */
const REMOVED = '"removed"';
const ruleNumber = (status: RuleStatus): number => Number(status.rule.id.slice('rule_'.length)) || 0;
/** A workspace's rules: those scoped to it, or to one of its keys. */
const ruleIn =
  (scope: WorkspaceScope) =>
  (rule: Rule): boolean =>
    rule.match.workspace === scope.id || (rule.match.key !== undefined && scope.keyIds.has(rule.match.key));
/** Captured rules as they go back into a workspace (perhaps another): scoped to it, and only to keys working in it. */
const rulesFor = (scope: WorkspaceScope, statuses: readonly RuleStatus[]): RuleStatus[] =>
  statuses
    .filter(({ rule }) => rule.match.key === undefined || scope.keyIds.has(rule.match.key))
    .map((status) =>
      status.rule.match.workspace === undefined
        ? status
        : { ...status, rule: { ...status.rule, match: { ...status.rule.match, workspace: scope.id } } },
    );
/** Captured counters of the keys working in the workspace only: another workspace's keys are never touched. */
const countersFor = (scope: WorkspaceScope, captured: Readonly<Record<string, CapturedCounters>>): Record<string, CapturedCounters> =>
  Object.fromEntries(Object.entries(captured).filter(([client]) => scope.keyIds.has(client)));

/**
 * Every part of the state, in the order a reset runs (the backend's first, then this replica's) and
 * a data file is read back (workspaces before the keys working in them).
 */
export function stateParts(o: StateOwners): readonly StatePart[] {
  return [
    {
      name: 'records',
      held: 'backend',
      reset: () => o.store.reset(),
      forget: (scope) => o.store.forget(scope.id),
      perWorkspace: {
        capture: (scope) => o.store.capture(scope.id),
        restore: (scope, value) => o.store.restore(scope.id, value as CapturedRecords),
        check: checkRecords,
      },
    },
    {
      name: 'counters',
      held: 'backend',
      reset: () => o.limiter.reset(),
      forget: (scope) => o.limiter.forget([...scope.keyIds]),
      perWorkspace: {
        capture: (scope) => o.limiter.capture([...scope.keyIds]),
        restore: (scope, value, takenAt) =>
          o.limiter.restore([...scope.keyIds], countersFor(scope, value as Record<string, CapturedCounters>), takenAt),
        check: checkCounters,
      },
    },
    { name: 'deliveries', held: 'backend', reset: () => o.webhooks.deliveries.reset() },
    {
      name: 'workspaces',
      held: 'replica',
      reset: () => o.workspaces.resetAll(),
      durable: { save: () => o.workspaces.snapshot(), load: (value) => o.workspaces.restore(value as RegistrySnapshot) },
      shared: {
        read: () => new Map(o.workspaces.snapshot().created.map((w) => [w.id, JSON.stringify(w)])),
        write: (entries) => o.workspaces.replaceCreated(parsed<RegistrySnapshot['created'][number]>(entries).map(([, w]) => w)),
      },
    },
    {
      name: 'keys',
      held: 'replica',
      reset: () => o.keys.reset(),
      // A workspace's keys outlive its reset; its removal revokes them (`Workspaces.remove`).
      durable: { save: () => o.keys.issued(), load: (value) => o.keys.restoreIssued(value as IssuedKeyRecord[]) },
      shared: {
        read: () => new Map(o.keys.issued().map(({ digest, ...record }) => [digest, JSON.stringify(record)])),
        write: (entries) =>
          o.keys.replaceIssued(parsed<Omit<IssuedKeyRecord, 'digest'>>(entries).map(([digest, record]) => ({ digest, ...record }))),
      },
    },
    {
      name: 'clocks',
      held: 'replica',
      reset: () => o.clocks.reset(),
      forget: (scope) => o.clocks.forget(scope.id),
      perWorkspace: {
        capture: (scope) => ({ now: o.clocks.of(scope.id).now(), follows: o.clocks.follows(scope.id) }),
        restore: (scope, value) => {
          const { now, follows } = value as { readonly now: number; readonly follows: boolean };
          o.clocks.place(scope.id, now, follows);
        },
        check: checkClock,
      },
      durable: { save: () => o.clocks.snapshot(), load: (value) => o.clocks.restore(value as ClocksSnapshot) },
      shared: {
        read: () => {
          const { shared, own } = o.clocks.snapshot();
          return new Map([
            [SHARED_CLOCK, String(shared)],
            ...Object.entries(own).map(([id, offset]): [string, string] => [`${OWN_CLOCK}${id}`, String(offset)]),
          ]);
        },
        write: (entries) => {
          const own: Record<string, number> = {};
          for (const [id, offset] of entries) if (id.startsWith(OWN_CLOCK)) own[id.slice(OWN_CLOCK.length)] = Number(offset);
          o.clocks.replace({ shared: Number(entries.get(SHARED_CLOCK) ?? 0), own });
        },
      },
    },
    {
      name: 'rules',
      held: 'replica',
      reset: () => o.rules.reset(),
      forget: (scope) => void o.rules.removeWhere(ruleIn(scope)),
      perWorkspace: {
        capture: (scope) => o.rules.held().filter(({ rule }) => ruleIn(scope)(rule)),
        restore: (scope, value) => o.rules.putBack(ruleIn(scope), rulesFor(scope, value as RuleStatus[])),
        check: checkRules,
      },
      durable: { save: () => o.rules.held(), load: (value) => o.rules.replace(value as RuleStatus[]) },
      shared: {
        // A hash has no order: rules are sorted back into the order they were created in (newest is tried first).
        read: () => new Map(o.rules.held().map((status) => [status.rule.id, JSON.stringify(status)])),
        write: (entries) =>
          o.rules.replace(
            parsed<RuleStatus>(entries)
              .map(([, status]) => status)
              .sort((a, b) => ruleNumber(a) - ruleNumber(b)),
          ),
      },
    },
    {
      name: 'tokens',
      held: 'replica',
      reset: () => o.tokens.reset(),
      durable: {
        save: () => [...o.tokens.held()],
        load: (value) => o.tokens.replace(new Map(value as [string, MintedToken][])),
      },
      shared: {
        read: () => new Map([...o.tokens.held()].map(([digest, token]) => [digest, JSON.stringify(token)])),
        write: (entries) => o.tokens.replace(new Map(parsed<MintedToken>(entries))),
      },
    },
    { name: 'draws', held: 'replica', reset: () => o.draws.reset() },
    {
      name: 'journal',
      held: 'replica',
      reset: () => void o.journal.clear(),
      forget: (scope) => void o.journal.clear({ workspace: scope.id }),
    },
    {
      name: 'webhooks',
      held: 'replica',
      reset: () => o.webhooks.subscriptions.reset(),
      // A workspace's subscriptions and its deliveries go together.
      forget: (scope) => o.webhooks.forget(scope.id),
      // Admin-made subscriptions by id, and the configured ones removed (as `"removed"`).
      shared: {
        read: () => {
          const { made, removed } = o.webhooks.subscriptions.shared();
          return new Map([
            ...made.map(({ id, ...subscription }): [string, string] => [id, JSON.stringify(subscription)]),
            ...removed.map((id): [string, string] => [id, REMOVED]),
          ]);
        },
        write: (entries) => {
          const made = [...entries].filter(([, value]) => value !== REMOVED);
          o.webhooks.subscriptions.replaceShared({
            made: parsed<Omit<MadeSubscription, 'id'>>(new Map(made)).map(([id, subscription]) => ({ id, ...subscription })),
            removed: [...entries].filter(([, value]) => value === REMOVED).map(([id]) => id),
          });
        },
      },
    },
    {
      // The transitions followed: on Redis one schedule for every replica (reset once), else this process's.
      name: 'transitions',
      held: 'backend',
      reset: () => o.transitions.reset(),
      forget: (scope) => o.transitions.forget(scope.id),
      // Which records move on the clock, and since when: a restored record in a state moves on at its time.
      perWorkspace: {
        capture: async (scope) => (await o.transitions.capture(scope.id)).map(({ workspace: _workspace, ...tracked }) => tracked),
        restore: (scope, value) => o.transitions.restore(scope.id, value as Omit<Tracked, 'workspace'>[]),
        check: checkTransitions,
      },
    },
    {
      // The named snapshots themselves: a reset goes back to those imported at start; a workspace's
      // reset keeps them (they are what it goes back to); a workspace that is gone takes them along.
      name: 'snapshots',
      held: 'replica',
      reset: () => o.snapshots.reset(),
      durable: { save: () => o.snapshots.save(), load: (value) => o.snapshots.load(value as KeptSnapshot[]) },
      shared: { read: () => o.snapshots.entries(), write: (entries) => o.snapshots.replace(entries) },
    },
  ];
}

/** Each part's forgetting of one workspace, in the list's order. */
export async function forgetWorkspace(parts: readonly StatePart[], scope: WorkspaceScope): Promise<void> {
  for (const part of parts) await part.forget?.(scope);
}

/** The parts held where the records and counters are back to the start: once, whatever the replicas. */
export async function resetBackendParts(parts: readonly StatePart[]): Promise<void> {
  for (const part of parts) if (part.held === 'backend') await part.reset();
}

/**
 * This replica's own parts back to the start, synchronously: a replica told of another's reset does
 * it in one step, so that nothing it does meanwhile (a journal clear) is taken for a change of its own.
 */
export function resetReplicaParts(parts: readonly StatePart[]): void {
  for (const part of parts) if (part.held === 'replica') void part.reset();
}

/** The parts the replicas share through Redis, each in its own hash. */
export const sharedParts = (parts: readonly StatePart[]): SharedPart[] =>
  parts.flatMap((part) => (part.shared ? [{ name: part.name, ...part.shared }] : []));
