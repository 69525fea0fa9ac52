// One load run: wrk (loadgen.mjs) or autocannon drives a scenario at a server; we count what came back.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { foreignCpu, processTicks } from './machine.mjs';
import { countsEach, LOADGEN, runWrk, unexpectedOf, wrkRequests } from './loadgen.mjs';
import { memoryOf, resetPeakRss, sampleRss } from './processes.mjs';
import { headersOf } from './scenarios.mjs';

/**
 * @typedef {object} LoadResult
 * @property {'wrk' | 'autocannon'} generator
 * @property {number} requests      answers received in the measured window
 * @property {number} seconds       length of the measured window
 * @property {number} rps           answers per second
 * @property {number | null} p50Ms  latency percentiles over every answer (any status), in ms
 * @property {number | null} p90Ms
 * @property {number | null} p99Ms
 * @property {number | null} maxMs
 * @property {number} errors        unexpected statuses + socket errors and time-outs
 * @property {number} unexpected    answers whose status is not the expected one
 * @property {number} socketErrors  connection errors and time-outs (autocannon's `errors`; wrk's connect + read + write + timeout)
 * @property {Record<string, number>} statuses  answers by status (wrk counting from its summary: the expected
 *   status and ">=400", the answers with a status of 400 or more)
 * @property {'each' | 'summary'} counted  statuses counted answer by answer, or from wrk's summary
 * @property {number | null} peakRssKb  the server's peak resident memory during the window (exact: VmHWM
 *   reset before it; else the highest of samples every 200 ms)
 * @property {boolean} peakRssExact
 * @property {number | null} [seedStorePeakRssKb]  the peak of the runs made while the store held only its
 *   seed (before any scenario that writes): what the RSS target is read from (run.mjs, interleave.mjs)
 * @property {number | null} foreignCpu share of the machine's CPU used by other processes meanwhile (0..1)
 * @property {number | null} serverCores   cores the server process kept busy during the window (1 = one core all the time)
 * @property {number | null} generatorCores cores wrk kept busy (its CPU time ÷ the window; autocannon: null)
 * @property {Record<string, number>} [wrkErrors] wrk's own error counts
 * @property {string} [stalled]     no answer in the window: the server's scheduler state then
 * @property {object[]} [rounds]    interleaved rows (interleave.mjs): every round's figures, beside the median's
 */

/**
 * @typedef {object} LoadOptions
 * @property {string} origin       http://127.0.0.1:PORT
 * @property {string} basePath
 * @property {boolean} constant    the target answers 200 to everything
 * @property {import('./scenarios.mjs').Scenario} scenario
 * @property {number} duration     seconds
 * @property {number} warmup       seconds of load first, not measured
 * @property {number} connections
 * @property {number} pid          the server process, for memory samples
 * @property {number[]} [pids]     the target's other processes (replicas, Redis, a proxy): not counted as other load
 * @property {'wrk' | 'autocannon'} [generator]  the run's (LOADGEN) unless said: replicas.mjs keeps autocannon
 * @property {'each' | 'summary'} [count]  wrk: how statuses are counted (LOADGEN.count unless said)
 */

/** Nearest-rank percentile of sorted values. @param {Float64Array} sorted @param {number} p */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** @param {LoadOptions} options @param {number} seconds */
async function drive(options, seconds) {
  /** @type {Record<string, number>} */
  const statuses = {};
  let unexpected = 0;
  const requests = options.scenario.requests.map((request) => {
    const expect = options.constant ? 200 : request.expect;
    return {
      method: request.method,
      path: options.basePath + request.path,
      headers: headersOf(request),
      body: request.body,
      /** @param {number} status */
      onResponse: (status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== expect) unexpected++;
      },
    };
  });
  /** @type {number[]} */
  const latencies = [];
  const run = autocannon({ url: options.origin, connections: options.connections, duration: seconds, requests });
  // autocannon's own histogram keeps whole milliseconds; its per-answer event has the exact time.
  run.on(
    'response',
    (/** @type {unknown} */ _client, /** @type {number} */ _status, /** @type {number} */ _bytes, /** @type {number} */ responseTime) => {
      latencies.push(responseTime);
    },
  );
  const result = await run;
  return { result, latencies, statuses, unexpected };
}

/**
 * The server's memory over a window: VmHWM reset at the start (exact), samples as a fallback.
 * @param {number} pid
 */
function windowMemory(pid) {
  const exact = resetPeakRss(pid);
  const samples = sampleRss(pid);
  return {
    stop() {
      const sampled = samples.stop();
      const since = exact ? (memoryOf(pid)?.sinceResetKb ?? null) : null;
      return { peakRssKb: since ?? sampled, peakRssExact: since !== null };
    },
  };
}

