// The durable rows of npm run bench: create throughput with a data file (`--data`) on a small and a
// large store against the sandbox in memory, with the targets, and the start-up of a large
// store (a large log replayed and compacted; a large snapshot read). Self-contained: run.mjs calls
// benchDurable() with its own benchTarget(), quiet() and log(), and prints what comes back. See
// bench/README.md.
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { interleaved } from './interleave.mjs';
import { ROOT } from './options.mjs';
import { freePort, logTail, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';
import { headersOf, SCENARIOS, send } from './scenarios.mjs';
import { BENCH_CONFIG, sandboxArgs } from './targets.mjs';

/** The small store, and the seed every durable row starts with (a data file's collections shadow it). */
const SMALL = 100;
/** The create scenario of the comparison rows: POST /pets, valid, 201. */
const CREATE = /** @type {import('./scenarios.mjs').Scenario} */ (SCENARIOS.find((s) => s.id === 'create'));
/** The sandbox's default: bench/sandbox.yaml does not set `fsync`. */
const FSYNC = 'everysec';
const PROBE = '/pets?status=available&limit=20';
/**
 * Rounds of the create runs. The three servers are up at once and measured in turn, the order
 * reversed every other round, and each row is its median round: the ratios compare runs made
 * seconds apart, not minutes, so a neighbour's load on a shared machine weighs on all three alike.
 */
const ROUNDS = 3;

/** @param {number} pets */
const fixtures = (pets) => `bench/fixtures/pets-${pets}.yaml`;
/** @param {number} n */
const count = (n) => n.toLocaleString('en-US');
/** @param {string} path */
const sizeOf = (path) => (existsSync(path) ? statSync(path).size : 0);
/** @param {number | null} a @param {number | null} b */
const ratio = (a, b) => (a === null || b === null || b === 0 ? null : a / b);
/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/**
 * @typedef {object} Hooks  what run.mjs lends the section
 * @property {(target: import('./targets.mjs').Target, scenarios: import('./scenarios.mjs').Scenario[], options: import('./options.mjs').BenchOptions) => Promise<import('./run.mjs').TargetResult>} benchTarget
 * @property {(options: import('./options.mjs').BenchOptions, what: string) => Promise<void>} quiet  waits for the machine to go quiet
 * @property {(message: string) => void} log
 */

/**
 * @typedef {object} DurableRun  one target of the section, for run.mjs's table
 * @property {import('./run.mjs').TargetResult} entry
 * @property {import('./scenarios.mjs').Scenario[]} scenarios  [] for a start-only row
 */

/**
 * @typedef {object} PreparedStore  a data file made by the sandbox itself, cached for the run
 * @property {string} file       the snapshot (its log is empty)
 * @property {string} workspace  the workspace that owns the pets
 * @property {number} records    pets in it: the seeded ones and the create that adopted them
 * @property {number} bytes      size of the snapshot
 * @property {number} adoptMs    latency of the create that adopted the seed (its `adopt` line carries every record)
 */

/**
 * Starts the sandbox with `args`, waits for its first answer, runs `during`, stops it (with a long
 * grace: a stop flushes the log, and may wait for a compaction in progress).
 * @param {string} name @param {(port: number) => string[]} args @param {import('./options.mjs').BenchOptions} options
 * @param {(origin: string) => Promise<void>} during
 */
async function runOnce(name, args, options, during) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = startServer(name, args(port));
  try {
    await timeToFirstAnswer(server, { url: `${origin}/v1${PROBE}`, headers: headersOf(CREATE.requests[0]) }, options.startTimeout);
    await during(origin);
  } catch (error) {
    throw new Error(`${name}: ${/** @type {Error} */ (error).message} ${logTail(server)}`, { cause: error });
  } finally {
    await stopServer(server, 120_000);
  }
}

/**
 * A data file holding `pets` pets, made by the sandbox: started on the `pets`-pet fixtures and a fresh
 * data file (the seed is in memory then, the file holds none of it: copy-on-write), one create makes
 * the default workspace own the collection (its `adopt` line carries every seeded record), and a
 * restart, when the log still holds anything, compacts it into the snapshot. The store then holds
 * `pets` + 1 records in the file: the seed and the one create (the document has no DELETE).
 * @param {string} dir @param {number} pets @param {import('./options.mjs').BenchOptions} options
 * @param {(message: string) => void} log @returns {Promise<PreparedStore>}
 */
