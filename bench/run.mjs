#!/usr/bin/env node
// npm run bench: Understudy against Prism and a constant-answer ceiling, on one machine and one
// document, then Understudy's store-size and document-size rows. Prints one table, writes
// bench/results/<timestamp>.json and bench/results/latest.json. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchDurable, formatDurable } from './durable.mjs';
import { foreignCpu, waitForQuiet } from './machine.mjs';
import { measureLoad } from './measure.mjs';
import { readOptions, ROOT } from './options.mjs';
import { benchReplicas, formatReplicas } from './replicas.mjs';
import { freePort, logTail, memoryOf, sampleRss, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';
import { addRatios, formatTable, writeResults } from './report.mjs';
import { SCENARIOS, storeSizeScenarios } from './scenarios.mjs';
import {
  baselineTarget,
  BASELINES,
  BENCH_KEY,
  DOCUMENT_TARGETS,
  GITHUB,
  GITHUB_VERSION,
  PRISM_VERSION,
  storeSizeTarget,
  TARGETS,
} from './targets.mjs';

const require = createRequire(import.meta.url);
const log = (/** @type {string} */ message) => process.stderr.write(`bench: ${message}\n`);
const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
const FIRST_PAGE = '/pets?status=available&limit=20';
/** Share of the machine's CPU taken by other processes during a load run above which the notes warn. */
const FOREIGN_CPU_WARNING = 0.1;

/**
 * @typedef {object} TargetResult
 * @property {string} id
 * @property {string} label
 * @property {string} command
 * @property {number | null} coldStartMs   spawn to the first 2xx answer
 * @property {number | null} startForeignCpu share of the machine's CPU other processes took during the start
 * @property {number | null} startPeakRssKb highest VmRSS sampled (every 50 ms) from spawn to the first answer
 * @property {number | null} peakRssKb     VmHWM of the server process at the end of its run
 * @property {number | null} loadPeakRssKb highest VmRSS sampled during the measured windows
 * @property {string | null} error
 * @property {Record<string, import('./measure.mjs').LoadResult>} scenarios
 */

/**
 * Starts a target, times its first answer, drives each scenario at it, stops it.
 * @param {import('./targets.mjs').Target} target
 * @param {import('./scenarios.mjs').Scenario[]} scenarios
 * @param {import('./options.mjs').BenchOptions} options
 * @param {string} probe  path (after basePath) of the first-answer probe
 * @returns {Promise<TargetResult>}
 */
async function benchTarget(target, scenarios, options, probe = FIRST_PAGE) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  /** @type {TargetResult} */
  const entry = {
    id: target.id,
    label: target.label,
    command: target.command,
    coldStartMs: null,
    startForeignCpu: null,
    startPeakRssKb: null,
    peakRssKb: null,
    loadPeakRssKb: null,
    error: null,
    scenarios: {},
  };
  await quiet(options, `${target.label}: start`);
  log(`${target.label}: starting`);
  const server = startServer(target.id, target.args(port));
  const startMemory = sampleRss(server.pid, 50);
  const startOthers = foreignCpu(server.pid);
  try {
    entry.coldStartMs = await timeToFirstAnswer(
      server,
      { url: origin + target.basePath + probe, headers: AUTH },
      options.startTimeout,
    ).finally(() => {
      entry.startPeakRssKb = startMemory.stop();
      entry.startForeignCpu = startOthers.stop();
    });
    log(`${target.label}: first answer after ${Math.round(entry.coldStartMs)} ms`);
    for (const scenario of scenarios) {
      const load = {
        origin,
        basePath: target.basePath,
        constant: target.constant,
        scenario,
        duration: options.duration,
        warmup: options.warmup,
        connections: options.connections,
        pid: server.pid,
      };
      await quiet(options, `${target.label}: ${scenario.label}`);
      let result = await measureLoad(load);
      // Other work on the machine (a shared one) skews a run: measure again, keep the least disturbed.
      for (
        let retry = 1;
        retry <= options.retries && (result.foreignCpu ?? 0) > FOREIGN_CPU_WARNING && server.exitedWith === null;
        retry++
      ) {
        log(
          `${target.label}: ${scenario.label}: other processes took ${Math.round((result.foreignCpu ?? 0) * 100)}% of the CPU, measuring again (${retry}/${options.retries})`,
        );
        await quiet(options, `${target.label}: ${scenario.label}`);
        const again = await measureLoad(load);
        if ((again.foreignCpu ?? 0) < (result.foreignCpu ?? 0)) result = again;
      }
      if (server.exitedWith !== null) throw new Error(`exited (${server.exitedWith}) under load: ${logTail(server)}`);
      entry.scenarios[scenario.id] = result;
      entry.loadPeakRssKb = Math.max(entry.loadPeakRssKb ?? 0, result.peakRssKb ?? 0) || null;
      log(
        `${target.label}: ${scenario.label}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms?.toFixed(2)} ms, ${result.errors} errors`,
      );
    }
    if (scenarios.length === 0) await sleep(500); // start-only: let start-up work settle before reading the peak
    entry.peakRssKb = memoryOf(server.pid)?.hwmKb ?? null;
  } catch (error) {
    entry.error = /** @type {Error} */ (error).message;
    if (entry.coldStartMs === null && entry.startPeakRssKb)
      entry.error += ` (resident memory sampled before that: up to ${Math.round(entry.startPeakRssKb / 1024)} MB)`;
    log(`${target.label}: FAILED: ${entry.error}`);
  } finally {
    await stopServer(server);
  }
  return entry;
}

