#!/usr/bin/env node
// The chart of a run: per scenario, grouped horizontal bars for Understudy, Prism at its fastest and
// the ceiling, each as its req/s divided by the ceiling's (labelled with the req/s), the issue's
// throughput targets drawn over them. A hand-written SVG string: no dependency, no service.
// run.mjs writes bench/results/latest.svg (and <timestamp>.svg) after each run; by hand:
//   node bench/chart.mjs [results.json] [out.svg]   (default: bench/results/latest.json -> latest.svg)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WIDTH = 800;
const SERIES = [
  { id: 'understudy', name: 'understudy (defaults, log info)', color: '#2b6cb0' },
  { id: 'prism-fast', name: 'prism mock -v silent', color: '#dd6b20' },
  { id: 'ceiling', name: 'ceiling (node:http, constant answer)', color: '#718096' },
];
/** The issue's targets (verdicts.mjs): req/s >= 0.45 x the ceiling's and >= 5 x Prism's fastest, on these scenarios. */
const CEILING_SHARE = 0.45;
const PRISM_FACTOR = 5;
const TARGETED = ['list', 'get', 'create', 'invalid'];
/** A white outline under label text, so the target lines never hide it. */
const HALO = 'stroke="#ffffff" stroke-width="3" paint-order="stroke"';

/** @param {string} s */
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** @param {number} n */
const px = (n) => (Math.round(n * 10) / 10).toString();
/** @param {number} n */
const thousands = (n) => Math.round(n).toLocaleString('en-US');

/**
 * @typedef {object} ChartRow
 * @property {string} group @property {string} target @property {string} scenario @property {string} scenarioLabel
 * @property {number | null} rps
 */

/**
 * The SVG of a run's report (the JSON run.mjs writes).
 * @param {{ startedAt?: string, machine?: { cpus?: number, cpuModel?: string | null }, loadGenerator?: { kind?: string, version?: string | null, pinning?: string } | null, source?: { commit?: string, srcChanged?: boolean } | null, options?: { connections?: number, duration?: number }, rows?: ChartRow[] }} report
 * @returns {string}
 */
