import type { CorpusDocument } from './manifest.js';
import type { DocumentResult, Verdict } from './run-document.js';
import { stateLines, summariseState, type StateSummary } from './state-report.js';

/** Totals, size bands and grouped causes from the per-document results. */

export const BANDS = [
  { name: '< 100 KB', max: 100 * 1024 },
  { name: '100 KB–1 MB', max: 1024 * 1024 },
  { name: '1–5 MB', max: 5 * 1024 * 1024 },
  { name: '> 5 MB', max: Infinity },
] as const;

export const bandOf = (bytes: number): string => BANDS.find((b) => bytes < b.max)?.name ?? '> 5 MB';

export interface Summary {
  readonly documents: number;
  readonly started: number;
  readonly operations: number;
  /** Operations a valid request was built for (the denominator of withinContractPct). */
  readonly judged: number;
  readonly withinContract: number;
  readonly withinContractPct: number;
  readonly verdicts: Readonly<Record<Verdict, number>>;
  readonly nearValidSent: number;
  readonly nearValidAccepted: number;
  readonly nearValidServerErrors: number;
  readonly refusalsBreakingDeclaredErrorSchema: number;
  readonly bands: readonly { band: string; documents: number; started: number; startMs: number[]; peakRssMb: number[] }[];
  readonly startFailures: readonly { id: string; message: string }[];
  /** Causes, most frequent first: `count × cause (documents)`. */
  readonly falseRejectionCauses: readonly Cause[];
  readonly contractCauses: readonly Cause[];
  readonly serverErrorCauses: readonly Cause[];
  readonly unbuildableCauses: readonly Cause[];
  readonly nearValidAcceptedByMutation: Readonly<Record<string, number>>;
  readonly statefulness: StateSummary;
}

export interface Cause {
  readonly count: number;
  readonly cause: string;
  readonly documents: readonly string[];
  readonly example: string;
}

/** Groups messages by their shape: names, numbers and quoted values replaced, so one cause is one line. */
export function causeOf(text: string): string {
  return text
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b(query|header|path|cookie|body)\.[\w.[\]-]+/g, '$1.…')
    .replace(/\/[\w{}./~%-]+/g, '/…')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

function group(items: readonly { doc: string; text: string; example: string }[]): Cause[] {
  const map = new Map<string, { count: number; documents: Set<string>; example: string }>();
  for (const item of items) {
    const key = causeOf(item.text);
    const entry = map.get(key) ?? { count: 0, documents: new Set<string>(), example: item.example };
    entry.count++;
    entry.documents.add(item.doc);
    map.set(key, entry);
  }
  return [...map.entries()]
    .map(([cause, e]) => ({ count: e.count, cause, documents: [...e.documents], example: e.example }))
    .sort((a, b) => b.count - a.count);
}

export function summarise(docs: readonly CorpusDocument[], results: readonly DocumentResult[]): Summary {
  const verdicts: Record<Verdict, number> = {
    ok: 0,
    contract: 0,
    rejected: 0,
    'not-found': 0,
    'undeclared-not-found': 0,
    'server-error': 0,
    unbuildable: 0,
    transport: 0,
  };
  const outcomes = results.flatMap((r) => r.outcomes.map((o) => ({ ...o, doc: r.id })));
  for (const o of outcomes) verdicts[o.verdict]++;
  const near = results.flatMap((r) => r.near.map((n) => ({ ...n, doc: r.id })));
  const judged = outcomes.length - verdicts.unbuildable;
  const withinContract = verdicts.ok + verdicts['not-found'];
  const pick = (verdict: Verdict) =>
    outcomes.filter((o) => o.verdict === verdict).map((o) => ({ doc: o.doc, text: o.detail ?? o.code ?? '', example: `${o.doc} ${o.op}` }));
  const acceptedByMutation: Record<string, number> = {};
  for (const n of near.filter((x) => x.verdict === 'accepted')) acceptedByMutation[n.mutation] = (acceptedByMutation[n.mutation] ?? 0) + 1;
  return {
    documents: docs.length,
    started: results.filter((r) => r.started).length,
    operations: outcomes.length,
    judged,
    withinContract,
    withinContractPct: judged === 0 ? 0 : Math.round((withinContract / judged) * 1000) / 10,
    verdicts,
    nearValidSent: near.length,
    nearValidAccepted: near.filter((n) => n.verdict === 'accepted').length,
    nearValidServerErrors: near.filter((n) => n.verdict === 'server-error').length,
    refusalsBreakingDeclaredErrorSchema: near.filter((n) => n.errorBreach !== undefined).length,
    bands: BANDS.map((b) => {
      const inBand = results.filter((r) => bandOf(r.bytes) === b.name);
      return {
        band: b.name,
        documents: inBand.length,
        started: inBand.filter((r) => r.started).length,
        startMs: inBand.flatMap((r) => (r.startMs === undefined ? [] : [r.startMs])),
        peakRssMb: inBand.map((r) => r.peakRssMb),
      };
    }),
    startFailures: results.filter((r) => !r.started).map((r) => ({ id: r.id, message: r.startError ?? '' })),
    falseRejectionCauses: group(pick('rejected')),
    contractCauses: group(pick('contract')),
    serverErrorCauses: group([...pick('server-error'), ...pick('transport')]),
    unbuildableCauses: group(pick('unbuildable')),
    nearValidAcceptedByMutation: acceptedByMutation,
    statefulness: summariseState(results),
  };
}

