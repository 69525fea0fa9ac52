import type { RecordStore } from '../store/record-store.js';
import type { Row, StoreChange } from '../vocabulary/record.js';
import type { TransitionRule } from './rules.js';

/** What the transitions act through: the workspaces' clocks, the store, and the record as shown. */
export interface TransitionParts {
  now(workspace: string): number;
  /** The store's own atomic update (RecordStore.update). */
  update: RecordStore['update'];
  /** The record as the document shows it, for the store change the webhooks and the journal read. */
  shown(collection: string, row: Row): Readonly<Record<string, unknown>>;
  /** The stored fields with the record's update timestamps (`updatedAt`) set to `at`. */
  stamp(collection: string, fields: Readonly<Record<string, unknown>>, at: number): Readonly<Record<string, unknown>>;
  /** A transition made: told to the webhooks. */
  emit(change: StoreChange): void;
  report(error: unknown): void;
}

/** A record's field in a state, since when (on its workspace's clock). */
export interface Tracked {
  readonly workspace: string;
  readonly collection: string;
  readonly key: string;
  readonly field: string;
  state: string;
  enteredAt: number;
}

/** setTimeout's largest delay; a later due time is looked at again when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Transitions one record may make in one pass (a chain placed → approved → delivered), against a cycle. */
const CHAIN_LIMIT = 100;

/** A state written as text, given the type the field holds now: `true` for a boolean field, `3` for a number. */
function typed(state: string, now: unknown): unknown {
  if (typeof now === 'string' || now === undefined || now === null) return state;
  try {
    const value: unknown = JSON.parse(state);
    return typeof value === typeof now ? value : state;
  } catch {
    return state;
  }
}

const asText = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Records that move through their states on the clock. A record a request creates or changes is
 * followed from then on: each of its fields a rule names is in a state since the moment it took it,
 * and when its workspace's clock passes that moment plus the rule's wait, the record changes (its
 * update timestamps too) and the change is told like a request's (webhooks hear it). A chain is
 * followed through: with the clock moved three days, an order placed goes to approved at its
 * tenth minute and to delivered two days after that, each at its own time. Seeded records stand
 * still until a request touches them.
 */
export class Transitions {
  private readonly byCollection = new Map<string, TransitionRule[]>();
  private readonly tracked = new Map<string, Tracked>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    rules: readonly TransitionRule[],
    private readonly parts: TransitionParts,
  ) {
    for (const rule of rules) this.byCollection.set(rule.collection, [...(this.byCollection.get(rule.collection) ?? []), rule]);
  }

  /** Whether any rule is declared: without one, a store change costs a map lookup. */
  get declared(): boolean {
    return this.byCollection.size > 0;
  }

  /** The rules, for the admin API and the start's summary. */
  rules(): TransitionRule[] {
    return [...this.byCollection.values()].flat();
  }

  /** A change a request (or a transition) made: the fields a rule names are followed from their new state. */
  observe(change: StoreChange): void {
    const rules = this.byCollection.get(change.collection);
    if (rules === undefined) return;
    for (const field of new Set(rules.map((rule) => rule.field))) {
      const id = [change.workspace, change.collection, change.id, field].join('\u0000');
      const state = change.after === undefined ? undefined : asText(change.after[field]);
      if (state === undefined) {
        this.tracked.delete(id);
        continue;
      }
      if (this.tracked.get(id)?.state === state) continue;
      this.tracked.set(id, {
        workspace: change.workspace,
        collection: change.collection,
        key: change.id,
        field,
        state,
        enteredAt: this.parts.now(change.workspace),
      });
    }
    this.arm();
  }

  /** Makes every transition now due, in order; to be called when a clock moves. */
  due(): Promise<void> {
    this.running = this.running.then(() => this.pass()).catch((error: unknown) => this.parts.report(error));
    return this.running;
  }

  /**
   * Moves one record's field to `to` now, whatever the rules say (the admin API's forced transition),
   * and follows it from there. Answers the change, or why none was made.
   */
  async force(workspace: string, collection: string, key: string, field: string, to: string): Promise<StoreChange | 'not-found'> {
    await this.running;
    const change = await this.move(workspace, collection, key, field, undefined, to, this.parts.now(workspace));
    return change ?? 'not-found';
  }

  /** A workspace reset or removed: its records are followed no more. */
  forget(workspace: string): void {
    for (const [id, tracked] of this.tracked) if (tracked.workspace === workspace) this.tracked.delete(id);
  }

  reset(): void {
    this.tracked.clear();
  }

  /** The workspace's records followed, each field's state and since when (a snapshot's). */
  capture(workspace: string): Tracked[] {
    return [...this.tracked.values()].filter((tracked) => tracked.workspace === workspace).map((tracked) => ({ ...tracked }));
  }

  /** The workspace's records followed become exactly these (a snapshot restored), in the workspace given. */
  restore(workspace: string, tracked: readonly Omit<Tracked, 'workspace'>[]): void {
    this.forget(workspace);
    for (const { collection, key, field, state, enteredAt } of tracked) {
      this.tracked.set([workspace, collection, key, field].join('\u0000'), { workspace, collection, key, field, state, enteredAt });
    }
    this.arm();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private ruleFor(tracked: Tracked): TransitionRule | undefined {
    return this.byCollection.get(tracked.collection)?.find((rule) => rule.field === tracked.field && rule.from === tracked.state);
  }

  private async pass(): Promise<void> {
    for (const [id, tracked] of [...this.tracked]) {
      for (let step = 0; step < CHAIN_LIMIT; step++) {
        const rule = this.ruleFor(tracked);
        const at = rule === undefined ? Infinity : tracked.enteredAt + rule.afterMs;
        if (rule === undefined || at > this.parts.now(tracked.workspace)) break;
        const change = await this.move(tracked.workspace, tracked.collection, tracked.key, tracked.field, rule.from, rule.to, at);
        if (change === undefined) {
          // Gone, or changed by a request since: its own change is followed instead.
          if (this.tracked.get(id) === tracked) this.tracked.delete(id);
          break;
        }
        tracked.state = rule.to;
        tracked.enteredAt = at;
      }
    }
    this.arm();
  }

  /** One record's field from `from` (any state when undefined) to `to`, as of `at`; undefined when the record is not so. */
  private async move(
    workspace: string,
    collection: string,
    key: string,
    field: string,
    from: string | undefined,
    to: string,
    at: number,
  ): Promise<StoreChange | undefined> {
    let before: Row | undefined;
    const updated = await this.parts.update(workspace, collection, key, (current) => {
      if (from !== undefined && asText(current[field]) !== from) return undefined;
      before = current;
      return this.parts.stamp(collection, { ...current, [field]: typed(to, current[field]) }, at);
    });
    if (updated.kind !== 'found' || before === undefined) return undefined;
    const change: StoreChange = {
      workspace,
      collection,
      id: key,
      kind: 'patched',
      before: this.parts.shown(collection, before),
      after: this.parts.shown(collection, updated.row),
    };
    this.parts.emit(change);
    if (from === undefined) this.observe(change);
    return change;
  }

  /** One wall-clock timer for the earliest transition due, for clocks that run on their own. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    let wait = Infinity;
    for (const tracked of this.tracked.values()) {
      const rule = this.ruleFor(tracked);
      if (rule !== undefined) wait = Math.min(wait, tracked.enteredAt + rule.afterMs - this.parts.now(tracked.workspace));
    }
    if (!Number.isFinite(wait)) return;
    this.timer = setTimeout(() => void this.due(), Math.min(Math.max(wait, 0), MAX_TIMER_MS));
    this.timer.unref();
  }
}