/** Cores a process keeps busy over a window. @param {number} pid */
function busyOf(pid) {
  const before = processTicks(pid);
  const started = performance.now();
  return {
    stop() {
      const after = processTicks(pid);
      const seconds = (performance.now() - started) / 1000;
      return before === null || after === null || seconds <= 0 ? null : (after - before) / 100 / seconds;
    },
  };
}

/** Warm-up, then the measured window, with autocannon. @param {LoadOptions} options @returns {Promise<LoadResult>} */
async function withAutocannon(options) {
  if (options.warmup > 0) await drive(options, options.warmup);
  const memory = windowMemory(options.pid);
  const others = foreignCpu([options.pid, ...(options.pids ?? [])]);
  const server = busyOf(options.pid);
  /** @type {{ peakRssKb: number | null, peakRssExact: boolean }} */
  let peak = { peakRssKb: null, peakRssExact: false };
  const { result, latencies, statuses, unexpected } = await drive(options, options.duration).finally(() => {
    peak = memory.stop();
  });
  const serverCores = server.stop();
  const foreign = others.stop();
  const sorted = Float64Array.from(latencies).sort();
  const seconds = result.duration || options.duration;
  return {
    generator: 'autocannon',
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1] : null,
    errors: unexpected + result.errors,
    unexpected,
    socketErrors: result.errors,
    statuses,
    counted: 'each',
    ...peak,
    foreignCpu: foreign,
    serverCores,
    generatorCores: null,
  };
}

/** Warm-up, then the measured window, with wrk. @param {LoadOptions} options @returns {Promise<LoadResult>} */
async function withWrk(options) {
  const requests = wrkRequests(options.scenario, options.basePath);
  const expects = options.scenario.requests.map((r) => (options.constant ? 200 : r.expect));
  const each = countsEach(expects, options.count ?? LOADGEN.count);
  const run = { origin: options.origin, requests, each, connections: options.connections };
  if (options.warmup > 0) await runWrk({ ...run, seconds: options.warmup });
  const memory = windowMemory(options.pid);
  const others = foreignCpu([options.pid, ...(options.pids ?? [])]);
  const server = busyOf(options.pid);
  /** @type {{ peakRssKb: number | null, peakRssExact: boolean }} */
  let peak = { peakRssKb: null, peakRssExact: false };
  const result = await runWrk({ ...run, seconds: options.duration }).finally(() => {
    peak = memory.stop();
  });
  const serverCores = server.stop();
  const stalled = result.requests === 0 ? stateOf(options.pid) : null;
  const foreign = others.stop();
  const { connect, read, write, timeout, status } = result.errors;
  const socketErrors = connect + read + write + timeout;
  /** @type {Record<string, number>} */
  let statuses;
  let unexpected;
  if (result.statuses) {
    statuses = result.statuses;
    unexpected = unexpectedOf(statuses, expects, options.connections + LOADGEN.threads);
  } else {
    // Every request expects the same 2xx status: wrk's errors.status counts the answers of 400 or more.
    statuses = { [expects[0]]: result.requests - status, ...(status > 0 ? { '>=400': status } : {}) };
    unexpected = status;
  }
  const ms = (/** @type {number} */ us) => us / 1000;
  return {
    generator: 'wrk',
    requests: result.requests,
    seconds: result.seconds,
    rps: result.requests / result.seconds,
    p50Ms: result.requests > 0 ? ms(result.latencyUs.p50) : null,
    p90Ms: result.requests > 0 ? ms(result.latencyUs.p90) : null,
    p99Ms: result.requests > 0 ? ms(result.latencyUs.p99) : null,
    maxMs: result.requests > 0 ? ms(result.latencyUs.max) : null,
    errors: unexpected + socketErrors,
    unexpected,
    socketErrors,
    statuses,
    counted: result.statuses ? 'each' : 'summary',
    ...peak,
    foreignCpu: foreign,
    serverCores,
    generatorCores: result.cpuSeconds === null ? null : result.cpuSeconds / result.seconds,
    wrkErrors: result.errors,
    ...(stalled ? { stalled } : {}),
  };
}

/** A process's scheduler state and where it sleeps (for a window without a single answer). @param {number} pid */
function stateOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return `state ${state}, wchan ${readFileSync(`/proc/${pid}/wchan`, 'utf8') || '0'}`;
  } catch {
    return 'gone';
  }
}

/** Warm-up, then the measured window. @param {LoadOptions} options @returns {Promise<LoadResult>} */
export async function measureLoad(options) {
  return (options.generator ?? LOADGEN.kind) === 'wrk' ? withWrk(options) : withAutocannon(options);
}
