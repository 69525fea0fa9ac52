#!/usr/bin/env node
// npm run bench: Understudy against Prism and a constant-answer ceiling, on one machine and one
// document, driven by wrk (server and wrk pinned to separate cores) or autocannon; Understudy with
// each capability turned off against all on; then the store-size, document-size, durable and replica rows.
// Prints one table and the issue's targets, writes bench/results/<timestamp>.json and .svg (the
// chart) and bench/results/latest.json and latest.svg. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchDurable, formatDurable } from './durable.mjs';
import { coldStarts, formatColdStarts } from './cold-start.mjs';
import { blankEntry, interleaved } from './interleave.mjs';
import { cpuModel, LOADGEN, pinHarness } from './loadgen.mjs';
import { foreignCpu, waitForQuiet } from './machine.mjs';
import { measureLoad } from './measure.mjs';
import { readOptions, ROOT } from './options.mjs';
import { benchReplicas, formatReplicas } from './replicas.mjs';
import { freePort, logTail, memoryOf, sampleRss, startServer, STARTUP_ENV, stopServer, timeToFirstAnswer } from './processes.mjs';
import { addRatios, formatTable, writeResults } from './report.mjs';
import { SCENARIOS, storeSizeScenarios } from './scenarios.mjs';
import {
  baselineTarget,
  BASELINES,
  BENCH_KEY,
  CAPABILITY_TARGETS,
  DOCUMENT_TARGETS,
  GITHUB,
  GITHUB_VERSION,
  PRISM_VERSION,
  storeSizeTarget,
  TARGETS,
} from './targets.mjs';
import { checkTargets, compareEachCapability, formatCapabilities, formatTargets } from './verdicts.mjs';

const require = createRequire(import.meta.url);
const log = (/** @type {string} */ message) => process.stderr.write(`bench: ${message}\n`);
const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
const FIRST_PAGE = '/pets?status=available&limit=20';
/** Share of the machine's CPU taken by other processes during a load run above which the notes warn. */
const FOREIGN_CPU_WARNING = 0.1;
/** Share of its cores wrk kept busy above which the notes warn that wrk, not the server, may set the pace. */
const GENERATOR_BUSY_WARNING = 0.9;
/** Rounds of the capabilities-off comparison (1 in a quick run). */
const CAPABILITY_ROUNDS = 3;

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
 * @property {ResponseCallbackCost} [responseCallback]  the ceiling only, with wrk: what counting each answer costs
 */

/**
 * @typedef {object} ResponseCallbackCost  wrk's response() callback, measured on the ceiling's list load
 * @property {{ rps: number, p99Ms: number | null, generatorCores: number | null, wrkUsPerAnswer: number | null }[]} summary  runs counting from wrk's summary
 * @property {{ rps: number, p99Ms: number | null, generatorCores: number | null, wrkUsPerAnswer: number | null }[]} each     runs with a response() callback
 * @property {number | null} rpsRatio          mean req/s with the callback ÷ without
 * @property {number | null} wrkUsPerAnswerAdded  mean wrk CPU µs per answer with the callback minus without
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
  const entry = blankEntry(target);

  await quiet(options, `${target.label}: start`);
  log(`${target.label}: starting`);
  const server = startServer(target.id, target.args(port), undefined, { pinned: true });
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
    let wrote = false;
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
      entry.scenarios[scenario.id] = { ...result, seedStorePeakRssKb: wrote ? null : result.peakRssKb };
      if (scenario.writes) wrote = true;
      entry.loadPeakRssKb = Math.max(entry.loadPeakRssKb ?? 0, result.peakRssKb ?? 0) || null;
      log(
        `${target.label}: ${scenario.label}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms?.toFixed(2)} ms, ${result.errors} errors`,
      );
    }
    if (target.id === 'ceiling' && LOADGEN.kind === 'wrk' && scenarios.length > 0) {
      entry.responseCallback = await responseCallbackCost(
        { origin, basePath: target.basePath, constant: true, connections: options.connections, pid: server.pid },
        options,
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
 * What wrk's response() callback (each answer's status counted in Lua) costs: the ceiling's list
 * load, the most answers per second of the run, counted from wrk's summary and with the callback,
 * alternately (twice each; once in a quick run), without warm-up (the server is warm).
 * @param {{ origin: string, basePath: string, constant: boolean, connections: number, pid: number }} base
 * @param {import('./options.mjs').BenchOptions} options @returns {Promise<ResponseCallbackCost>}
 */
