// The issue's targets ("Speed, measured the hard way"), checked against a run: Understudy as
// `npm start` runs it (target `understudy`: the defaults, request log at info) against Prism at its
// fastest and the ceiling, scenario by scenario; and the capabilities-off comparison.

/** Scenarios whose throughput has targets (the no-key and mixed ones only have the p99 target). */
export const THROUGHPUT_SCENARIOS = ['list', 'get', 'create', 'invalid'];
/** Scenarios whose peak RSS has a target. */
export const MEMORY_SCENARIOS = ['list', 'get'];
export const LIMITS = { ceilingShare: 0.45, prismFactor: 5, p99ToPrism: 0.1, rssMb: 100, coldStartMs: 200 };

/**
 * @typedef {object} Check
 * @property {string} id           ceilingShare | prismFactor | p99ToPrism | rssMb | coldStartMs
 * @property {string} scenario     scenario id ('' for cold start)
 * @property {number | null} value
 * @property {number} limit
 * @property {'>=' | '<='} op
 * @property {boolean | null} met  null when not measured
 */

/**
 * The peak RSS the target is read from, in MB: under the scenario's load on the store as seeded (its
 * rounds before any scenario that writes, such as create, grew the store), else its median round's.
 * @param {import('./measure.mjs').LoadResult | undefined} r
 */
export const targetRssMb = (r) => {
  const kb = r?.seedStorePeakRssKb ?? r?.peakRssKb;
  return kb ? kb / 1024 : null;
};

/** The middle value, or the mean of the two middle ones; null for none. @param {number[]} values */
export const median = (values) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** @param {number | null | undefined} a @param {number | null | undefined} b */
const divide = (a, b) => (a === null || a === undefined || !b ? null : a / b);

/**
 * @param {import('./run.mjs').TargetResult[]} entries  the comparison targets of the run
 * @param {import('./scenarios.mjs').Scenario[]} scenarios
 * @param {string} [subject]  the target checked
 * @param {number | null} [coldStartMs]  the median of the run's cold starts (cold-start.mjs); without it, the subject's own start
 * @returns {{ subject: string, checks: Check[], met: number, measured: number }}
 */
export function checkTargets(entries, scenarios, subject = 'understudy', coldStartMs = null) {
  const own = entries.find((e) => e.id === subject);
  const pf = entries.find((e) => e.id === 'prism-fast');
  const ceiling = entries.find((e) => e.id === 'ceiling');
  /** @type {Check[]} */
  const checks = [];
  /** @param {string} id @param {string} scenario @param {number | null} value @param {'>=' | '<='} op @param {number} limit */
  const add = (id, scenario, value, op, limit) =>
    checks.push({ id, scenario, value, limit, op, met: value === null ? null : op === '>=' ? value >= limit : value <= limit });
  for (const { id } of scenarios) {
    const r = own?.scenarios[id];
    if (THROUGHPUT_SCENARIOS.includes(id)) {
      add('ceilingShare', id, divide(r?.rps, ceiling?.scenarios[id]?.rps), '>=', LIMITS.ceilingShare);
      add('prismFactor', id, divide(r?.rps, pf?.scenarios[id]?.rps), '>=', LIMITS.prismFactor);
    }
    add('p99ToPrism', id, divide(r?.p99Ms, pf?.scenarios[id]?.p99Ms), '<=', LIMITS.p99ToPrism);
    if (MEMORY_SCENARIOS.includes(id)) add('rssMb', id, targetRssMb(r), '<=', LIMITS.rssMb);
  }
  add('coldStartMs', '', coldStartMs ?? own?.coldStartMs ?? null, '<=', LIMITS.coldStartMs);
  return { subject, checks, met: checks.filter((c) => c.met === true).length, measured: checks.filter((c) => c.met !== null).length };
}

/** @param {number | null} value @param {number} digits */
const fixed = (value, digits) => (value === null ? 'n/a' : value.toFixed(digits));
/** @param {boolean | null} met */
const word = (met) => (met === null ? 'n/a' : met ? 'met' : 'MISSED');

