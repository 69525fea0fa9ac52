// The run's settings, from the environment (and `--quick` on the command line).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (bench/..), so the harness runs from any working directory. */
export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * The built CLI of a checkout: its bin (dist/cli/bin.cjs, which runs the bundle; dist/cli/bin.js
 * before the bin was CommonJS), or for a checkout from before the bundle, the compiled entry
 * (dist/cli/main.js); null when none is built.
 * @param {string} dir @returns {string | null}
 */
export function builtCli(dir) {
  for (const path of ['dist/cli/bin.cjs', 'dist/cli/bin.js', 'dist/cli/main.js']) if (existsSync(join(dir, path))) return join(dir, path);
  return null;
}

/**
 * @typedef {object} BenchOptions
 * @property {boolean} quick         smoke run: short phases, no 1,000,000-pet store unless BENCH_SIZES says so
 * @property {number} duration       seconds of measured load per scenario per target
 * @property {number} warmup         seconds of unmeasured load before each measured one
 * @property {number} connections    connections of the load generator (wrk or autocannon)
 * @property {number[]} sizes        pets in the store-size rows
 * @property {string[] | null} targets  only these targets (BENCH_TARGETS=a,b), null for all
 * @property {boolean} scale         run the store-size and document-size rows (BENCH_SCALE=0 skips them)
 * @property {number} startTimeout   seconds a server may take to give its first answer
 * @property {number} retries        measure a load run again up to this often when other processes disturbed it
 * @property {number} quietWait      seconds to wait, before each start and load run, for other processes to leave the CPU
 * @property {string | null} baseline  another built checkout of understudy to run beside this one (BENCH_BASELINE=dir)
 * @property {boolean} durable       run the durable rows (BENCH_DURABLE=0 skips them)
 * @property {number} durableSize    pets in the durable rows' large store (1,000,000; quick: 100,000)
 * @property {boolean} replicas      run the replica rows: Understudy on Redis, one replica and two (BENCH_REPLICAS=0 skips them)
 * @property {boolean} capabilities  run the capabilities-off comparison (BENCH_CAPABILITIES=0 skips it)
 * @property {number} rounds        interleaved rounds of the main comparison (BENCH_ROUNDS; 1: each target alone, in turn)
 * @property {number} coldStarts    rounds of cold starts (BENCH_COLD_STARTS; 7, quick 3; 0 skips them)
 */

/** @param {string | undefined} raw @param {number} fallback @param {string} name */
function seconds(raw, fallback, name) {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, not "${raw}"`);
  return value;
}

/** @param {NodeJS.ProcessEnv} env @param {string[]} argv @returns {BenchOptions} */
export function readOptions(env = process.env, argv = process.argv.slice(2)) {
  const quick = argv.includes('--quick') || /^(1|true|yes)$/i.test(env.BENCH_QUICK ?? '');
  const sizes = env.BENCH_SIZES
    ? env.BENCH_SIZES.split(',').map((s) => Number(s.trim()))
    : quick
      ? [100, 100_000]
      : [100, 100_000, 1_000_000];
  const baseline = env.BENCH_BASELINE ? resolve(env.BENCH_BASELINE) : null;
  if (baseline && builtCli(baseline) === null)
    throw new Error(`BENCH_BASELINE must be a built checkout of understudy (with dist/cli/bin.cjs), not "${env.BENCH_BASELINE}"`);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw new Error(`BENCH_SIZES must be whole numbers >= 1, not "${env.BENCH_SIZES}"`);
  return {
    quick,
    duration: seconds(env.BENCH_DURATION, quick ? 1 : 5, 'BENCH_DURATION'),
    warmup: seconds(env.BENCH_WARMUP, quick ? 0.3 : 1, 'BENCH_WARMUP'),
    connections: Math.round(seconds(env.BENCH_CONNECTIONS, 32, 'BENCH_CONNECTIONS')),
    sizes,
    targets: env.BENCH_TARGETS ? env.BENCH_TARGETS.split(',').map((s) => s.trim()) : null,
    scale: env.BENCH_SCALE !== '0',
    startTimeout: seconds(env.BENCH_START_TIMEOUT, 300, 'BENCH_START_TIMEOUT'),
    quietWait: env.BENCH_QUIET_WAIT === '0' ? 0 : seconds(env.BENCH_QUIET_WAIT, quick ? 0 : 60, 'BENCH_QUIET_WAIT'),
    retries: env.BENCH_RETRIES === '0' ? 0 : Math.round(seconds(env.BENCH_RETRIES, quick ? 0 : 2, 'BENCH_RETRIES')),
    baseline,
    rounds: Math.round(seconds(env.BENCH_ROUNDS, quick ? 1 : 3, 'BENCH_ROUNDS')),
    durable: env.BENCH_DURABLE !== '0',
    durableSize: quick ? 100_000 : 1_000_000,
    replicas: env.BENCH_REPLICAS !== '0',
    capabilities: env.BENCH_CAPABILITIES !== '0',
    coldStarts: env.BENCH_COLD_STARTS === '0' ? 0 : Math.round(seconds(env.BENCH_COLD_STARTS, quick ? 3 : 7, 'BENCH_COLD_STARTS')),
  };
}
