// One load run: autocannon drives a scenario at a server; we count what came back.
import autocannon from 'autocannon';
import { foreignCpu } from './machine.mjs';
import { sampleRss } from './processes.mjs';
import { headersOf } from './scenarios.mjs';

/**
 * @typedef {object} LoadResult
 * @property {number} requests      answers received in the measured window
 * @property {number} seconds       length of the measured window
 * @property {number} rps           answers per second
 * @property {number | null} p50Ms  latency percentiles over every answer (any status), in ms
 * @property {number | null} p99Ms
 * @property {number} errors        unexpected statuses + socket errors and time-outs
 * @property {number} unexpected    answers whose status is not the expected one
 * @property {number} socketErrors  connection errors and time-outs (autocannon's `errors`)
 * @property {Record<string, number>} statuses  answers by status
 * @property {number | null} peakRssKb  highest resident memory sampled during the window
 * @property {number | null} foreignCpu share of the machine's CPU used by other processes meanwhile (0..1)
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

/** Warm-up, then the measured window. @param {LoadOptions} options @returns {Promise<LoadResult>} */
export async function measureLoad(options) {
  if (options.warmup > 0) await drive(options, options.warmup);
  const memory = sampleRss(options.pid);
  const others = foreignCpu([options.pid, ...(options.pids ?? [])]);
  /** @type {number | null} */
  let peakRssKb = null;
  const { result, latencies, statuses, unexpected } = await drive(options, options.duration).finally(() => {
    peakRssKb = memory.stop();
  });
  const foreign = others.stop();
  const sorted = Float64Array.from(latencies).sort();
  const seconds = result.duration || options.duration;
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: unexpected + result.errors,
    unexpected,
    socketErrors: result.errors,
    statuses,
    peakRssKb,
    foreignCpu: foreign,
  };
}