/**
 * Lines under the table: one row per scenario, a column per target; also the ratios the targets do
 * not cover (no key, mixed), in brackets.
 * @param {ReturnType<typeof checkTargets>} result @param {import('./run.mjs').TargetResult[]} entries
 * @param {import('./scenarios.mjs').Scenario[]} scenarios
 */
export function formatTargets(result, entries, scenarios) {
  const own = entries.find((e) => e.id === result.subject);
  const pf = entries.find((e) => e.id === 'prism-fast');
  const ceiling = entries.find((e) => e.id === 'ceiling');
  const columns = [
    `req/s ÷ceil (>= ${LIMITS.ceilingShare})`,
    `req/s ÷pf (>= ${LIMITS.prismFactor})`,
    `p99 ÷pf (<= ${LIMITS.p99ToPrism})`,
    `peak RSS MB (<= ${LIMITS.rssMb})`,
  ];
  const width = Math.max(...scenarios.map((s) => s.label.length), 'scenario'.length);
  const lines = [
    `targets (the issue's; "${own?.label ?? result.subject}" as npm start runs it, against prism mock -v silent and the ceiling; RSS: peak during the measured window, on the store as seeded, before create and mixed grew it):`,
    `  ${'scenario'.padEnd(width)}  ${columns.map((c) => c.padEnd(24)).join('')}`.trimEnd(),
  ];
  for (const s of scenarios) {
    const cell = (/** @type {string} */ id, /** @type {() => number | null} */ info, /** @type {number} */ digits) => {
      const check = result.checks.find((c) => c.id === id && c.scenario === s.id);
      if (check) return `${fixed(check.value, digits)} ${word(check.met)}`;
      const value = info();
      return value === null ? '' : `(${fixed(value, digits)})`;
    };
    const r = own?.scenarios[s.id];
    const cells = [
      cell('ceilingShare', () => divide(r?.rps, ceiling?.scenarios[s.id]?.rps), 2),
      cell('prismFactor', () => divide(r?.rps, pf?.scenarios[s.id]?.rps), 2),
      cell('p99ToPrism', () => divide(r?.p99Ms, pf?.scenarios[s.id]?.p99Ms), 2),
      cell('rssMb', () => targetRssMb(r), 0),
    ];
    lines.push(`  ${s.label.padEnd(width)}  ${cells.map((c) => c.padEnd(24)).join('')}`.trimEnd());
  }
  const grown = MEMORY_SCENARIOS.map((id) => ({ id, r: own?.scenarios[id] }))
    .filter(({ r }) => r?.seedStorePeakRssKb && r.peakRssKb && r.peakRssKb !== r.seedStorePeakRssKb)
    .map(({ id, r }) => `${id} ${fixed((r?.peakRssKb ?? 0) / 1024, 0)} MB`);
  if (grown.length > 0) lines.push(`  peak RSS in the median round, on the store as create and mixed left it: ${grown.join(', ')}`);
  lines.push(...formatRounds(own, pf, ceiling, scenarios));
  const cold = result.checks.find((c) => c.id === 'coldStartMs');
  lines.push(
    `  cold start of the CLI (spawn to first 2xx, the server on its core; the median of the cold-start rounds when they ran): ${cold?.value === null || !cold ? 'n/a' : `${Math.round(cold.value)} ms`} (<= ${LIMITS.coldStartMs}): ${word(cold?.met ?? null)}`,
    `  met ${result.met} of ${result.measured} (bracketed: the ratio where the issue sets no target)`,
  );
  return lines;
}

/**
 * The same ratios taken round by round, each pair measured minutes apart (interleave.mjs): the
 * verdict divides each target's own median round, which may come from different rounds, and on a
 * machine whose speed moves between rounds these show how far that matters. Per round i, the
 * subject's figure ÷ the other's in the same round i. None when a target ran a single round.
 * @param {import('./run.mjs').TargetResult | undefined} own @param {import('./run.mjs').TargetResult | undefined} pf
 * @param {import('./run.mjs').TargetResult | undefined} ceiling @param {import('./scenarios.mjs').Scenario[]} scenarios
 * @returns {string[]}
 */
