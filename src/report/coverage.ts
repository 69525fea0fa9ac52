/** What the report could see: the range it covers, and what the journal's retention took from it. */

import type { Dropped, JournalEntry } from '../journal/journal.js';
import { plural } from './finding.js';

/** A sandbox-clock range, Unix milliseconds, both ends included; an end not given is open. */
export interface TimeRange {
  readonly from?: number;
  readonly to?: number;
}

export interface Coverage {
  /** The range asked for (ISO 8601, sandbox clock); absent ends are open. */
  readonly from?: string;
  readonly to?: string;
  /** When the first and the last request judged were answered; absent when there were none. */
  readonly first?: string;
  readonly last?: string;
  /** How many requests were judged. */
  readonly requests: number;
  /** How many requests the journal keeps at most, of every key (`journalSize`). */
  readonly journalSize: number;
  /** Requests of this key or workspace the journal dropped that may fall in the range (0 when none could). */
  readonly dropped: number;
  /** Whether every request of the range is still journaled. */
  readonly complete: boolean;
  readonly sentence: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The coverage of a report over `entries` (the subject's, in the range, oldest first), given what
 * the journal dropped of the subject: dropped requests are older than every kept one, so none
 * falls in a range that starts after the newest of them.
 */
export function coverageOf(
  entries: readonly JournalEntry[],
  range: TimeRange,
  dropped: Dropped,
  journalSize: number,
  subject: string,
): Coverage {
  const first = entries[0];
  const last = entries.at(-1);
  const before = dropped.newestTime !== undefined && range.from !== undefined && dropped.newestTime < range.from;
  const complete = dropped.exact && (dropped.count === 0 || before);
  const end = (ms: number | undefined, open: string): string => (ms === undefined ? open : iso(ms));
  const asked =
    range.from === undefined && range.to === undefined ? '' : ` between ${end(range.from, 'the first')} and ${end(range.to, 'now')}`;
  const seen =
    journalSize === 0
      ? 'The journal keeps no requests (journalSize 0): there is nothing to judge.'
      : first === undefined || last === undefined
        ? `The journal holds no request of ${subject}${asked}.`
        : `Covers ${plural(entries.length, 'request')} of ${subject}${asked}, answered from ${iso(first.time)} to ${iso(last.time)} (sandbox clock).`;
  const lost = !dropped.exact
    ? ` The journal dropped older requests past its journalSize of ${journalSize} and may have dropped some of ${subject}: they are not judged.`
    : complete
      ? journalSize === 0
        ? ''
        : ' The journal dropped none of them.'
      : ` The journal (journalSize ${journalSize}) dropped ${plural(dropped.count, 'older request')} of ${subject}, the newest answered at ${iso(dropped.newestTime ?? 0)}: they are not judged.`;
  return {
    ...(range.from === undefined ? {} : { from: iso(range.from) }),
    ...(range.to === undefined ? {} : { to: iso(range.to) }),
    ...(first === undefined ? {} : { first: iso(first.time) }),
    ...(last === undefined ? {} : { last: iso(last.time) }),
    requests: entries.length,
    journalSize,
    dropped: complete ? 0 : dropped.count,
    complete,
    sentence: seen + lost,
  };
}
