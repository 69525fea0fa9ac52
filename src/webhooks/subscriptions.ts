import { randomBytes } from 'node:crypto';
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
 * subscriptions only.
 */
export class Subscriptions {
  private readonly held = new Map<string, Held>();

  /**
   * @param named the store change a document's own webhook is tied to (`newPet` → `pets.created`),
   *   for a subscription that names the webhook rather than the change.
   */
  constructor(
    private readonly configured: readonly SubscriptionInput[],
    private readonly named: (event: string) => string | undefined = () => undefined,
  ) {
    this.reset();
  }

  /** How many there are: with none, a store change costs one comparison. */
  get size(): number {
    return this.held.size;
  }

  add(input: SubscriptionInput, configured = false): Subscribed {
    const parsed = parseEvent(this.named(input.event) ?? input.event);
    const problems: { field: 'event' | 'url' | 'secret'; message: string }[] = [];
    if ('problem' in parsed) problems.push({ field: 'event', message: parsed.problem });
    if (!isHttpUrl(input.url)) problems.push({ field: 'url', message: 'must be an absolute http or https URL' });
    const secretIssue = input.secret === undefined ? undefined : secretProblem(input.secret);
    if (secretIssue !== undefined) problems.push({ field: 'secret', message: secretIssue });
    if (problems.length > 0 || !('pattern' in parsed)) return { ok: false, problems };
    const secret = input.secret ?? generateSecret();
    const id = `wh_${randomBytes(12).toString('base64url')}`;
    const subscription: Subscription = { id, event: input.event, url: input.url, workspace: input.workspace, configured };
    this.held.set(id, { ...subscription, pattern: parsed.pattern, secret });
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
    for (const input of this.configured) {
      const made = this.add(input, true);
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