async function prepareStore(dir, pets, options, log) {
  if (!existsSync(join(ROOT, fixtures(pets)))) throw new Error(`no ${fixtures(pets)}: the durable rows need it`);
  const file = join(dir, `pets-${pets}.json`);
  const started = Date.now();
  let adoptMs = 0;
  log(`durable: making a data file of ${count(pets)} pets with the sandbox`);
  await runOnce(
    `durable-prepare-${pets}`,
    sandboxArgs(BENCH_CONFIG, ['--fixtures', join(ROOT, fixtures(pets)), '--data', file]),
    options,
    async (origin) => {
      const sent = performance.now();
      const created = await send(origin, '/v1/pets', CREATE.requests[0]);
      adoptMs = performance.now() - sent;
      if (created.status !== 201) throw new Error(`the adopting create answered ${created.status}: ${created.body.slice(0, 200)}`);
    },
  );
  if (sizeOf(`${file}.log`) > 0) {
    // Only the small seed from now on: the file's own collection shadows it.
    await runOnce(
      `durable-compact-${pets}`,
      sandboxArgs(BENCH_CONFIG, ['--fixtures', join(ROOT, fixtures(SMALL)), '--data', file]),
      options,
      async () => {},
    );
  }
  if (sizeOf(`${file}.log`) > 0) throw new Error(`the data log of ${file} is not empty after a restart`);
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const [workspace, ...others] = Object.keys(snapshot.workspaces ?? {});
  const rows = workspace === undefined ? undefined : snapshot.workspaces[workspace].pets;
  if (others.length > 0 || !Array.isArray(rows) || rows.length !== pets + 1)
    throw new Error(
      `the data file made with ${count(pets)} pets holds ${JSON.stringify(Object.keys(snapshot.workspaces ?? {}))} / ${rows?.length} pets`,
    );
  log(
    `durable: ${count(rows.length)} pets in ${megabytes(sizeOf(file))} after ${((Date.now() - started) / 1000).toFixed(1)} s (the adopting create took ${Math.round(adoptMs)} ms)`,
  );
  return { file, workspace, records: rows.length, bytes: sizeOf(file), adoptMs };
}

/**
 * Writes a log of `n` `put` lines, ids 1..n, the rows the sandbox itself seeded in `from` (valid Pet
 * records), in the format DataLog appends. @param {string} path @param {PreparedStore} from @param {number} n
 * @returns {{ lines: number, bytes: number }}
 */
function writePutLog(path, from, n) {
  const rows = JSON.parse(readFileSync(from.file, 'utf8')).workspaces[from.workspace].pets;
  const head = `{"op":"put","w":${JSON.stringify(from.workspace)},"c":"pets","row":`;
  const fd = openSync(path, 'w');
  try {
    /** @type {string[]} */
    let chunk = [];
    for (let i = 0; i < n; i++) {
      if (rows[i]?.id !== i + 1) throw new Error(`the seeded pet at ${i} has id ${rows[i]?.id}, not ${i + 1}`);
      chunk.push(`${head}${JSON.stringify(rows[i])}}\n`);
      if (chunk.length === 10_000) {
        writeSync(fd, chunk.join(''));
        chunk = [];
      }
    }
    if (chunk.length > 0) writeSync(fd, chunk.join(''));
  } finally {
    closeSync(fd);
  }
  return { lines: n, bytes: sizeOf(path) };
}

/**
 * A copy of a data file (snapshot and log) for one target: each run starts from the same files,
 * and a run's writes and compactions stay in its copy. @param {string} dir @param {string} name
 * @param {string} snapshot @param {string | null} logFile
 */
function stage(dir, name, snapshot, logFile = null) {
  const file = join(dir, `${name}.json`);
  copyFileSync(snapshot, file);
  if (logFile) copyFileSync(logFile, `${file}.log`);
  else rmSync(`${file}.log`, { force: true });
  return file;
}

/** @param {string} file */
const unstage = (file) => {
  rmSync(file, { force: true });
  rmSync(`${file}.log`, { force: true });
};

/** @param {string} id @param {string} label @param {string[]} extra @param {string} shown @returns {import('./targets.mjs').Target} */
function target(id, label, extra, shown) {
  return {
    id,
    label,
    command: `understudy --config bench/sandbox.yaml --fixtures ${fixtures(SMALL)}${shown}`,
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG, ['--fixtures', join(ROOT, fixtures(SMALL)), ...extra]),
  };
}

/**
 * The create rows: every target started (one after the other, each timed to its first answer),
 * then measured in turn for ROUNDS rounds (1 in a quick run), the order reversed every other round.
 * A row's figures are its median round's (by req/s); its errors are every round's. Then all stop
 * (with a long grace: a stop flushes the log, and may wait for a compaction in progress).
 * @param {import('./targets.mjs').Target[]} targets @param {import('./options.mjs').BenchOptions} options
 * @param {Hooks} hooks @returns {Promise<import('./run.mjs').TargetResult[]>}
 */
