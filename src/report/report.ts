/**
 * The integration report card: a verdict on a client, drawn from the journal entries of its key or
 * its workspace. Pure: the entries, what the journal dropped and what the document deprecates are
 * handed in, and the report is data (the admin API serves it, the console shows it).
 */

import type { Dropped, JournalEntry } from '../journal/journal.js';
import { backoffFinding } from './backoff.js';
import { bansFinding } from './bans.js';
import { coverageOf, type Coverage, type TimeRange } from './coverage.js';
import { deprecatedFinding, type Deprecation } from './deprecation.js';
import { plural, type EntryLink, type Finding } from './finding.js';
import { retriesFinding } from './retries.js';
import { shapedFinding } from './shaped.js';
import { trafficOf, type TrafficRow } from './traffic.js';
import { validationFinding } from './validation.js';
import { worst, type Verdict } from './verdict.js';

export type { Deprecation } from './deprecation.js';
export type { TimeRange } from './coverage.js';
export type { EntryLink, Finding } from './finding.js';

/** Whose requests the report judges: a key's (by its safe id, never its value) or a workspace's. */
export type Subject =
  | { readonly kind: 'key'; readonly keyId: string; readonly keyName?: string | undefined }
  | { readonly kind: 'workspace'; readonly workspace: string };

export interface ReportInput {
  readonly subject: Subject;
  /** The subject's journal entries in `range`, oldest first. */
  readonly entries: readonly JournalEntry[];
  readonly range: TimeRange;
  /** What the journal dropped of the subject. */
  readonly dropped: Dropped;
  readonly journalSize: number;
  /** The served document's deprecated operations, by operationId. */
  readonly deprecations: ReadonlyMap<string, Deprecation>;
  readonly link: EntryLink;
}

export interface Report {
  readonly subject: { readonly key?: { readonly id: string; readonly name?: string }; readonly workspace?: string };
  /** The worst of the findings' verdicts; `warn` when there was nothing to judge. */
  readonly verdict: Verdict;
  /** The verdict in one or two sentences. */
  readonly summary: string;
  readonly coverage: Coverage;
  readonly requests: { readonly total: number; readonly byOperation: readonly TrafficRow[] };
  readonly findings: readonly Finding[];
}

const subjectWords = (subject: Subject): string =>
  subject.kind === 'key' ? `key ${subject.keyName ?? subject.keyId}` : `workspace ${subject.workspace}`;

export function buildReport(input: ReportInput): Report {
  const { subject, entries, link } = input;
  const words = subjectWords(subject);
  const coverage = coverageOf(entries, input.range, input.dropped, input.journalSize, words);
  const findings: readonly Finding[] = [
    validationFinding(entries, link),
    deprecatedFinding(entries, input.deprecations, link),
    backoffFinding(entries, link),
    bansFinding(entries, link),
    retriesFinding(entries, link),
    shapedFinding(entries, link),
  ];
  const verdict = entries.length === 0 ? 'warn' : worst(findings.map((f) => f.verdict));
  return {
    subject:
      subject.kind === 'key'
        ? { key: { id: subject.keyId, ...(subject.keyName === undefined ? {} : { name: subject.keyName }) } }
        : { workspace: subject.workspace },
    verdict,
    summary: summaryOf(verdict, findings, entries.length, coverage),
    coverage,
    requests: { total: entries.length, byOperation: trafficOf(entries) },
    findings,
  };
}

/** The overall verdict in words: ready or not, and which findings say why. */
function summaryOf(verdict: Verdict, findings: readonly Finding[], requests: number, coverage: Coverage): string {
  const titles = (v: Verdict): string =>
    findings
      .filter((f) => f.verdict === v)
      .map((f) => f.title.toLowerCase())
      .join(', ');
  const over = `over ${plural(requests, 'request')}`;
  const failing = titles('fail');
  const warning = titles('warn');
  const main =
    requests === 0
      ? 'Nothing to judge: no request was journaled in the range.'
      : verdict === 'fail'
        ? `Not ready for go-live ${over}: it fails ${failing}${warning ? `, and should look at ${warning}` : ''}.`
        : verdict === 'warn'
          ? `Ready for go-live ${over}, with things to look at: ${warning}.`
          : `Ready for go-live: every check passed ${over}.`;
  return coverage.complete || requests === 0 ? main : `${main} The journal dropped older requests, which are not judged (see coverage).`;
}
