/** `retries`: non-idempotent requests resent without an Idempotency-Key. */

import type { JournalEntry } from '../journal/journal.js';
import { behind, ENTRIES_PER_GROUP, plural, refOf, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

/** How soon after the first a same request counts as its retry, on the sandbox clock. */
export const RETRY_WINDOW_SECONDS = 60;

/** Methods that are neither safe nor idempotent (RFC 9110 §9.2.2; PATCH: RFC 5789 §2). */
const NON_IDEMPOTENT = new Set(['POST', 'PATCH']);

/** The header that makes a resent POST or PATCH safe (draft-ietf-httpapi-idempotency-key-header). */
const IDEMPOTENCY_KEY = 'idempotency-key';

export const RETRIES_CHECKS =
  `A POST or PATCH resent by the same key (same path, query and body) within ${RETRY_WINDOW_SECONDS} s on the sandbox clock, ` +
  'without an Idempotency-Key header, after an answer that may have done the work (not a 4xx: a 2xx, a 5xx, or an answer lost to a fault), ' +
  'is a warn: if the first was processed, the resend does it twice.';

/** Whether the sandbox may have done the request's work: a 4xx refused it, anything else (a fault included) may not have. */
const mayHaveActed = (entry: JournalEntry): boolean => entry.status < 400 || entry.status >= 500 || entry.received !== undefined;

/** What makes two requests the same: key, method, path, query and body. */
function signature(entry: JournalEntry): string {
  const body = entry.request.body;
  return JSON.stringify([
    entry.keyId ?? null,
    entry.method,
    entry.path,
    entry.query,
    body === undefined ? null : [body.size, body.encoding ?? null, body.text],
  ]);
}

interface Chain {
  readonly first: JournalEntry;
  /** The latest of the requests that may have acted: a retry is measured from it. */
  last: JournalEntry;
  readonly resent: JournalEntry[];
}

export function retriesFinding(entries: readonly JournalEntry[], link: EntryLink): Finding {
  /** Every chain of same requests, and the current one of each signature. */
  const chains: Chain[] = [];
  const current = new Map<string, Chain>();
  const resent: JournalEntry[] = [];
  for (const entry of entries) {
    if (!NON_IDEMPOTENT.has(entry.method)) continue;
    const id = signature(entry);
    const chain = current.get(id);
    const since = chain === undefined ? -1 : entry.time - chain.last.time;
    const retry =
      chain !== undefined && since >= 0 && since <= RETRY_WINDOW_SECONDS * 1000 && entry.request.headers[IDEMPOTENCY_KEY] === undefined;
    if (retry) {
      chain.resent.push(entry);
      resent.push(entry);
      if (mayHaveActed(entry)) chain.last = entry;
    } else if (mayHaveActed(entry)) {
      // A first request (or one sent with an Idempotency-Key, or after the window): its resends are measured from it.
      const started: Chain = { first: entry, last: entry, resent: [] };
      chains.push(started);
      current.set(id, started);
    }
  }
  const listed: FindingGroup[] = chains
    .filter((g) => g.resent.length > 0)
    .map((g) => ({
      label: `${g.first.method} ${g.first.path}${g.first.query ? `?${g.first.query}` : ''} resent ${plural(g.resent.length, 'time')}, the first answered ${g.first.status}`,
      count: g.resent.length,
      entries: refsOf(g.resent, link, ENTRIES_PER_GROUP),
      method: g.first.method,
      path: g.first.path,
      firstEntry: refOf(g.first, link),
    }));
  const sentence =
    resent.length === 0
      ? 'No POST or PATCH was resent without an Idempotency-Key.'
      : `Resent ${plural(resent.length, 'POST or PATCH request', 'POST or PATCH requests')} without an Idempotency-Key: ${listed.map((g) => g.label).join('; ')}. ` +
        'If the first was processed, the resend did it twice: send an Idempotency-Key, or do not resend them.';
  return {
    id: 'retries',
    title: 'Retries without an Idempotency-Key',
    checks: RETRIES_CHECKS,
    verdict: resent.length > 0 ? 'warn' : 'pass',
    sentence,
    ...behind(resent, link),
    groups: listed,
  };
}