function interleavedCreates(targets, options, hooks) {
  return interleaved(targets, [CREATE], options, hooks, {
    rounds: options.quick ? 1 : ROUNDS,
    probe: { path: PROBE, headers: headersOf(CREATE.requests[0]) },
    stopGraceMs: 120_000,
  });
}

/**
 * @typedef {object} DurableSummary
 * @property {string | null} error          why the section could not run (whole or in part)
 * @property {string} fsync
 * @property {number} rounds                create runs per target (each row: the median one)
 * @property {number} small                 pets in the small store (as fixtures count them)
 * @property {number} large                 pets in the large one
 * @property {{ small: PreparedStore | null, large: PreparedStore | null }} stores
 * @property {Record<'memory' | 'small' | 'large', { rps: number | null, p50Ms: number | null, p99Ms: number | null, errors: number | null }>} create
 * @property {{ id: string, label: string, value: number | null, min: number, met: boolean | null }[]} ratios
 * @property {{ replay: StartUp | null, snapshot: StartUp | null }} startUp
 */

/**
 * @typedef {object} StartUp
 * @property {string} what
 * @property {number | null} ms              spawn to the first 2xx answer (replay and compaction included)
 * @property {number | null} peakRssMb       VmHWM
 * @property {number} snapshotBytes         before the start
 * @property {number} logBytes
 * @property {number | null} logLines
 * @property {number} snapshotBytesAfter    after the start (and stop)
 * @property {number} logBytesAfter
 * @property {string | null} error
 */

/**
 * The durable rows: the data files made, the create rows (interleaved), the start-up rows.
 * @param {import('./options.mjs').BenchOptions} options @param {Hooks} hooks
 * @returns {Promise<{ runs: DurableRun[], summary: DurableSummary }>}
 */
