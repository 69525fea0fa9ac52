import { randomBytes } from 'node:crypto';
import type { FaultSettings } from '../faults/settings.js';
import { ruleTest } from './match-rule.js';
import type { Rule, RuleDefinition, RuleRequest, RuleStatus } from './rule.js';

/** The most rules one sandbox holds: every API request that reaches its operation may try them all. */
export const MAX_RULES = 1000;

interface Entry {
  readonly rule: Rule;
  readonly test: (request: RuleRequest) => boolean;
  applied: number;
}

/** How the rule store picks the rule for a request. */
export interface RuleChoice {
  /**
   * Whether the rule would change anything for this request: a rule whose every effect the request
   * itself overrides (its own `Prefer`) is passed over, neither counted nor journaled.
   */
  readonly wanted: (rule: Rule) => boolean;
  /** A draw in [0, 1) from the rule's deterministic stream for this caller (for `probability`). */
  readonly draw: (rule: Rule) => number;
}

/** What the request path reads of the rule store. */
export type RuleLookup = Pick<RuleStore, 'size' | 'apply' | 'claim'>;

/** Rules' uses counted for every replica at once (on Redis): one atomic step per use. */
export interface RuleUses {
  /** Takes one use of the rule with this uid: false when its `times` are already used up. */
  take(uid: string, times: number): Promise<boolean>;
  /** The rule with this uid has been used this many times (a snapshot restored). */
  set(uid: string, used: number): Promise<void>;
}

/**
 * The admin rules of one sandbox, in memory. Rules are tried newest first; the first that matches
 * the request, is wanted, and wins its `probability` draw applies, and at most one rule applies to a
 * request. Applying is synchronous, so counting a rule's use and retiring it when its `times` are
 * used up is one step: two requests in flight never both take a rule's last use.
 */
export class RuleStore {
  /** Oldest first. */
  private entries: readonly Entry[] = [];
  private serial = 0;
  /** Shared uses, when replicas share the rules: `times` counts across all of them. */
  private uses: RuleUses | undefined;

  /** How many rules there are: with none, the request path checks this and nothing else. */
  get size(): number {
    return this.entries.length;
  }

  add(definition: RuleDefinition): RuleStatus {
    this.serial += 1;
    const uid = randomBytes(9).toString('base64url');
    const rule: Rule = { id: `rule_${this.serial}`, uid, ...definition, faults: ruleFaults(definition) };
    const entry: Entry = { rule, test: ruleTest(definition), applied: 0 };
    this.entries = [...this.entries, entry];
    return status(entry);
  }

  /** Every rule, newest first: the order they are tried in. */
  list(): readonly RuleStatus[] {
    return this.entries.map(status).reverse();
  }

  get(id: string): RuleStatus | undefined {
    const entry = this.entries.find((e) => e.rule.id === id);
    return entry && status(entry);
  }

  /** Removes one rule; false when there is none with that id. */
  remove(id: string): boolean {
    const kept = this.entries.filter((e) => e.rule.id !== id);
    const removed = kept.length !== this.entries.length;
    this.entries = kept;
    return removed;
  }

  /** Removes the rules a test picks (a workspace's, when it is reset or removed); how many were removed. */
  removeWhere(test: (rule: Rule) => boolean): number {
    const kept = this.entries.filter((e) => !test(e.rule));
    const removed = this.entries.length - kept.length;
    this.entries = kept;
    return removed;
  }

  /** Removes every rule (ids go on counting); how many were removed. */
  clear(): number {
    const removed = this.entries.length;
    this.entries = [];
    return removed;
  }

  /**
   * The rules become exactly these, oldest first (another replica's rules); new ids go on after
   * the highest one held, so that a rule added here next does not take an id already in use.
   */
  replace(statuses: readonly RuleStatus[]): void {
    this.entries = statuses.map(({ rule, applied }) => ({ rule, test: ruleTest(rule), applied }));
    for (const { rule } of statuses) this.serial = Math.max(this.serial, Number(rule.id.slice('rule_'.length)) || 0);
  }

