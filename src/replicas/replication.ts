import type { Journal, JournalFilter } from '../journal/journal.js';
import { isOutage } from '../vocabulary/outage.js';
import { Unavailable } from '../vocabulary/errors.js';
import { JournalMirror } from './journal-mirror.js';
import type { RedisLinks } from './redis-connection.js';
import { redisRuleUses } from './rule-uses.js';
import type { RuleStore } from '../rules/rule-store.js';
import { safeUrl } from './safe-url.js';
import { SharedState, type SharedEvent, type SharedPart } from './shared-state.js';

/** What this replica does when another one reset the sandbox, reloaded, or cleared journal entries. */
export interface ReplicaActions {
  /** The parts this replica holds alone back to the start (keys, workspaces, tokens, clocks, rules, draws, journal). */
  readonly resetOwn: () => void;
  readonly reload: () => Promise<unknown>;
  /**
   * After another replica's change is taken over, and when this replica starts or Redis comes back:
   * the clocks may have moved, so the timed transitions and the webhook retries now due are made
   * (each once across replicas: their stores' claims decide which replica makes it).
   */
  readonly dueNow: () => Promise<void>;
}

/**
 * One replica among several sharing a Redis: the admin state is shared (`SharedState`), the journal
 * mirrored (`JournalMirror`); records and counters are on Redis themselves (their stores).
 */
export interface Replication {
  /** Why this replica cannot serve now (Redis unreachable), or undefined when it can. */
  problem(): string | undefined;
  /** Notes an event of the change under way (`change`), sent with it. */
  note(event: SharedEvent): void;
  /**
   * Makes a change here that the other replicas must have before it is answered (an admin change, a
   * key or token issued): `work` runs under this replica's lock, what it changed is written to
   * Redis, then every replica is told and waited for. Rejects with `Unavailable` when Redis cannot
   * be reached to share it (the change then holds here only, until Redis is back).
   */
  change<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startReplication(
  links: RedisLinks,
  settings: { readonly url: string; readonly prefix: string; readonly journalSize: number },
  owners: {
    /** The admin state every replica holds, each part in its own Redis hash. */
    readonly parts: readonly SharedPart[];
    readonly journal: Journal;
    readonly rules: Pick<RuleStore, 'shareUses'>;
  },
  actions: ReplicaActions,
): Promise<Replication> {
  const { journal } = owners;
  let pending: SharedEvent[] = [];
  /** A clear asked for by another replica is not sent back to it. */
  let applyingRemote = false;
  const clearHere = (only: JournalFilter): void => {
    applyingRemote = true;
    try {
      journal.clear(only);
    } finally {
      applyingRemote = false;
    }
  };
  const perform = async (event: SharedEvent): Promise<void> => {
    if (event.kind === 'reset') {
      applyingRemote = true;
      try {
        actions.resetOwn();
      } finally {
        applyingRemote = false;
      }
    } else if (event.kind === 'reload') await actions.reload();
    else clearHere({ keyId: event.keyId, workspace: event.workspace });
  };
  const shared = new SharedState(links.command, links.subscriber, settings.prefix, owners.parts, perform, actions.dueNow);
  const mirror = new JournalMirror(journal, links.command, links.reader, settings.prefix, shared.origin, settings.journalSize);
  journal.onClear((only) => {
    if (!applyingRemote) pending.push({ kind: 'journal-clear', keyId: only.keyId, workspace: only.workspace });
  });
  // A rule's `times` counts across the replicas: each use is taken on Redis (rule-uses.ts).
  owners.rules.shareUses(redisRuleUses(links.command, settings.prefix));
  await shared.start();
  await mirror.start();
  // What another replica left due (it stopped, or changed a record and nothing moved the clock since).
  await actions.dueNow();
  // After an outage the others may have changed what this replica holds: it takes the shared state over again.
  links.onReconnect(
    () =>
      void shared
        .reload()
        .then(actions.dueNow)
        .catch(() => undefined),
  );

  return {
    problem: () => (links.ready() ? undefined : `Redis at ${safeUrl(settings.url)} cannot be reached`),
    note: (event) => pending.push(event),
    change: async <T>(work: () => Promise<T>): Promise<T> => {
      let announce: () => Promise<void> = () => Promise.resolve();
      const result = await shared.exclusive(async () => {
        pending = [];
        const done = await work();
        const events = pending;
        pending = [];
        try {
          if (events.some((e) => e.kind === 'journal-clear' && e.keyId === undefined && e.workspace === undefined)) await mirror.clear();
          announce = await shared.commit(events);
        } catch (error) {
          throw isOutage(error) ? new Unavailable(error.message) : error;
        }
        return done;
      });
      await announce().catch(() => undefined);
      return result;
    },
    close: async () => {
      await mirror.stop();
      await links.close();
    },
  };
}
