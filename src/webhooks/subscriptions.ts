import { hash, randomBytes } from 'node:crypto';
import type { StoreChange } from '../vocabulary/record.js';
import { matches, parseEvent, type EventPattern } from './events.js';
import { generateSecret, secretProblem } from './sign.js';

/** A subscription as the admin API shows it: never its secret, which is shown once, when it is made. */
export interface Subscription {
  /** `wh_` and 16 random characters. */
  readonly id: string;
  readonly event: string;
  readonly url: string;
  readonly workspace: string;
  /** Whether the configuration made it (a reset makes it again) or the admin API. */
  readonly configured: boolean;
}

interface Held extends Subscription {
  readonly pattern: EventPattern;
  readonly secret: string;
  /** The order it was made in (admin-made ones; configured ones come first, in the config's order). */
  readonly order: number;
}

/** An admin-made subscription as the replicas share it: with its secret, which every replica signs with. */
export interface MadeSubscription extends Omit<Subscription, 'configured'> {
  readonly secret: string;
  readonly order: number;
}

/** What the replicas share: the admin-made subscriptions, and the configured ones removed. */
export interface SharedSubscriptions {
  readonly made: readonly MadeSubscription[];
  readonly removed: readonly string[];
}

export interface SubscriptionInput {
  readonly event: string;
  readonly url: string;
  readonly workspace: string;
  readonly secret?: string | undefined;
}

/** A subscription made, with its secret (shown this once), or the problems, each at its field. */
export type Subscribed =
  | { readonly ok: true; readonly subscription: Subscription; readonly secret: string }
  | { readonly ok: false; readonly problems: readonly { readonly field: 'event' | 'url' | 'secret'; readonly message: string }[] };

/** A delivery to queue for a store change: which subscription, to where, signed with what, about what. */
export interface Due {
  readonly subscription: Subscription;
  readonly secret: string;
}

/**
 * The webhook subscriptions, each listening to one workspace's store changes. The ones the
 * configuration names are made at start and made again by a reset (with the secret it gives, or a
 * fresh one); the admin API adds and removes others. A workspace's changes reach its own
 * subscriptions only. Replicas on one Redis share what differs from the configuration (`shared`,
 * `replaceShared`; src/replicas/parts.ts), so each holds the same subscriptions.
 */
export class Subscriptions {
  private readonly held = new Map<string, Held>();
  private readonly configured: readonly (SubscriptionInput & { readonly id: string })[];
  private made = 0;

  /**
   * @param named the store change a document's own webhook is tied to (`newPet` → `pets.created`),
   *   for a subscription that names the webhook rather than the change.
   */
  constructor(
    configured: readonly SubscriptionInput[],
    private readonly named: (event: string) => string | undefined = () => undefined,
  ) {
    // A configured subscription's id is its place and what it says, the same on every replica and
    // after every reset, so that each replica lists it alike and a removal names it on all.
    this.configured = configured.map((input, index) => ({
      ...input,
      id: `wh_${hash('sha256', JSON.stringify([index, input.event, input.url, input.workspace]), 'base64url').slice(0, 16)}`,
    }));
    this.reset();
  }

  /** How many there are: with none, a store change costs one comparison. */
  get size(): number {
    return this.held.size;
  }

  /** An admin-made subscription (or, given `configuredId`, the configured one of that id). */
  add(input: SubscriptionInput, configuredId?: string): Subscribed {
    const parsed = parseEvent(this.named(input.event) ?? input.event);
    const problems: { field: 'event' | 'url' | 'secret'; message: string }[] = [];
    if ('problem' in parsed) problems.push({ field: 'event', message: parsed.problem });
    if (!isHttpUrl(input.url)) problems.push({ field: 'url', message: 'must be an absolute http or https URL' });
    const secretIssue = input.secret === undefined ? undefined : secretProblem(input.secret);
    if (secretIssue !== undefined) problems.push({ field: 'secret', message: secretIssue });
    if (problems.length > 0 || !('pattern' in parsed)) return { ok: false, problems };
    const secret = input.secret ?? generateSecret();
    const id = configuredId ?? `wh_${randomBytes(12).toString('base64url')}`;
    const subscription: Subscription = {
      id,
      event: input.event,
      url: input.url,
      workspace: input.workspace,
      configured: configuredId !== undefined,
    };
    this.held.set(id, { ...subscription, pattern: parsed.pattern, secret, order: configuredId === undefined ? ++this.made : 0 });
    return { ok: true, subscription, secret };
  }

  list(workspace?: string): Subscription[] {
    return [...this.held.values()].filter((s) => workspace === undefined || s.workspace === workspace).map(shown);
  }

  remove(id: string): boolean {
    return this.held.delete(id);
  }

  /** The subscriptions a store change in its workspace reaches. */
  dueFor(change: StoreChange): Due[] {
    const due: Due[] = [];
    for (const held of this.held.values()) {
      if (held.workspace === change.workspace && matches(held.pattern, change))
        due.push({ subscription: shown(held), secret: held.secret });
    }
    return due;
  }

  /**
   * A workspace reset or removed: the subscriptions the admin API made for it go, as its rules do;
   * those the configuration makes stay (a configuration names only a permanent workspace).
   */
  forget(workspace: string): void {
    for (const [id, held] of this.held) if (held.workspace === workspace && !held.configured) this.held.delete(id);
  }

  /** Back to the configured subscriptions only (each with the secret the configuration gives, else a fresh one). */
  reset(): void {
    this.held.clear();
    this.makeConfigured(() => true, new Map());
  }

  /** What the other replicas take over (`replaceShared`) after a change here. */
  shared(): SharedSubscriptions {
    const made = [...this.held.values()]
      .filter((h) => !h.configured)
      .map(({ id, event, url, workspace, secret, order }) => ({ id, event, url, workspace, secret, order }));
    const removed = this.configured.filter(({ id }) => !this.held.has(id)).map(({ id }) => id);
    return { made, removed };
  }

  /**
   * The subscriptions become what another replica shares: its admin-made ones, and the configured
   * ones but those it removed (each configured one this replica holds keeps its secret).
   */
  replaceShared({ made, removed }: SharedSubscriptions): void {
    const before = new Map(this.held);
    const gone = new Set(removed);
    this.held.clear();
    this.makeConfigured((id) => !gone.has(id), before);
    for (const one of [...made].sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : 1))) {
      const parsed = parseEvent(this.named(one.event) ?? one.event);
      if (!('pattern' in parsed)) continue;
      this.held.set(one.id, { ...one, configured: false, pattern: parsed.pattern });
      this.made = Math.max(this.made, one.order);
    }
  }

  /** The configured subscriptions `keep` names, as `held` holds them, else made afresh. */
  private makeConfigured(keep: (id: string) => boolean, held: ReadonlyMap<string, Held>): void {
    for (const input of this.configured) {
      if (!keep(input.id)) continue;
      const kept = held.get(input.id);
      if (kept !== undefined) {
        this.held.set(input.id, kept);
        continue;
      }
      const made = this.add(input, input.id);
      // The configuration was checked at start (load-config.ts): a problem here is a bug.
      if (!made.ok) throw new Error(`webhooks.subscriptions: ${made.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
    }
  }
}

const shown = ({ id, event, url, workspace, configured }: Subscription): Subscription => ({ id, event, url, workspace, configured });

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