  /**
   * The rules a test picks become these (a workspace's, when a snapshot is restored), with their
   * uses; the others stay. Each keeps its id unless another rule holds it (then it takes the next),
   * and gets a uid of its own, its shared uses set to the captured ones; one used up is not put back.
   */
  async putBack(test: (rule: Rule) => boolean, statuses: readonly RuleStatus[]): Promise<void> {
    const live = statuses
      .filter(({ rule, applied }) => rule.times === undefined || applied < rule.times)
      .map(({ rule, applied }) => ({ rule: { ...rule, uid: randomBytes(9).toString('base64url') }, applied }));
    for (const { rule, applied } of live) if (rule.times !== undefined) await this.uses?.set(rule.uid, applied);
    // After the awaits: a rule added meanwhile stays.
    const kept = this.entries.filter((e) => !test(e.rule));
    this.serial = Math.max(this.serial, ...statuses.map(({ rule }) => ruleNumber(rule.id)));
    const taken = new Set(kept.map((e) => e.rule.id));
    const back = live.map(({ rule, applied }): Entry => {
      const id = taken.has(rule.id) ? `rule_${++this.serial}` : rule.id;
      taken.add(id);
      return { rule: { ...rule, id }, test: ruleTest(rule), applied };
    });
    this.entries = [...kept, ...back].sort((a, b) => ruleNumber(a.rule.id) - ruleNumber(b.rule.id));
  }

  /** Every rule, oldest first, with its uses: what another replica takes over with `replace`. */
  held(): readonly RuleStatus[] {
    return this.entries.map(status);
  }

  /** The sandbox's reset: no rules, and ids (so each rule's draws) start again at `rule_1`. */
  reset(): void {
    this.entries = [];
    this.serial = 0;
  }

  /** From now on a rule's `times` are counted by these shared uses as well as here. */
  shareUses(uses: RuleUses): void {
    this.uses = uses;
  }

  /**
   * After `apply` chose a rule with `times`, when replicas share the rules: takes its use from the
   * shared count. False when the other replicas have used it up: it is then removed here too, and
   * the request is to be shaped again without it. With no shared count (one replica), or Redis out
   * of reach, `apply`'s own count stands.
   */
  async claim(rule: Rule): Promise<boolean> {
    if (rule.times === undefined || this.uses === undefined) return true;
    let taken: boolean;
    try {
      taken = await this.uses.take(rule.uid, rule.times);
    } catch {
      return true;
    }
    if (!taken) this.entries = this.entries.filter((e) => e.rule.uid !== rule.uid);
    return taken;
  }

  /** The rule that applies to a request, counted as used (and removed when that was its last use), or undefined. */
  apply(request: RuleRequest, choice: RuleChoice): Rule | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i] as Entry;
      const { rule } = entry;
      if (!entry.test(request) || !choice.wanted(rule)) continue;
      if (rule.probability !== undefined && rule.probability < 1 && !(choice.draw(rule) < rule.probability)) continue;
      entry.applied += 1;
      // Used up: removed at once, so the next request no longer sees it.
      if (rule.times !== undefined && entry.applied >= rule.times) this.entries = this.entries.filter((e) => e !== entry);
      return rule;
    }
    return undefined;
  }
}

const ruleNumber = (id: string): number => Number(id.slice('rule_'.length)) || 0;

const status = (entry: Entry): RuleStatus => ({ rule: entry.rule, applied: entry.applied });

/** A rule's latency and faults as a source of the fault decision, or undefined when it sets neither. */
function ruleFaults(definition: RuleDefinition): FaultSettings | undefined {
  const { latency, fault } = definition;
  if (latency === undefined && fault === undefined) return undefined;
  const faults = fault === undefined ? undefined : isList(fault) ? fault : [fault];
  return { ...(latency === undefined ? {} : { latency }), ...(faults === undefined ? {} : { faults }) };
}

const isList = <T>(value: T | readonly T[]): value is readonly T[] => Array.isArray(value);