export function formatRounds(own, pf, ceiling, scenarios) {
  /** @param {'rps' | 'p99Ms'} field @param {string} id @param {import('./run.mjs').TargetResult | undefined} other */
  const perRound = (field, id, other) => {
    const mine = /** @type {{ rps: number, p99Ms: number | null }[] | undefined} */ (own?.scenarios[id]?.rounds);
    const theirs = /** @type {{ rps: number, p99Ms: number | null }[] | undefined} */ (other?.scenarios[id]?.rounds);
    if (!mine || !theirs || mine.length < 2 || theirs.length !== mine.length) return '';
    return mine.map((r, i) => fixed(divide(r[field], theirs[i]?.[field]), 2)).join(' ');
  };
  const width = Math.max(...scenarios.map((s) => s.label.length), 'scenario'.length);
  const rows = scenarios
    .map((s) => [s.label, perRound('rps', s.id, ceiling), perRound('rps', s.id, pf), perRound('p99Ms', s.id, pf)])
    .filter(([, ...cells]) => cells.some((cell) => cell !== ''));
  if (rows.length === 0) return [];
  const columnWidth = Math.max(...rows.flatMap(([, ...cells]) => cells.map((cell) => cell.length)), 'p99 ÷pf'.length) + 4;
  return [
    `  round by round (round i's ratio of the two targets' round i; the verdict above divides median rounds):`,
    `    ${'scenario'.padEnd(width)}  ${['req/s ÷ceil', 'req/s ÷pf', 'p99 ÷pf'].map((c) => c.padEnd(columnWidth)).join('')}`.trimEnd(),
    ...rows.map(([label, ...cells]) => `    ${label.padEnd(width)}  ${cells.map((c) => c.padEnd(columnWidth)).join('')}`.trimEnd()),
  ];
}

/**
 * One pair of the capabilities comparison: off ÷ another configuration per scenario, the median
 * rounds' and each round's.
 * @param {import('./run.mjs').TargetResult | undefined} off @param {import('./run.mjs').TargetResult | undefined} on
 * @param {import('./scenarios.mjs').Scenario[]} scenarios
 */
export function compareCapabilities(off, on, scenarios) {
  /** @type {Record<string, { rps: number | null, p99: number | null, rpsRounds: (number | null)[], p99Rounds: (number | null)[], peakRssOffMb: number | null, peakRssOnMb: number | null }>} */
  const byScenario = {};
  for (const s of scenarios) {
    const a = off?.scenarios[s.id];
    const b = on?.scenarios[s.id];
    if (!a || !b) continue;
    const ra = /** @type {{ rps: number, p99Ms: number | null }[]} */ (a.rounds ?? [a]);
    const rb = /** @type {{ rps: number, p99Ms: number | null }[]} */ (b.rounds ?? [b]);
    byScenario[s.id] = {
      rps: divide(a.rps, b.rps),
      p99: divide(a.p99Ms, b.p99Ms),
      rpsRounds: ra.map((r, i) => divide(r.rps, rb[i]?.rps)),
      p99Rounds: ra.map((r, i) => divide(r.p99Ms, rb[i]?.p99Ms)),
      peakRssOffMb: a.peakRssKb ? a.peakRssKb / 1024 : null,
      peakRssOnMb: b.peakRssKb ? b.peakRssKb / 1024 : null,
    };
  }
  return {
    off: off?.id ?? null,
    on: on?.id ?? null,
    byScenario,
    startOffMs: off?.coldStartMs ?? null,
    startOnMs: on?.coldStartMs ?? null,
    peakRssOffMb: off?.peakRssKb ? off.peakRssKb / 1024 : null,
    peakRssOnMb: on?.peakRssKb ? on.peakRssKb / 1024 : null,
  };
}

/**
 * The rows of the capabilities comparison: each capability turned off, then all of them, each
 * against all on (`understudy-all`). What `understudy-no-admin` turns off takes the journal with it:
 * without an admin token nothing could read it, so nothing is recorded.
 */