export async function benchDurable(options, hooks) {
  const { log } = hooks;
  const large = options.durableSize;
  const dir = mkdtempSync(join(tmpdir(), 'understudy-bench-durable-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup);
  /** @type {DurableRun[]} */
  const runs = [];
  const none = () => ({ rps: null, p50Ms: null, p99Ms: null, errors: null });
  /** @type {DurableSummary} */
  const summary = {
    error: null,
    fsync: FSYNC,
    rounds: options.quick ? 1 : ROUNDS,
    small: SMALL,
    large,
    stores: { small: null, large: null },
    create: { memory: none(), small: none(), large: none() },
    ratios: [],
    startUp: { replay: null, snapshot: null },
  };
  try {
    try {
      summary.stores.small = await prepareStore(dir, SMALL, options, log);
      summary.stores.large = await prepareStore(dir, large, options, log);
    } catch (error) {
      summary.error = `could not make the data files: ${/** @type {Error} */ (error).message}`;
      log(`durable: FAILED: ${summary.error}`);
    }
    const { small: smallStore, large: largeStore } = summary.stores;

    /** @type {['memory' | 'small' | 'large', import('./targets.mjs').Target, string | null][]} */
    const creates = [['memory', target('durable-memory', `in memory, ${count(SMALL)} pets`, [], ''), null]];
    for (const [key, store] of /** @type {const} */ ([
      ['small', smallStore],
      ['large', largeStore],
    ])) {
      if (!store) continue;
      const file = stage(dir, `create-${store.records}`, store.file);
      const shown = ` --data FILE (fsync ${FSYNC})`;
      creates.push([
        key,
        target(`durable-data-${store.records - 1}`, `--data, ${count(store.records)} pets`, ['--data', file], shown),
        file,
      ]);
    }
    const entries = await interleavedCreates(
      creates.map(([, t]) => t),
      options,
      hooks,
    );
    creates.forEach(([key, , file], i) => {
      const entry = /** @type {import('./run.mjs').TargetResult} */ (entries[i]);
      runs.push({ entry, scenarios: [CREATE] });
      const result = entry.scenarios[CREATE.id];
      if (result) summary.create[key] = { rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms, errors: result.errors };
      if (file) unstage(file);
    });
    const rps = summary.create;
    summary.ratios = [
      {
        id: 'large-to-small',
        label: `create --data ${count(large)} ÷ --data ${count(SMALL)}`,
        value: ratio(rps.large.rps, rps.small.rps),
        min: 0.8,
      },
      { id: 'large-to-memory', label: `create --data ${count(large)} ÷ in memory`, value: ratio(rps.large.rps, rps.memory.rps), min: 0.5 },
    ].map((r) => ({ ...r, met: r.value === null ? null : r.value >= r.min }));

    /** A start-only row: a copy of the files, the start timed, the files looked at after the stop. */
    const startUp = async (
      /** @type {string} */ id,
      /** @type {string} */ label,
      /** @type {string} */ what,
      /** @type {string} */ snapshot,
      /** @type {string | null} */ logFile,
      /** @type {number | null} */ logLines,
    ) => {
      const file = stage(dir, id, snapshot, logFile);
      const before = { snapshotBytes: sizeOf(file), logBytes: sizeOf(`${file}.log`) };
      const entry = await hooks.benchTarget(target(id, label, ['--data', file], ` --data FILE (${what})`), [], options);
      runs.push({ entry, scenarios: [] });
      /** @type {StartUp} */
      const result = {
        what,
        ms: entry.coldStartMs,
        peakRssMb: entry.peakRssKb === null ? null : entry.peakRssKb / 1024,
        ...before,
        logLines,
        snapshotBytesAfter: sizeOf(file),
        logBytesAfter: sizeOf(`${file}.log`),
        error: entry.error,
      };
      unstage(file);
      return result;
    };
    if (smallStore && largeStore) {
      const logFile = join(dir, `puts-${large}.log`);
      const written = writePutLog(logFile, largeStore, large);
      log(`durable: wrote a log of ${count(written.lines)} puts (${megabytes(written.bytes)})`);
      summary.startUp.replay = await startUp(
        `durable-replay-${large}`,
        `--data, replay ${count(large)} puts`,
        `a ${count(smallStore.records)}-pet snapshot and a log of ${count(large)} puts`,
        smallStore.file,
        logFile,
        written.lines,
      );
      rmSync(logFile, { force: true });
    }
    if (largeStore) {
      summary.startUp.snapshot = await startUp(
        `durable-snapshot-${large}`,
        `--data, ${count(largeStore.records)}-pet snapshot`,
        `a ${count(largeStore.records)}-pet snapshot and an empty log`,
        largeStore.file,
        null,
        null,
      );
    }
  } finally {
    cleanup();
    process.removeListener('exit', cleanup);
  }
  return { runs, summary };
}

/** @param {number | null} value @param {number} digits */
const fixed = (value, digits) => (value === null ? 'n/a' : value.toFixed(digits));

/** The section's lines under the table: the ratios against the targets, the start-ups. @param {DurableSummary} summary */
export function formatDurable(summary) {
  const lines = [
    `durable (--data, fsync ${summary.fsync}; create = POST /v1/pets, 201, the same load settings as every row; the three create`,
    `  servers up at once and measured in turn, ${summary.rounds} round${summary.rounds === 1 ? '' : 's'}, each row its median round; each store file made by the sandbox itself):`,
  ];
  if (summary.error) lines.push(`  FAILED: ${summary.error}`);
  for (const [key, label] of /** @type {const} */ ([
    ['memory', `in memory, ${count(summary.small)} pets`],
    ['small', `--data, ${summary.stores.small ? count(summary.stores.small.records) : count(summary.small)} pets`],
    ['large', `--data, ${summary.stores.large ? count(summary.stores.large.records) : count(summary.large)} pets`],
  ])) {
    const c = summary.create[key];
    lines.push(
      `  create ${label.padEnd(26)} ${c.rps === null ? 'n/a' : Math.round(c.rps).toLocaleString('en-US')} req/s, p50 ${fixed(c.p50Ms, 2)} ms, p99 ${fixed(c.p99Ms, 2)} ms, errors ${c.errors ?? 'n/a'}`,
    );
  }
  for (const r of summary.ratios)
    lines.push(`  ${r.label}: ${fixed(r.value, 2)} (target >= ${r.min}: ${r.met === null ? 'not measured' : r.met ? 'met' : 'NOT MET'})`);
  for (const s of [summary.startUp.replay, summary.startUp.snapshot]) {
    if (!s) continue;
    const files = `snapshot ${megabytes(s.snapshotBytes)}, log ${megabytes(s.logBytes)}`;
    const after = `after: snapshot ${megabytes(s.snapshotBytesAfter)}, log ${megabytes(s.logBytesAfter)}`;
    lines.push(
      s.error
        ? `  start-up with ${s.what}: FAILED: ${s.error}`
        : `  start-up with ${s.what} (${files}): ${s.ms === null ? 'n/a' : Math.round(s.ms).toLocaleString('en-US')} ms to the first answer, peak RSS ${s.peakRssMb === null ? 'n/a' : Math.round(s.peakRssMb)} MB (${after})`,
    );
  }
  const large = summary.stores.large;
  if (large)
    lines.push(
      `  making the ${count(large.records)}-pet file: the first create on the seeded ${count(summary.large)} pets with --data (its adopt line carries them all) took ${Math.round(large.adoptMs).toLocaleString('en-US')} ms`,
    );
  return lines;
}
