// Targets measured in interleaved rounds: every target up at once, each scenario measured on each in
// turn, the order reversed every other round, each row its median round. Runs seconds apart instead
// of minutes: a neighbour's load on a shared machine weighs on every target alike. Used by the
// durable rows (durable.mjs) and the capabilities-off rows (run.mjs).
import { foreignCpu } from './machine.mjs';
import { measureLoad } from './measure.mjs';
import { freePort, logTail, memoryOf, sampleRss, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';

/**
 * @typedef {object} Hooks  what run.mjs lends
 * @property {(options: import('./options.mjs').BenchOptions, what: string) => Promise<void>} quiet  waits for the machine to go quiet
 * @property {(message: string) => void} log
 */

/** @param {import('./targets.mjs').Target} t @returns {import('./run.mjs').TargetResult} */
export const blankEntry = (t) => ({
  id: t.id,
  label: t.label,
  command: t.command,
  coldStartMs: null,
  startForeignCpu: null,
  startPeakRssKb: null,
  peakRssKb: null,
  loadPeakRssKb: null,
  error: null,
  scenarios: {},
});

/**
 * @param {import('./targets.mjs').Target[]} targets
 * @param {import('./scenarios.mjs').Scenario[]} scenarios
 * @param {import('./options.mjs').BenchOptions} options
 * @param {Hooks} hooks
 * @param {{ rounds: number, probe: { path: string, headers: Record<string, string> }, stopGraceMs?: number }} how
 *   probe: the first-answer probe (after basePath)
 * @returns {Promise<import('./run.mjs').TargetResult[]>}
 */
export async function interleaved(targets, scenarios, options, hooks, how) {
  /** @type {{ entry: import('./run.mjs').TargetResult, target: import('./targets.mjs').Target, server: import('./processes.mjs').ServerProcess, origin: string, results: Record<string, (import('./measure.mjs').LoadResult & { onSeedStore: boolean })[]>, wrote: boolean }[]} */
  const live = [];
  try {
    for (const t of targets) {
      const entry = blankEntry(t);
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      await hooks.quiet(options, `${t.label}: start`);
      hooks.log(`${t.label}: starting`);
      const server = startServer(t.id, t.args(port), undefined, { pinned: true });
      live.push({ entry, target: t, server, origin, results: {}, wrote: false });
      const startMemory = sampleRss(server.pid, 50);
      const startOthers = foreignCpu(server.pid);
      try {
        entry.coldStartMs = await timeToFirstAnswer(
          server,
          { url: origin + t.basePath + how.probe.path, headers: how.probe.headers },
          options.startTimeout,
        );
        hooks.log(`${t.label}: first answer after ${Math.round(entry.coldStartMs)} ms`);
      } catch (error) {
        entry.error = /** @type {Error} */ (error).message;
        hooks.log(`${t.label}: FAILED: ${entry.error}`);
      } finally {
        entry.startPeakRssKb = startMemory.stop();
        entry.startForeignCpu = startOthers.stop();
      }
    }
    for (let round = 1; round <= how.rounds; round++) {
      for (const scenario of scenarios) {
        for (const one of round % 2 === 1 ? live : [...live].reverse()) {
          if (one.entry.error) continue;
          await hooks.quiet(options, `${one.entry.label}: ${scenario.label}`);
          const result = await measureLoad({
            origin: one.origin,
            basePath: one.target.basePath,
            constant: one.target.constant,
            scenario,
            duration: options.duration,
            warmup: options.warmup,
            connections: options.connections,
            pid: one.server.pid,
          });
          if (one.server.exitedWith !== null) {
            one.entry.error = `exited (${one.server.exitedWith}) under load: ${logTail(one.server)}`;
            hooks.log(`${one.entry.label}: FAILED: ${one.entry.error}`);
            continue;
          }
          (one.results[scenario.id] ??= []).push({ ...result, onSeedStore: !one.wrote });
          if (scenario.writes) one.wrote = true;
          hooks.log(
            `${one.entry.label}: ${scenario.label}, round ${round}/${how.rounds}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms?.toFixed(2)} ms, ${result.errors} errors, others took ${Math.round((result.foreignCpu ?? 0) * 100)}% of the CPU`,
          );
        }
      }
    }
    for (const { entry, server, results } of live) {
      for (const [id, runs] of Object.entries(results)) {
        const median = [...runs].sort((a, b) => a.rps - b.rps)[Math.floor((runs.length - 1) / 2)];
        /** @type {Record<string, number>} */
        const statuses = {};
        for (const r of runs) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
        const sum = (/** @type {'errors' | 'unexpected' | 'socketErrors'} */ key) => runs.reduce((total, r) => total + r[key], 0);
        const onSeed = runs.filter((r) => r.onSeedStore && r.peakRssKb !== null).map((r) => /** @type {number} */ (r.peakRssKb));
        entry.scenarios[id] = {
          ...median,
          errors: sum('errors'),
          unexpected: sum('unexpected'),
          socketErrors: sum('socketErrors'),
          statuses,
          seedStorePeakRssKb: onSeed.length > 0 ? Math.max(...onSeed) : null,
          rounds: runs.map((r) => ({
            rps: r.rps,
            p50Ms: r.p50Ms,
            p99Ms: r.p99Ms,
            errors: r.errors,
            peakRssKb: r.peakRssKb,
            onSeedStore: r.onSeedStore,
            foreignCpu: r.foreignCpu,
            serverCores: r.serverCores,
            generatorCores: r.generatorCores,
          })),
        };
        entry.loadPeakRssKb = Math.max(entry.loadPeakRssKb ?? 0, ...runs.map((r) => r.peakRssKb ?? 0)) || null;
      }
      entry.peakRssKb = memoryOf(server.pid)?.hwmKb ?? null;
    }
  } finally {
    for (const { server } of live) await stopServer(server, how.stopGraceMs);
  }
  return live.map((one) => one.entry);
}