const range = (values: readonly number[]): string =>
  values.length === 0 ? '–' : values.length === 1 ? String(values[0]) : `${Math.min(...values)}–${Math.max(...values)}`;

/** The printed report: one line per document, then the totals and the causes. */
export function format(docs: readonly CorpusDocument[], results: readonly DocumentResult[], summary: Summary): string {
  const lines: string[] = [];
  lines.push('document                      oas    size KB  start ms  peak MB   ops  in-contract  rejected  5xx  near sent/accepted');
  for (const r of results) {
    const doc = docs.find((d) => d.id === r.id);
    const count = (v: Verdict) => r.outcomes.filter((o) => o.verdict === v).length;
    const judged = r.outcomes.length - count('unbuildable');
    const within = count('ok') + count('not-found');
    lines.push(
      [
        r.id.padEnd(29),
        (doc?.openapi ?? '').padEnd(6),
        String(Math.round(r.bytes / 1024)).padStart(8),
        (r.started ? String(r.startMs) : 'FAILED').padStart(9),
        String(r.peakRssMb).padStart(8),
        String(r.operations).padStart(5),
        `${within}/${judged}`.padStart(12),
        String(count('rejected')).padStart(9),
        String(count('server-error')).padStart(4),
        `${r.near.length}/${r.near.filter((n) => n.verdict === 'accepted').length}`.padStart(19),
      ].join(' '),
    );
  }
  const s = summary;
  lines.push('');
  lines.push(`documents started: ${s.started}/${s.documents}`);
  lines.push(`operations: ${s.operations}, judged ${s.judged}; within contract ${s.withinContract} (${s.withinContractPct}%)`);
  const undeclared = s.verdicts['undeclared-not-found'];
  if (undeclared > 0) {
    const rest = s.judged - undeclared;
    const pct = rest === 0 ? 0 : Math.round((s.withinContract / rest) * 1000) / 10;
    lines.push(
      `  ${undeclared} of the misses are 404s for a missing record the document declares no 404 for (decision 0015); without them ${pct}%`,
    );
  }
  lines.push(`verdicts: ${JSON.stringify(s.verdicts)}`);
  lines.push(
    `near-valid: ${s.nearValidSent} sent, ${s.nearValidAccepted} accepted ${JSON.stringify(s.nearValidAcceptedByMutation)}, ${s.nearValidServerErrors} 5xx`,
  );
  lines.push(`refusals whose body breaks the document's declared error schema: ${s.refusalsBreakingDeclaredErrorSchema}`);
  for (const b of s.bands)
    lines.push(`band ${b.band}: ${b.started}/${b.documents} started, start ${range(b.startMs)} ms, peak RSS ${range(b.peakRssMb)} MB`);
  const causes = (title: string, list: readonly Cause[]) => {
    if (list.length === 0) return;
    lines.push('', `${title}:`);
    for (const c of list.slice(0, 25))
      lines.push(`  ${c.count} × ${c.cause}  [${c.documents.length} doc: ${c.documents.join(', ')}] e.g. ${c.example}`);
  };
  if (s.startFailures.length > 0) lines.push('', 'start failures:', ...s.startFailures.map((f) => `  ${f.id}: ${f.message}`));
  causes('false rejections by cause', s.falseRejectionCauses);
  causes('contract breaches by cause', s.contractCauses);
  causes('5xx / transport by cause', s.serverErrorCauses);
  causes('not judged (harness could not build a valid request)', s.unbuildableCauses);
  lines.push(...stateLines(s.statefulness));
  return lines.join('\n');
}
