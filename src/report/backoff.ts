/** `backoff`: the 429s each key received, and the requests it sent before their Retry-After had passed. */

import type { JournalEntry } from '../journal/journal.js';
import { behind, ENTRIES_PER_GROUP, keyLabel, plural, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

export const BACKOFF_CHECKS =
  'After a 429, a key must send nothing more until the Retry-After it was given has passed on the sandbox clock ' +
  '(RFC 9110 §10.2.3); any request of that key sent sooner is a fail. Requests without a key are not judged (the sandbox counts them by address).';

/**
 * When a 429's Retry-After lets the client in again, on the sandbox clock: delay-seconds after the
 * answer, or an HTTP-date (RFC 9110 §10.2.3); undefined when the answer gave none.
 */
export function retryAt(entry: JournalEntry): number | undefined {
  const value = entry.response.headers['retry-after']?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return entry.time + Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

/** "one 429", "3 429s": a number beside a status reads badly as "1 429". */
const tooMany = (n: number): string => (n === 1 ? 'one 429' : `${n} 429s`);

interface KeyTally {
  readonly keyId: string;
  readonly keyName: string | undefined;
  received: number;
  readonly early: JournalEntry[];
  /** Until when the key should have waited, after the 429s so far. */
  until: number | undefined;
}

export function backoffFinding(entries: readonly JournalEntry[], link: EntryLink): Finding {
  const keys = new Map<string, KeyTally>();
  const early: JournalEntry[] = [];
  for (const entry of entries) {
    if (entry.keyId === undefined) continue;
    let tally = keys.get(entry.keyId);
    if (!tally) keys.set(entry.keyId, (tally = { keyId: entry.keyId, keyName: entry.keyName, received: 0, early: [], until: undefined }));
    // Entries are in the order they were answered; a request answered before the wait was over was sent too soon.
    if (tally.until !== undefined && entry.time < tally.until) {
      tally.early.push(entry);
      early.push(entry);
    }
    if (entry.status !== 429) continue;
    tally.received += 1;
    const at = retryAt(entry);
    if (at !== undefined) tally.until = Math.max(tally.until ?? at, at);
  }
  const limited = [...keys.values()].filter((tally) => tally.received > 0);
  const groups: FindingGroup[] = limited.map((t) => ({
    label: `${keyLabel(t.keyId, t.keyName)}: ${tooMany(t.received)} received, ${plural(t.early.length, 'request')} sent before Retry-After had passed`,
    count: t.early.length,
    entries: refsOf(t.early, link, ENTRIES_PER_GROUP),
    keyId: t.keyId,
    ...(t.keyName === undefined ? {} : { keyName: t.keyName }),
    received: t.received,
  }));
  const received = limited.reduce((sum, t) => sum + t.received, 0);
  const offenders = limited.filter((t) => t.early.length > 0).map((t) => `${keyLabel(t.keyId, t.keyName)} ${t.early.length}`);
  const sentence =
    received === 0
      ? 'No 429 was received.'
      : early.length === 0
        ? `Received ${tooMany(received)} and waited out Retry-After after ${received === 1 ? 'it' : 'each'}.`
        : `Sent ${plural(early.length, 'request')} before Retry-After had passed, after ${tooMany(received)} (${offenders.join(', ')}). ` +
          'Wait the seconds Retry-After gives before sending again: a client that does not is banned.';
  return {
    id: 'backoff',
    title: 'Backing off after 429',
    checks: BACKOFF_CHECKS,
    verdict: early.length > 0 ? 'fail' : 'pass',
    sentence,
    ...behind(early, link),
    groups,
  };
}
