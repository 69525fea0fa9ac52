import type { IssuedKeyRecord, KeyRegistry } from '../auth/key-registry.js';
import type { MintedToken, TokenStore } from '../auth/token-store.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { RuleStore } from '../rules/rule-store.js';
import type { RuleStatus } from '../rules/rule.js';
import type { MadeSubscription, Subscriptions } from '../webhooks/subscriptions.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import type { SharedPart } from './shared-state.js';

/** What the replicas share of the admin state, each part in its own Redis hash. */
export interface PartOwners {
  readonly keys: Pick<KeyRegistry, 'issued' | 'replaceIssued'>;
  readonly workspaces: Pick<Workspaces, 'snapshot' | 'replaceCreated'>;
  readonly clocks: Pick<WorkspaceClocks, 'snapshot' | 'replace'>;
  readonly rules: Pick<RuleStore, 'held' | 'replace'>;
  readonly tokens: Pick<TokenStore, 'held' | 'replace'>;
  readonly subscriptions: Pick<Subscriptions, 'shared' | 'replaceShared'>;
}

const parsed = <T>(entries: ReadonlyMap<string, string>): [string, T][] => [...entries].map(([id, value]) => [id, JSON.parse(value) as T]);

/** A configured webhook subscription removed, as its entry says it (an admin-made one's entry is the subscription). */
const REMOVED = '"removed"';

const SHARED_CLOCK = 'shared';
const OWN_CLOCK = 'own:';

export function sharedParts(owners: PartOwners): SharedPart[] {
  return [
    {
      name: 'keys',
      read: () => new Map(owners.keys.issued().map(({ digest, ...record }) => [digest, JSON.stringify(record)])),
      write: (entries) =>
        owners.keys.replaceIssued(parsed<Omit<IssuedKeyRecord, 'digest'>>(entries).map(([digest, record]) => ({ digest, ...record }))),
    },
    {
      name: 'workspaces',
      read: () => new Map(owners.workspaces.snapshot().created.map((w) => [w.id, JSON.stringify(w)])),
      write: (entries) =>
        owners.workspaces.replaceCreated(parsed<{ id: string; createdAt: number; lastUsedAt: number }>(entries).map(([, w]) => w)),
    },
    {
      name: 'clocks',
      read: () => {
        const { shared, own } = owners.clocks.snapshot();
        return new Map([
          [SHARED_CLOCK, String(shared)],
          ...Object.entries(own).map(([id, offset]): [string, string] => [`${OWN_CLOCK}${id}`, String(offset)]),
        ]);
      },
      write: (entries) => {
        const own: Record<string, number> = {};
        for (const [id, offset] of entries) if (id.startsWith(OWN_CLOCK)) own[id.slice(OWN_CLOCK.length)] = Number(offset);
        owners.clocks.replace({ shared: Number(entries.get(SHARED_CLOCK) ?? 0), own });
      },
    },
    {
      name: 'rules',
      // A hash has no order: rules are sorted back into the order they were created in (newest is tried first).
      read: () => new Map(owners.rules.held().map((status) => [status.rule.id, JSON.stringify(status)])),
      write: (entries) =>
        owners.rules.replace(
          parsed<RuleStatus>(entries)
            .map(([, status]) => status)
            .sort((a, b) => ruleNumber(a) - ruleNumber(b)),
        ),
    },
    {
      name: 'tokens',
      read: () => new Map([...owners.tokens.held()].map(([digest, token]) => [digest, JSON.stringify(token)])),
      write: (entries) => owners.tokens.replace(new Map(parsed<MintedToken>(entries))),
    },
    {
      name: 'webhooks',
      read: () => {
        const { made, removed } = owners.subscriptions.shared();
        return new Map([
          ...made.map(({ id, ...subscription }): [string, string] => [id, JSON.stringify(subscription)]),
          ...removed.map((id): [string, string] => [id, REMOVED]),
        ]);
      },
      write: (entries) => {
        const made = [...entries].filter(([, value]) => value !== REMOVED);
        owners.subscriptions.replaceShared({
          made: parsed<Omit<MadeSubscription, 'id'>>(new Map(made)).map(([id, subscription]) => ({ id, ...subscription })),
          removed: [...entries].filter(([, value]) => value === REMOVED).map(([id]) => id),
        });
      },
    },
  ];
}

const ruleNumber = (status: RuleStatus): number => Number(status.rule.id.slice('rule_'.length)) || 0;
