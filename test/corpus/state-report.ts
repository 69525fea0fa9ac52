import type { Step, StateOutcome } from './statefulness.js';

/** The statefulness figure of a corpus run: collections kept, and round-trip steps passed of tried, per id kind. */
export interface StateSummary {
  readonly collections: number;
  readonly tried: number;
  readonly passed: number;
  readonly passedPct: number;
  readonly byKind: Readonly<Record<string, { collections: number; tried: number; passed: number; passedPct: number }>>;
  readonly byStep: Readonly<Partial<Record<Step, { tried: number; passed: number }>>>;
  /** Failed steps, most frequent first: `step: detail`. */
  readonly failures: readonly { readonly count: number; readonly what: string; readonly documents: readonly string[] }[];
}

const pct = (passed: number, tried: number): number => (tried === 0 ? 0 : Math.round((passed / tried) * 1000) / 10);

export function summariseState(results: readonly { readonly id: string; readonly state?: readonly StateOutcome[] }[]): StateSummary {
  const byKind: Record<string, { collections: number; tried: number; passed: number; passedPct: number }> = {};
  const byStep: Partial<Record<Step, { tried: number; passed: number }>> = {};
  const failures = new Map<string, { count: number; documents: Set<string> }>();
  let collections = 0;
  for (const r of results) {
    for (const c of r.state ?? []) {
      collections++;
      const kind = (byKind[c.idKind] ??= { collections: 0, tried: 0, passed: 0, passedPct: 0 });
      kind.collections++;
      for (const s of c.steps) {
        kind.tried++;
        const step = (byStep[s.step] ??= { tried: 0, passed: 0 });
        step.tried++;
        if (s.ok) {
          kind.passed++;
          step.passed++;
          continue;
        }
        const what = `${s.step}: ${(s.detail ?? '').replace(/\d+/g, 'N')}`;
        const entry = failures.get(what) ?? { count: 0, documents: new Set<string>() };
        entry.count++;
        entry.documents.add(r.id);
        failures.set(what, entry);
      }
    }
  }
  for (const kind of Object.values(byKind)) kind.passedPct = pct(kind.passed, kind.tried);
  const tried = Object.values(byKind).reduce((n, k) => n + k.tried, 0);
  const passed = Object.values(byKind).reduce((n, k) => n + k.passed, 0);
  return {
    collections,
    tried,
    passed,
    passedPct: pct(passed, tried),
    byKind,
    byStep,
    failures: [...failures]
      .sort((a, b) => b[1].count - a[1].count)
      .map(([what, f]) => ({ count: f.count, what, documents: [...f.documents] })),
  };
}

export function stateLines(s: StateSummary): string[] {
  const lines = ['', `statefulness: ${s.collections} collections round-tripped; ${s.passed}/${s.tried} steps passed (${s.passedPct}%)`];
  for (const [kind, k] of Object.entries(s.byKind))
    lines.push(`  ${kind.padEnd(13)} ${String(k.collections).padStart(4)} collections  ${k.passed}/${k.tried} steps (${k.passedPct}%)`);
  for (const [step, t] of Object.entries(s.byStep)) lines.push(`  step ${step.padEnd(14)} ${t.passed}/${t.tried}`);
  if (s.failures.length > 0) {
    lines.push('', 'failed round-trip steps by cause:');
    for (const f of s.failures.slice(0, 20)) lines.push(`  ${f.count} × ${f.what}  [${f.documents.join(', ')}]`);
  }
  return lines;
}