async function responseCallbackCost(base, options) {
  /** @type {ResponseCallbackCost} */
  const cost = { summary: [], each: [], rpsRatio: null, wrkUsPerAnswerAdded: null };
  const order = /** @type {const} */ (options.quick ? ['summary', 'each'] : ['summary', 'each', 'summary', 'each']);
  for (const count of order) {
    await quiet(options, `ceiling: response() cost`);
    const r = await measureLoad({ ...base, scenario: SCENARIOS[0], duration: options.duration, warmup: 0, count });
    cost[count].push({
      rps: r.rps,
      p99Ms: r.p99Ms,
      generatorCores: r.generatorCores,
      wrkUsPerAnswer: r.generatorCores === null || r.rps === 0 ? null : (r.generatorCores / r.rps) * 1e6,
    });
  }
  const mean = (/** @type {(number | null)[]} */ xs) =>
    xs.some((x) => x === null) ? null : xs.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) / xs.length;
  const rps = { summary: mean(cost.summary.map((r) => r.rps)), each: mean(cost.each.map((r) => r.rps)) };
  const us = { summary: mean(cost.summary.map((r) => r.wrkUsPerAnswer)), each: mean(cost.each.map((r) => r.wrkUsPerAnswer)) };
  cost.rpsRatio = rps.each !== null && rps.summary ? rps.each / rps.summary : null;
  cost.wrkUsPerAnswerAdded = us.each !== null && us.summary !== null ? us.each - us.summary : null;
  log(
    `ceiling: wrk's response() callback: ${Math.round(rps.each ?? 0)} req/s with it, ${Math.round(rps.summary ?? 0)} without; wrk CPU ${us.each?.toFixed(1)} µs per answer with it, ${us.summary?.toFixed(1)} without`,
  );
  return cost;
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

/**
 * The newest modification time of the built files (dist/): another build during the run (someone
 * working in the same checkout) changes what the later targets measure. @returns {number | null}
 */
