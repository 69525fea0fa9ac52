// The report: one table (every figure also divided by Prism-at-its-fastest's and the ceiling's),
// and the same as JSON in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartSvg } from './chart.mjs';
import { ROOT } from './options.mjs';
import { BASELINES } from './targets.mjs';

/**
 * @typedef {object} Row  one line of the table
 * @property {string} group        'compare' | 'store size' | 'document size'
 * @property {string} target       target id
 * @property {string} label        target label
 * @property {string} scenario     scenario id ('' for a start-only row)
 * @property {string} scenarioLabel
 * @property {string} baselineScenario  the baselines' scenario it is divided by
 * @property {number | null} rps
 * @property {number | null} p50Ms
 * @property {number | null} p99Ms
 * @property {number | null} errors
 * @property {number | null} startMs   cold start (first row of a target only)
 * @property {number | null} rssMb     peak resident memory (first row of a target only)
 * @property {Record<string, Record<string, number | null>>} [ratios]  baseline id -> metric -> ratio
 * @property {string} [note]
 */

export const METRICS = /** @type {const} */ (['rps', 'p50Ms', 'p99Ms', 'errors', 'startMs', 'rssMb']);
const HEADERS = { rps: 'req/s', p50Ms: 'p50 ms', p99Ms: 'p99 ms', errors: 'errors', startMs: 'start ms', rssMb: 'RSS MB' };
const SHORT = { 'prism-fast': '÷pf', ceiling: '÷ceil' };

/** Divides every figure of every row by the same figure of each baseline (null when undefined). @param {Row[]} rows */
export function addRatios(rows) {
  const find = (/** @type {string} */ target, /** @type {string} */ scenario) =>
    rows.find((r) => r.group === 'compare' && r.target === target && r.scenario === scenario);
  const first = (/** @type {string} */ target) => rows.find((r) => r.group === 'compare' && r.target === target);
  for (const row of rows) {
    row.ratios = {};
    for (const baseline of BASELINES) {
      const base = find(baseline, row.baselineScenario);
      const start = first(baseline);
      /** @type {Record<string, number | null>} */
      const ratios = {};
      for (const metric of METRICS) {
        const own = row[metric];
        const other = metric === 'startMs' || metric === 'rssMb' ? start?.[metric] : base?.[metric];
        ratios[metric] = own === null || other === null || other === undefined || other === 0 ? null : own / other;
      }
      row.ratios[baseline] = ratios;
    }
  }
  return rows;
}

/** @param {number | null | undefined} value @param {string} metric */
function figure(value, metric) {
  if (value === null || value === undefined) return '';
  if (metric === 'rps' || metric === 'errors' || metric === 'startMs' || metric === 'rssMb')
    return Math.round(value).toLocaleString('en-US');
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
}

/** @param {number | null | undefined} ratio */
function times(ratio) {
  if (ratio === null || ratio === undefined) return '';
  return ratio === 0 ? '0' : ratio < 10 ? ratio.toFixed(2) : ratio < 100 ? ratio.toFixed(1) : Math.round(ratio).toString();
}

/** Plain-text table. @param {Row[]} rows */
export function formatTable(rows) {
  const header = ['target', 'scenario'];
  for (const metric of METRICS) header.push(HEADERS[metric], ...BASELINES.map((b) => SHORT[b]));
  const lines = [header];
  let group = '';
  /** @type {number[]} */
  const rules = [];
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      rules.push(lines.length);
    }
    const cells = [row.label, row.note ? `${row.scenarioLabel}: ${row.note}` : row.scenarioLabel];
    for (const metric of METRICS)
      cells.push(figure(row[metric], metric), ...BASELINES.map((b) => (row[metric] === null ? '' : times(row.ratios?.[b]?.[metric]))));
    lines.push(cells);
  }
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  const render = (/** @type {string[]} */ cells) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const rule = '-'.repeat(render(header).length);
  /** @type {string[]} */
  const out = [];
  lines.forEach((cells, i) => {
    if (rules.includes(i)) out.push(rule);
    out.push(render(cells));
  });
  out.push(rule);
  return out.join('\n');
}

/**
 * Writes bench/results/<ISO timestamp>.json and bench/results/latest.json, and the chart beside them
 * (<ISO timestamp>.svg, latest.svg). A quick run writes bench/results/quick-latest.json and
 * quick-latest.svg only, and a run of some targets (BENCH_TARGETS) its timestamped files only: a
 * smoke run or a partial one never replaces the latest full one.
 * @param {object} report @param {Date} at @param {'full' | 'quick' | 'partial'} [kind]
 * @param {string} [dir] where to write them (bench/results)
 * @returns {{ file: string, chart: string, svg: string }}
 */
export function writeResults(report, at, kind = 'full', dir = join(ROOT, 'bench/results')) {
  mkdirSync(dir, { recursive: true });
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z'); // basic ISO 8601: 20261122T113000Z
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const svg = chartSvg(/** @type {Parameters<typeof chartSvg>[0]} */ (report));
  const names = kind === 'quick' ? ['quick-latest'] : kind === 'partial' ? [stamp] : [stamp, 'latest'];
  for (const name of names) {
    writeFileSync(join(dir, `${name}.json`), text);
    writeFileSync(join(dir, `${name}.svg`), svg);
  }
  return { file: join(dir, `${names[0]}.json`), chart: join(dir, `${names[0]}.svg`), svg };
}
