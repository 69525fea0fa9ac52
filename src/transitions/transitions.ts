import { performance } from 'node:perf_hooks';
import type { RecordStore } from '../store/record-store.js';
import type { Row, StoreChange } from '../vocabulary/record.js';
import type { TransitionRule } from './rules.js';
import { MemorySchedule, type Followed, type Schedule } from './schedule.js';

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

/** A record's field in a state, since when (on its workspace's clock): what a snapshot keeps of it. */
export type Tracked = Omit<Followed, 'stay'>;

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
 *
 * What is followed lives in a `Schedule`: this process's memory, or Redis's, which every replica
 * passes over and where each move is claimed, so that it is made once (schedule.ts).
 */
export class Transitions {
  private readonly byCollection = new Map<string, TransitionRule[]>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires, on `performance.now()`'s scale (Infinity: none armed). */
  private timerAt = Infinity;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    rules: readonly TransitionRule[],
    private readonly parts: TransitionParts,
    private readonly schedule: Schedule = new MemorySchedule(),
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

  /**
   * A change a request (or a forced transition) made: the fields a rule names are followed from
   * their new state; a field in a state no rule moves out of is followed no more.
   */
  observe(change: StoreChange): void {
    const rules = this.byCollection.get(change.collection);
    if (rules === undefined) return;
    for (const field of new Set(rules.map((rule) => rule.field))) {
      const id = [change.workspace, change.collection, change.id, field].join('\u0000');
      const state = change.after === undefined ? undefined : asText(change.after[field]);
      const rule = state === undefined ? undefined : rules.find((r) => r.field === field && r.from === state);
      const entry =
        state === undefined || rule === undefined
          ? undefined
          : {
              workspace: change.workspace,
              collection: change.collection,
              key: change.id,
              field,
              state,
              enteredAt: this.parts.now(change.workspace),
            };
      this.schedule.follow(id, entry)?.catch((error: unknown) => this.parts.report(error));
      if (rule !== undefined) this.armIn(rule.afterMs);
    }
  }

  /** Makes every transition now due, in order; to be called when a clock moves. Without a rule, nothing is read. */
  due(): Promise<void> {
    if (!this.declared) return this.running;
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
  forget(workspace: string): Promise<void> {
    return this.schedule.forget(workspace);
  }

  reset(): Promise<void> {
    return this.schedule.reset();
  }

  /** The workspace's records followed, each field's state and since when (a snapshot's). */
  async capture(workspace: string): Promise<Tracked[]> {
    return (await this.schedule.entries())
      .filter(([, entry]) => entry.workspace === workspace)
      .map(([, { collection, key, field, state, enteredAt }]) => ({ workspace, collection, key, field, state, enteredAt }));
  }

  /** The workspace's records followed become exactly these (a snapshot restored), in the workspace given. */
  async restore(workspace: string, tracked: readonly Omit<Tracked, 'workspace'>[]): Promise<void> {
    await this.schedule.forget(workspace);
    for (const { collection, key, field, state, enteredAt } of tracked) {
      const entry = { workspace, collection, key, field, state, enteredAt };
      await this.schedule.follow([workspace, collection, key, field].join('\u0000'), entry);
    }
    // The timer is armed for the earliest of them (and anything due at the clock restored goes now).
    await this.due();
  }

  close(): void {
    this.closed = true;
    this.disarm();
  }

  private ruleFor(entry: Followed): TransitionRule | undefined {
    return this.byCollection.get(entry.collection)?.find((rule) => rule.field === entry.field && rule.from === entry.state);
  }

  private async pass(): Promise<void> {
    this.disarm();
    let wait = Infinity;
    for (const [id, entry] of await this.schedule.entries()) wait = Math.min(wait, await this.advance(id, entry));
    this.armIn(wait);
  }

  /**
   * One followed field through every transition now due; answers how long until its next one
   * (Infinity when it has none, or when another replica holds its move).
   */
  private async advance(id: string, first: Followed): Promise<number> {
    let entry: Followed | undefined = first;
    for (let step = 0; step < CHAIN_LIMIT; step++) {
      const rule = entry === undefined ? undefined : this.ruleFor(entry);
      if (entry === undefined || rule === undefined) return Infinity;
      const at = entry.enteredAt + rule.afterMs;
      const now = this.parts.now(entry.workspace);
      if (at > now) return at - now;
      if (!(await this.schedule.claim(id, entry))) return Infinity;
      const change = await this.move(entry.workspace, entry.collection, entry.key, entry.field, rule.from, rule.to, at);
      // Undefined when the record is gone, or was changed by a request since: its own change is followed instead.
      const next = change === undefined ? undefined : { ...entry, state: rule.to, enteredAt: at };
      entry = await this.schedule.settle(id, entry, next !== undefined && this.ruleFor(next) !== undefined ? next : undefined);
    }
    // A chain this long is a cycle: the next pass goes on with it.
    return 0;
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

  /**
   * One wall-clock timer, for the earliest transition due, for clocks that run on their own: armed
   * for `wait` ms unless it fires sooner already.
   */
  private armIn(wait: number): void {
    if (this.closed || !Number.isFinite(wait)) return;
    const delay = Math.min(Math.max(wait, 0), MAX_TIMER_MS);
    const at = performance.now() + delay;
    if (this.timer !== undefined && at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.due();
    }, delay);
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