export const CAPABILITY_ROWS = [
  { id: 'journal', label: 'journal', target: 'understudy-no-journal' },
  { id: 'admin', label: 'admin API, rules', target: 'understudy-no-admin' },
  { id: 'watch', label: 'hot reload', target: 'understudy-no-watch' },
  { id: 'workspaces', label: 'workspaces', target: 'understudy-no-workspaces' },
  { id: 'all', label: 'all of them', target: 'understudy-minimal' },
];

/**
 * Each row of the capabilities comparison that was measured: its configuration ÷ all on, per
 * scenario. Null when all on was not measured.
 * @param {import('./run.mjs').TargetResult[]} entries @param {import('./scenarios.mjs').Scenario[]} scenarios
 */
export function compareEachCapability(entries, scenarios) {
  const find = (/** @type {string} */ id) => entries.find((e) => e.id === id && !e.error);
  const on = find('understudy-all');
  if (!on) return null;
  return CAPABILITY_ROWS.flatMap((row) => {
    const off = find(row.target);
    return off ? [{ id: row.id, label: row.label, ...compareCapabilities(off, on, scenarios) }] : [];
  });
}

/**
 * The capabilities comparison's lines: a table of req/s ratios, a row per capability turned off and
 * a column per scenario, then each row's ratios round by round, p99 and memory beside them.
 * @param {NonNullable<ReturnType<typeof compareEachCapability>>} rows
 * @param {number} rounds @param {number} targets @param {import('./scenarios.mjs').Scenario[]} scenarios
 */
export function formatCapabilities(rows, rounds, targets, scenarios) {
  const shown = scenarios.filter((s) => rows.some((r) => r.byScenario[s.id]));
  const width = Math.max(...CAPABILITY_ROWS.map((r) => r.label.length), 'turned off'.length);
  const column = Math.max(8, ...shown.map((s) => s.label.length + 2));
  const lines = [
    `capabilities, each turned off ÷ all on (understudy-all: an admin token, so the admin API and rules (none set), the journal of 1000`,
    `  recording, --watch, a workspace team-a beside the default; no Redis, which the replica rows measure); ${targets} configurations up at`,
    `  once, measured in turn, ${rounds} round${rounds === 1 ? '' : 's'}, order reversed every other round. req/s of the median rounds, above 1: turned off served more:`,
    `    ${'turned off'.padEnd(width)}  ${shown.map((s) => s.label.padEnd(column)).join('')}`.trimEnd(),
    ...rows.map((r) =>
      `    ${r.label.padEnd(width)}  ${shown.map((s) => fixed(r.byScenario[s.id]?.rps ?? null, 2).padEnd(column)).join('')}`.trimEnd(),
    ),
  ];
  if (rounds > 1) lines.push(`  each round's ratio in brackets:`);
  const spread = (/** @type {(number | null)[]} */ xs) => (xs.length > 1 ? ` [${xs.map((x) => fixed(x, 2)).join(' ')}]` : '');
  for (const row of rows) {
    lines.push(`  ${row.label} off ÷ all on (${row.off}):`);
    for (const s of shown) {
      const r = row.byScenario[s.id];
      if (!r) continue;
      lines.push(
        `    ${s.label.padEnd(15)} req/s ${fixed(r.rps, 2)}${spread(r.rpsRounds)}  p99 ${fixed(r.p99, 2)}${spread(r.p99Rounds)}  window peak RSS ${fixed(r.peakRssOffMb, 0)} vs ${fixed(r.peakRssOnMb, 0)} MB`,
      );
    }
    lines.push(
      `    cold start ${row.startOffMs === null ? 'n/a' : Math.round(row.startOffMs)} vs ${row.startOnMs === null ? 'n/a' : Math.round(row.startOnMs)} ms; peak RSS over the run ${fixed(row.peakRssOffMb, 0)} vs ${fixed(row.peakRssOnMb, 0)} MB`,
    );
  }
  return lines;
}
