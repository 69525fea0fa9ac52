/** A finding of the report: one check over the journal entries, its verdict, and the entries behind it. */

import type { JournalEntry } from '../journal/journal.js';
import type { Verdict } from './verdict.js';

/** The report's checks, in the order it lists them. */
export const FINDING_IDS = ['validation', 'deprecated', 'backoff', 'bans', 'retries', 'shaped'] as const;
export type FindingId = (typeof FINDING_IDS)[number];

/** Most entries a finding links to, and most a group of it links to; `count` says how many there are. */
export const ENTRIES_PER_FINDING = 50;
export const ENTRIES_PER_GROUP = 20;

/** A journal entry as a finding links to it: its id, when it was answered, and where the admin API shows it. */
export interface EntryRef {
  readonly id: string;
  /** When it was answered, on its workspace's sandbox clock (ISO 8601). */
  readonly time: string;
  /** The entry in the admin API: `GET /__sandbox/requests/{id}`. */
  readonly link: string;
}

/** Part of a finding: a kind of failure, a key, an operation. Only the fields that describe it are present. */
export interface FindingGroup {
  /** What the group is, in words. */
  readonly label: string;
  /** How many entries it counts. */
  readonly count: number;
  /** The first `ENTRIES_PER_GROUP` of them. */
  readonly entries: readonly EntryRef[];
  readonly operationId?: string;
  /** `validation`: where the violation was (`body.name`). */
  readonly field?: string;
  /** `validation`: what the document asks there (`must be string`). */
  readonly rule?: string;
  /** `deprecated`: when the operation is removed (ISO 8601). */
  readonly sunset?: string;
  /** `deprecated`: the operation that replaces it. */
  readonly replacedBy?: string;
  /** `deprecated`: calls answered `410 operation_removed`, made after the sunset. */
  readonly afterSunset?: number;
  /** `backoff`, `bans`: the key. */
  readonly keyId?: string;
  readonly keyName?: string;
  /** `backoff`: the 429s the key received. */
  readonly received?: number;
  /** `retries`: the request resent. */
  readonly method?: string;
  readonly path?: string;
  /** `retries`: the first of the requests resent. */
  readonly firstEntry?: EntryRef;
  /** `shaped`: what shaped the answers (`preference`, `rule`, `fault`, `injectedStatus`). */
  readonly kind?: string;
}

export interface Finding {
  readonly id: FindingId;
  readonly title: string;
  /** The rule the finding applies, in one sentence. */
  readonly checks: string;
  readonly verdict: Verdict;
  /** What was found, in plain language. */
  readonly sentence: string;
  /** How many entries are behind the finding (the offending ones; for `shaped`, the shaped answers). */
  readonly count: number;
  /** The first `ENTRIES_PER_FINDING` of them, oldest first. */
  readonly entries: readonly EntryRef[];
  /** How many more there are than `entries` lists. */
  readonly moreEntries: number;
  readonly groups: readonly FindingGroup[];
  /** `shaped`: the share of answers forced or faulted, from 0 to 1. */
  readonly share?: number;
}

/** How a finding names entries: the link is the admin API's, handed in by whoever serves the report. */
export type EntryLink = (id: string) => string;

export const refOf = (entry: JournalEntry, link: EntryLink): EntryRef => ({
  id: entry.id,
  time: new Date(entry.time).toISOString(),
  link: link(entry.id),
});

export const refsOf = (entries: readonly JournalEntry[], link: EntryLink, cap: number): readonly EntryRef[] =>
  entries.slice(0, cap).map((entry) => refOf(entry, link));

/** A finding's own fields from the entries behind it: its count, its first entries and how many more. */
export function behind(entries: readonly JournalEntry[], link: EntryLink): Pick<Finding, 'count' | 'entries' | 'moreEntries'> {
  return {
    count: entries.length,
    entries: refsOf(entries, link, ENTRIES_PER_FINDING),
    moreEntries: Math.max(0, entries.length - ENTRIES_PER_FINDING),
  };
}

/** "1 request", "3 requests". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A key as sentences name it: its name, else its id. */
export const keyLabel = (keyId: string, keyName: string | undefined): string => keyName ?? keyId;