export function chartSvg(report) {
  const rows = (report.rows ?? []).filter((r) => r.group === 'compare');
  /** @type {{ id: string, label: string }[]} */
  const scenarios = [];
  for (const r of rows)
    if (r.scenario && !scenarios.some((s) => s.id === r.scenario)) scenarios.push({ id: r.scenario, label: r.scenarioLabel });
  const rpsOf = (/** @type {string} */ target, /** @type {string} */ scenario) =>
    rows.find((r) => r.target === target && r.scenario === scenario)?.rps ?? null;

  const when = report.startedAt ? `${report.startedAt.slice(0, 16).replace('T', ' ')} UTC` : 'undated';
  const machine = report.machine ? `${report.machine.cpus ?? '?'} cores, ${report.machine.cpuModel ?? 'unknown CPU'}` : 'unknown machine';
  const gen = report.loadGenerator;
  const generator = gen ? `${gen.kind}${gen.version ? ` ${gen.version}` : ''}` : 'autocannon';
  const pinning = gen?.pinning ?? 'unpinned';
  const commit = report.source?.commit
    ? `commit ${report.source.commit.slice(0, 7)}${report.source.srcChanged ? ' + uncommitted src/' : ''}`
    : '';
  const load = report.options ? `${report.options.connections ?? 32} connections, ${report.options.duration ?? '?'} s per run` : '';

  const left = 150;
  const right = WIDTH - 170;
  const top = 114;
  const bar = 15;
  const gap = 3;
  const groupGap = 20;
  const groupHeight = SERIES.length * (bar + gap) - gap;
  let max = 1;
  for (const s of scenarios) {
    const ceiling = rpsOf('ceiling', s.id);
    for (const series of SERIES) {
      const rps = rpsOf(series.id, s.id);
      if (rps !== null && ceiling) max = Math.max(max, rps / ceiling);
      const pf = rpsOf('prism-fast', s.id);
      if (pf !== null && ceiling && TARGETED.includes(s.id)) max = Math.max(max, (PRISM_FACTOR * pf) / ceiling);
    }
  }
  max = Math.ceil(max * 5) / 5;
  const x = (/** @type {number} */ ratio) => left + (ratio / max) * (right - left);
  const plotBottom = top + scenarios.length * (groupHeight + groupGap) - groupGap;
  const height = plotBottom + 118;

  /** @type {string[]} */
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${px(height)}" viewBox="0 0 ${WIDTH} ${px(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${esc(`npm run bench, ${when}: req/s as a share of the ceiling`)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="16" font-weight="bold">${esc(`Understudy bench, ${when}${commit ? ` (${commit})` : ''}`)}</text>`,
    `<text x="16" y="46" fill="#333">${esc(`${machine}; load: ${generator}, ${load}`)}</text>`,
    `<text x="16" y="64" fill="#333">${esc(`pinning: ${pinning}`)}</text>`,
    `<text x="16" y="84" fill="#555" font-size="11">${esc('bars: req/s ÷ the ceiling’s req/s, same scenario (label: req/s); lines: the issue’s targets')}</text>`,
  );
  // Grid and axis.
  for (let t = 0; t <= max + 1e-9; t += max > 2 ? 0.5 : 0.2) {
    const gx = x(t);
    out.push(
      `<line x1="${px(gx)}" y1="${top - 6}" x2="${px(gx)}" y2="${px(plotBottom + 4)}" stroke="#e2e8f0"/>`,
      `<text x="${px(gx)}" y="${px(plotBottom + 18)}" text-anchor="middle" fill="#555" font-size="11">${t.toFixed(1)}</text>`,
    );
  }
  out.push(`<text x="${px((left + right) / 2)}" y="${px(plotBottom + 34)}" text-anchor="middle" fill="#333">req/s ÷ ceiling</text>`);

  // Bars first, then the target lines, then every label (with a halo) over both.
  /** @type {string[]} */
  const bars = [];
  /** @type {string[]} */
  const marks = [];
  /** @type {string[]} */
  const labels = [];
  scenarios.forEach((s, i) => {
    const y0 = top + i * (groupHeight + groupGap);
    const ceiling = rpsOf('ceiling', s.id);
    const pf = rpsOf('prism-fast', s.id);
    // 5 x Prism's fastest, a mark on the understudy bar's row (its label goes right of it).
    const prismMark = TARGETED.includes(s.id) && pf !== null && ceiling ? x((PRISM_FACTOR * pf) / ceiling) : null;
    labels.push(`<text x="${left - 10}" y="${px(y0 + groupHeight / 2 + 4)}" text-anchor="end" font-weight="bold">${esc(s.label)}</text>`);
    SERIES.forEach((series, j) => {
      const rps = rpsOf(series.id, s.id);
      const by = y0 + j * (bar + gap);
      if (rps === null || !ceiling) {
        labels.push(`<text x="${left + 4}" y="${px(by + bar - 3)}" fill="#999" font-size="11">${esc(`${series.id}: not measured`)}</text>`);
        return;
      }
      const ratio = rps / ceiling;
      const w = Math.max(1, x(ratio) - left);
      bars.push(
        `<rect x="${left}" y="${px(by)}" width="${px(w)}" height="${bar}" fill="${series.color}"><title>${esc(`${series.name}, ${s.label}: ${thousands(rps)} req/s, ${ratio.toFixed(2)} × ceiling`)}</title></rect>`,
      );
      const labelX = Math.max(left + w, j === 0 && prismMark !== null ? prismMark + 2 : 0) + 5;
      labels.push(
        `<text x="${px(labelX)}" y="${px(by + bar - 3)}" font-size="11" fill="#222" ${HALO}>${esc(`${thousands(rps)} req/s (${ratio.toFixed(2)})`)}</text>`,
      );
    });
    if (prismMark !== null && pf !== null) {
      marks.push(
        `<line x1="${px(prismMark)}" y1="${px(y0 - 3)}" x2="${px(prismMark)}" y2="${px(y0 + bar + 3)}" stroke="#c53030" stroke-width="2.5"><title>${esc(`target: ${PRISM_FACTOR} × prism -v silent = ${thousands(PRISM_FACTOR * pf)} req/s`)}</title></line>`,
      );
    }
  });
  // 0.45 x ceiling, over the targeted scenarios' groups.
  const targetedIdx = scenarios.map((s, i) => (TARGETED.includes(s.id) ? i : -1)).filter((i) => i >= 0);
  if (targetedIdx.length > 0) {
    const y1 = top + Math.min(...targetedIdx) * (groupHeight + groupGap) - 8;
    const y2 = top + Math.max(...targetedIdx) * (groupHeight + groupGap) + groupHeight + 8;
    const lx = x(CEILING_SHARE);
    marks.push(
      `<line x1="${px(lx)}" y1="${px(y1)}" x2="${px(lx)}" y2="${px(y2)}" stroke="#2f855a" stroke-width="2" stroke-dasharray="6 4"/>`,
    );
    labels.push(`<text x="${px(lx + 4)}" y="${px(y1 + 1)}" fill="#2f855a" font-size="11" ${HALO}>${CEILING_SHARE} × ceiling</text>`);
  }
  out.push(...bars, ...marks, ...labels);
  // Legend.
  const ly = plotBottom + 52;
  SERIES.forEach((series, j) => {
    const lx = 16 + j * 260;
    out.push(
      `<rect x="${lx}" y="${ly}" width="14" height="12" fill="${series.color}"/>`,
      `<text x="${lx + 20}" y="${ly + 10}">${esc(series.name)}</text>`,
    );
  });
  out.push(
    `<line x1="16" y1="${ly + 30}" x2="40" y2="${ly + 30}" stroke="#2f855a" stroke-width="2" stroke-dasharray="6 4"/>`,
    `<text x="46" y="${ly + 34}">${esc(`target: understudy ≥ ${CEILING_SHARE} × the ceiling (list, get, create, invalid create)`)}</text>`,
    `<line x1="28" y1="${ly + 42}" x2="28" y2="${ly + 58}" stroke="#c53030" stroke-width="2.5"/>`,
    `<text x="46" y="${ly + 54}">${esc(`target: understudy ≥ ${PRISM_FACTOR} × prism mock -v silent (same scenarios; on the understudy bar)`)}</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Writes the chart of `report` to `file`. @param {Parameters<typeof chartSvg>[0]} report @param {string} file */
export function writeChart(report, file) {
  writeFileSync(file, chartSvg(report));
  return file;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../', import.meta.url));
  const input = process.argv[2] ?? join(root, 'bench/results/latest.json');
  const output = process.argv[3] ?? join(root, 'bench/results/latest.svg');
  writeChart(JSON.parse(readFileSync(input, 'utf8')), output);
  process.stdout.write(`chart: wrote ${output}\n`);
}