function distStamp() {
  try {
    let newest = 0;
    for (const entry of readdirSync(join(ROOT, 'dist'), { recursive: true, withFileTypes: true }))
      if (entry.isFile() && entry.name.endsWith('.js')) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    return newest || null;
  } catch {
    return null;
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
    `load: ${LOADGEN.kind}${LOADGEN.version ? ` ${LOADGEN.version}` : ''}${LOADGEN.reason ? ` (${LOADGEN.reason})` : ''}; ${LOADGEN.pinning}`,
    'req/s: answers per second; p50/p99: latency of every answer in ms (wrk: its exact per-answer histogram, µs);',
    'errors: answers with another status than the expected one (200/201/400/401; 200 for every request to the ceiling;',
    "mixed, with wrk: each status's count beyond its share of the answers, see bench/README.md) plus socket errors and",
    'time-outs; start: spawn to first 2xx answer; RSS: peak resident memory of the server process (VmHWM).',
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
  const saturated = entries.flatMap((e) =>
    Object.entries(e.scenarios)
      .filter(([, r]) => r.generatorCores !== null && r.generatorCores > GENERATOR_BUSY_WARNING * LOADGEN.threads)
      .map(([id, r]) => `${e.label} / ${id} ${Math.round(((r.generatorCores ?? 0) / LOADGEN.threads) * 100)}%`),
  );
  if (saturated.length > 0)
    notes.push(
      `WARNING: wrk kept over ${GENERATOR_BUSY_WARNING * 100}% of its ${LOADGEN.threads} core${LOADGEN.threads === 1 ? '' : 's'} busy in: ${saturated.join(', ')}: the load generator may have set the pace there`,
    );
  for (const entry of entries) {
    if (entry.error) notes.push(`FAILED ${entry.label}: ${entry.error}`);
    for (const [id, result] of Object.entries(entry.scenarios)) {
      if (result.requests === 0)
        notes.push(`NO ANSWER ${entry.label} / ${id}: not one answer in the window (server ${result.stalled ?? 'state unknown'})`);
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
  const sourceAtStart = sourceOf();
  const distAtStart = distStamp();
  const load1AtStart = os.loadavg()[0];
  if (!existsSync(join(ROOT, 'dist/cli/bin.cjs')))
    throw new Error('dist/cli/bin.cjs is missing: run npm run build first (npm run bench does)');
  const wrk = LOADGEN.kind === 'wrk';
  log(
    `${options.quick ? 'quick run: ' : ''}${wrk ? Math.ceil(options.duration) : options.duration} s per scenario after ${wrk ? Math.max(1, Math.ceil(options.warmup)) : options.warmup} s of warm-up, ${options.connections} connections` +
      (options.rounds > 1 ? `; the comparison in ${options.rounds} interleaved rounds, each row its median` : ''),
  );
  log(
    `load generator: ${LOADGEN.kind}${LOADGEN.version ? ` ${LOADGEN.version}` : ''}${LOADGEN.reason ? ` (${LOADGEN.reason})` : ''}; ${LOADGEN.pinning}`,
  );
  // The harness polls and samples on wrk's cores, never on the server's.
  if (LOADGEN.loadCpus) pinHarness(LOADGEN.loadCpus);

  const compare = [];
  const targets = options.baseline
    ? [TARGETS[0], baselineTarget(options.baseline, revisionOf(options.baseline)), ...TARGETS.slice(1)]
    : TARGETS;
  const compared = targets.filter((t) => !options.targets || options.targets.includes(t.id));
  if (options.rounds > 1) {
    // Every target up at once, each scenario measured on each in turn, the median of the rounds: a
    // ratio to the ceiling or to Prism then compares runs seconds apart, not minutes (on a shared
    // machine the ceiling alone moved by half between two runs an hour apart).
    compare.push(
      ...(await interleaved(
        compared,
        SCENARIOS,
        options,
        { quiet, log },
        { rounds: options.rounds, probe: { path: FIRST_PAGE, headers: AUTH } },
      )),
    );
  } else {
    for (const target of compared) compare.push(await benchTarget(target, SCENARIOS, options));
  }

  // Cold starts in rounds (cold-start.mjs): the median is what the issue's target is checked against.
  const understudyTarget = compared.find((t) => t.id === 'understudy');
  const ceilingTarget = compared.find((t) => t.id === 'ceiling');
  const starts =
    options.coldStarts > 0 && understudyTarget && ceilingTarget
      ? await coldStarts(
          { understudy: understudyTarget, ceiling: ceilingTarget },
          { rounds: options.coldStarts, probe: { path: FIRST_PAGE, headers: AUTH }, startTimeout: options.startTimeout },
          { quiet: (what) => quiet(options, what), log },
        )
      : null;

  // Each capability turned off, and all, against all on: all up at once, interleaved rounds (interleave.mjs).
  const capabilityRounds = options.quick ? 1 : CAPABILITY_ROUNDS;
  const capabilityTargets = options.capabilities
    ? CAPABILITY_TARGETS.filter((t) => !options.targets || options.targets.includes(t.id))
    : [];
  const capabilities =
    capabilityTargets.length > 0
      ? await interleaved(
          capabilityTargets,
          SCENARIOS,
          options,
          { quiet, log },
          { rounds: capabilityRounds, probe: { path: FIRST_PAGE, headers: AUTH } },
        )
      : [];

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
  // They keep autocannon, in this process, unpinned: the harness goes back to every core first.
  if (options.replicas && LOADGEN.loadCpus) pinHarness(null);
  const replicas = options.replicas ? await benchReplicas(options, { quiet, log }) : null;

  const defaultStart = compare.find((e) => e.id === 'understudy')?.coldStartMs ?? null;
  const seeding = storeSize.map((e) => ({
    pets: e.pets,
    seedMs: e.coldStartMs === null || defaultStart === null ? null : Math.max(0, e.coldStartMs - defaultStart),
  }));
  const rows = addRatios([
    ...compare.flatMap((e) => rowsOf('compare', e, SCENARIOS)),
    ...capabilities.flatMap((e) => rowsOf('capabilities', e, SCENARIOS)),
    ...storeSize.flatMap((e) => rowsOf('store size', e, storeSizeScenarios(e.pets))),
    ...documentSize.flatMap((e) => rowsOf('document size', e, []).map((row) => ({ ...row, baselineScenario: SCENARIOS[0].id }))),
    ...(durable?.runs.flatMap((run) => rowsOf('durable', run.entry, run.scenarios)) ?? []),
    ...(replicas?.runs.flatMap((run) => rowsOf('replicas', run.entry, run.scenarios)) ?? []),
  ]);
  const table = formatTable(rows);
  const notes = notesOf(
    [
      ...compare,
      ...capabilities,
      ...storeSize,
      ...documentSize,
      ...(durable?.runs.map((run) => run.entry) ?? []),
      ...(replicas?.runs.map((run) => run.entry) ?? []),
    ],
    seeding,
  );
  const sourceAtEnd = sourceOf();
  const distChanged = distStamp() !== distAtStart;
  notes.unshift(
    `measured: commit ${sourceAtStart?.commit.slice(0, 7) ?? 'unknown'}${sourceAtStart?.srcChanged ? ' with uncommitted changes in src/' : ''} (dist/ built ${distAtStart === null ? '?' : new Date(distAtStart).toISOString()})` +
      (sourceAtEnd?.commit !== sourceAtStart?.commit || sourceAtEnd?.srcChanged !== sourceAtStart?.srcChanged
        ? `; at the end: ${sourceAtEnd?.commit.slice(0, 7) ?? 'unknown'}${sourceAtEnd?.srcChanged ? ' with uncommitted changes in src/' : ''}`
        : ''),
  );
  if (distChanged) notes.push('WARNING: dist/ was rebuilt during the run: later targets measured another build than earlier ones');
  const callback = compare.find((e) => e.id === 'ceiling')?.responseCallback;
  if (callback)
    notes.push(
      `wrk's response() callback (each answer's status counted in Lua), on the ceiling's list load: req/s with it ÷ without ${callback.rpsRatio?.toFixed(2) ?? 'n/a'}, wrk CPU ${callback.wrkUsPerAnswerAdded === null ? 'n/a' : `${callback.wrkUsPerAnswerAdded >= 0 ? '+' : ''}${callback.wrkUsPerAnswerAdded.toFixed(1)}`} µs per answer (${callback.each.map((r) => `${Math.round(r.rps)}`).join(', ')} against ${callback.summary.map((r) => `${Math.round(r.rps)}`).join(', ')} req/s; counting: ${LOADGEN.count === 'each' ? 'per answer in every scenario' : "wrk's summary where it tells enough"})`,
    );
  const startupEnv = STARTUP_ENV.filter((name) => process.env[name] !== undefined);
  if (startupEnv.length > 0)
    notes.push(`every server was started without ${startupEnv.join(', ')} (set here): see STARTUP_ENV in bench/processes.mjs`);
  if (starts) notes.push(...formatColdStarts(starts));
  const targetCheck = compare.some((e) => e.id === 'understudy')
    ? checkTargets(compare, SCENARIOS, 'understudy', starts?.againMedianMs ?? null)
    : null;
  if (targetCheck) notes.push(...formatTargets(targetCheck, compare, SCENARIOS));
  const capabilityComparison = compareEachCapability(capabilities, SCENARIOS);
  if (capabilityComparison && capabilityComparison.length > 0)
    notes.push(...formatCapabilities(capabilityComparison, capabilityRounds, capabilities.length, SCENARIOS));
  if (durable) notes.push(...formatDurable(durable.summary));
  if (replicas) notes.push(...formatReplicas(replicas.summary));
  process.stdout.write(`\n${table}\n${notes.map((n) => `  ${n}`).join('\n')}\n`);

  const finishedAt = new Date();
  const kind = options.quick ? 'quick' : options.targets ? 'partial' : 'full';
  const { file, chart, svg } = writeResults(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      machine: {
        load1AtStart,
        load1AtEnd: os.loadavg()[0],
        cpus: os.cpus().length,
        cpuModel: cpuModel(),
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        platform: `${os.platform()} ${os.release()}`,
        node: process.version,
      },
      source: sourceAtStart,
      sourceAtEnd,
      distBuiltAt: distAtStart === null ? null : new Date(distAtStart).toISOString(),
      distRebuiltDuringRun: distChanged,
      loadGenerator: LOADGEN,
      versions: {
        understudy: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
        prismCli: PRISM_VERSION,
        wrk: LOADGEN.kind === 'wrk' ? LOADGEN.version : null,
        autocannon: require('autocannon/package.json').version,
        octokitOpenapi: GITHUB_VERSION,
      },
      options,
      documents: { petstore: 'openapi/petstore.yaml', github: GITHUB.slice(ROOT.length) },
      targets: compare,
      coldStarts: starts,
      capabilities: { rounds: capabilityRounds, entries: capabilities, comparison: capabilityComparison },
      issueTargets: targetCheck,
      storeSize: storeSize.map((e, i) => ({ ...e, seedingMsApprox: seeding[i]?.seedMs ?? null })),
      documentSize,
      durable,
      replicas,
      rows,
      table,
      notes,
    },
    finishedAt,
    kind,
  );
  log(
    `wrote ${file.slice(ROOT.length)} and ${chart.slice(ROOT.length)}${kind === 'full' ? ', and bench/results/latest.json and latest.svg' : ` (a ${kind} run: latest.json and latest.svg left alone)`} in ${Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000)} s`,
  );
  await checkSvg(svg);
}

/** The chart must parse as XML: checked with fast-xml-parser's validator (a dependency of the sandbox) when it loads. @param {string} svg */
async function checkSvg(svg) {
  try {
    const { XMLValidator } = await import('fast-xml-parser');
    const verdict = XMLValidator.validate(svg);
    if (verdict !== true) log(`WARNING: the chart is not well-formed XML: ${JSON.stringify(verdict.err)}`);
  } catch {
    // no validator at hand
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  log(`failed: ${/** @type {Error} */ (error).stack ?? error}`);
  process.exit(1); // the exit handler kills every server still running
}