/**
 * Waits (up to BENCH_QUIET_WAIT seconds) for other work on the machine to stop before a start or a
 * load run. @param {import('./options.mjs').BenchOptions} options @param {string} what
 */
async function quiet(options, what) {
  const budget = options.quietWait * 5 - quietWaited; // all waits together: five times one
  if (options.quietWait <= 0 || budget <= 0) return;
  const { waitedMs, quiet } = await waitForQuiet(Math.min(options.quietWait, budget), FOREIGN_CPU_WARNING / 2, 500);
  quietWaited += waitedMs / 1000;
  if (waitedMs > 1000)
    log(`${what}: ${quiet ? 'waited' : 'gave up waiting'} ${(waitedMs / 1000).toFixed(0)} s for other processes to leave the CPU`);
}
let quietWaited = 0;

/** @param {string[]} args @param {string} cwd */
const git = (args, cwd = ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/** The short commit of another checkout, or its directory's name when it is not a git checkout. @param {string} dir */
function revisionOf(dir) {
  try {
    return git(['rev-parse', '--short', 'HEAD'], dir);
  } catch {
    return basename(dir);
  }
}

/** The commit the measured build came from, and whether src/ had changes on top of it. */
function sourceOf() {
  try {
    return { commit: git(['rev-parse', 'HEAD']), srcChanged: git(['status', '--porcelain', '--', 'src']) !== '' };
  } catch {
    return null;
  }
}

/** @param {number | null} kb */
const mb = (kb) => (kb === null ? null : kb / 1024);

/**
 * Table rows of one target: a row per scenario, cold start and memory on the first.
 * @param {string} group @param {TargetResult} entry @param {{ id: string, label: string, baseline?: string }[]} scenarios
 * @returns {import('./report.mjs').Row[]}
 */
function rowsOf(group, entry, scenarios) {
  const shown = scenarios.length === 0 ? [{ id: '', label: 'start-up' }] : scenarios;
  return shown.map((scenario, i) => {
    const result = entry.scenarios[scenario.id];
    return {
      group,
      target: entry.id,
      label: i === 0 ? entry.label : '',
      scenario: scenario.id,
      scenarioLabel: scenario.label,
      baselineScenario: scenario.baseline ?? scenario.id,
      rps: result?.rps ?? null,
      p50Ms: result?.p50Ms ?? null,
      p99Ms: result?.p99Ms ?? null,
      errors: result?.errors ?? null,
      startMs: i === 0 ? entry.coldStartMs : null,
      rssMb: i === 0 ? mb(entry.peakRssKb) : null,
      ...(entry.error && (i === 0 || !result) ? { note: 'FAILED' } : {}),
    };
  });
}

/** Lines under the table: what the columns mean, and everything that went wrong. */
function notesOf(/** @type {TargetResult[]} */ entries, /** @type {{ pets: number, seedMs: number | null }[]} */ seeding) {
  const notes = [
    'req/s: answers per second; p50/p99: latency of every answer in ms; errors: answers with another status than',
    'the expected one (200/201/400/401; 200 for every request to the ceiling) plus socket errors and time-outs;',
    'start: spawn to first 2xx answer; RSS: peak resident memory of the server process (VmHWM).',
    `${BASELINES.map((b) => `÷${b === 'ceiling' ? 'ceil' : 'pf'}: the figure divided by ${b === 'ceiling' ? 'the ceiling' : "Prism's at its fastest"}'s`).join('; ')} (same scenario;`,
    'store-size rows against their list row, start-up rows against their start and RSS). Blank: nothing to divide.',
  ];
  const busy = entries.flatMap((e) =>
    Object.entries(e.scenarios).map(([id, r]) => ({ where: `${e.label} / ${id}`, share: r.foreignCpu ?? 0 })),
  );
  const worst = busy.reduce((a, b) => (b.share > a.share ? b : a), { where: '', share: 0 });
  const busyStarts = entries
    .filter((e) => (e.startForeignCpu ?? 0) > FOREIGN_CPU_WARNING)
    .map((e) => `${e.label} ${Math.round((e.startForeignCpu ?? 0) * 100)}%`);
  if (busyStarts.length > 0)
    notes.push(
      `WARNING: other processes used over ${FOREIGN_CPU_WARNING * 100}% of the machine's CPU during these starts: ${busyStarts.join(', ')}`,
    );
  if (worst.share > FOREIGN_CPU_WARNING) {
    const disturbed = busy.filter((b) => b.share > FOREIGN_CPU_WARNING).length;
    notes.push(
      `WARNING: other processes used over ${FOREIGN_CPU_WARNING * 100}% of the machine's CPU during ${disturbed} of ${busy.length} load runs (worst ${(worst.share * 100).toFixed(0)}%, ${worst.where}): those figures are disturbed`,
    );
  }
  for (const entry of entries) {
    if (entry.error) notes.push(`FAILED ${entry.label}: ${entry.error}`);
    for (const [id, result] of Object.entries(entry.scenarios)) {
      if (result.errors > 0)
        notes.push(`errors ${entry.label} / ${id}: statuses ${JSON.stringify(result.statuses)}, socket errors ${result.socketErrors}`);
    }
  }
  for (const { pets, seedMs } of seeding)
    if (seedMs !== null)
      notes.push(
        `seeding ${pets.toLocaleString('en-US')} pets: about ${(seedMs / 1000).toFixed(1)} s (start with them minus start with the default 120)`,
      );
  return notes;
}

async function main() {
  const options = readOptions();
  const startedAt = new Date();
  const load1AtStart = os.loadavg()[0];
  if (!existsSync(join(ROOT, 'dist/cli/main.js')))
    throw new Error('dist/cli/main.js is missing: run npm run build first (npm run bench does)');
  log(
    `${options.quick ? 'quick run: ' : ''}${options.duration} s per scenario after ${options.warmup} s of warm-up, ${options.connections} connections`,
  );

  const compare = [];
  const targets = options.baseline
    ? [TARGETS[0], baselineTarget(options.baseline, revisionOf(options.baseline)), ...TARGETS.slice(1)]
    : TARGETS;
  for (const target of targets.filter((t) => !options.targets || options.targets.includes(t.id))) {
    compare.push(await benchTarget(target, SCENARIOS, options));
  }

  const storeSize = [];
  const documentSize = [];
  if (options.scale) {
    for (const pets of options.sizes) {
      const fixtures = `bench/fixtures/pets-${pets}.yaml`;
      if (!existsSync(join(ROOT, fixtures))) throw new Error(`no ${fixtures}: BENCH_SIZES takes the sizes that have a fixtures file`);
      storeSize.push({ pets, ...(await benchTarget(storeSizeTarget(pets, fixtures), storeSizeScenarios(pets), options)) });
    }
    for (const target of DOCUMENT_TARGETS) {
      documentSize.push({ document: target.document, ...(await benchTarget(target, [], options, target.probe)) });
    }
  }

  // The durable rows (durable.mjs): create with --data on a small and a large store, replay at start.
  const durable = options.durable ? await benchDurable(options, { benchTarget, quiet, log }) : null;
  // The replica rows (replicas.mjs): in memory against Redis, one replica and two behind a round-robin proxy.
  const replicas = options.replicas ? await benchReplicas(options, { quiet, log }) : null;

  const defaultStart = compare.find((e) => e.id === 'understudy')?.coldStartMs ?? null;
  const seeding = storeSize.map((e) => ({
    pets: e.pets,
    seedMs: e.coldStartMs === null || defaultStart === null ? null : Math.max(0, e.coldStartMs - defaultStart),
  }));
  const rows = addRatios([
    ...compare.flatMap((e) => rowsOf('compare', e, SCENARIOS)),
    ...storeSize.flatMap((e) => rowsOf('store size', e, storeSizeScenarios(e.pets))),
    ...documentSize.flatMap((e) => rowsOf('document size', e, []).map((row) => ({ ...row, baselineScenario: SCENARIOS[0].id }))),
    ...(durable?.runs.flatMap((run) => rowsOf('durable', run.entry, run.scenarios)) ?? []),
    ...(replicas?.runs.flatMap((run) => rowsOf('replicas', run.entry, run.scenarios)) ?? []),
  ]);
  const table = formatTable(rows);
  const notes = notesOf(
    [
      ...compare,
      ...storeSize,
      ...documentSize,
      ...(durable?.runs.map((run) => run.entry) ?? []),
      ...(replicas?.runs.map((run) => run.entry) ?? []),
    ],
    seeding,
  );
  if (durable) notes.push(...formatDurable(durable.summary));
  if (replicas) notes.push(...formatReplicas(replicas.summary));
  process.stdout.write(`\n${table}\n${notes.map((n) => `  ${n}`).join('\n')}\n`);

  const finishedAt = new Date();
  const file = writeResults(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      machine: {
        load1AtStart,
        load1AtEnd: os.loadavg()[0],
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? null,
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        platform: `${os.platform()} ${os.release()}`,
        node: process.version,
      },
      source: sourceOf(),
      versions: {
        understudy: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
        prismCli: PRISM_VERSION,
        autocannon: require('autocannon/package.json').version,
        octokitOpenapi: GITHUB_VERSION,
      },
      options,
      documents: { petstore: 'openapi/petstore.yaml', github: GITHUB.slice(ROOT.length) },
      targets: compare,
      storeSize: storeSize.map((e, i) => ({ ...e, seedingMsApprox: seeding[i]?.seedMs ?? null })),
      documentSize,
      durable,
      replicas,
      rows,
      table,
      notes,
    },
    finishedAt,
  );
  log(
    `wrote ${file.slice(ROOT.length)} and bench/results/latest.json in ${Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000)} s`,
  );
}

try {
  await main();
  process.exit(0);
} catch (error) {
  log(`failed: ${/** @type {Error} */ (error).stack ?? error}`);
  process.exit(1); // the exit handler kills every server still running
}
