// The load generator and where things run: Debian's wrk (C, epoll) when it is installed, else
// autocannon in the harness's own process; with wrk, the server under test pinned to one core and
// wrk (and the harness) to the others with taskset (util-linux). One load run with wrk: a Lua script
// generated from the scenario (scenarios.mjs), whose done() prints the figures as one JSON line.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { headersOf } from './scenarios.mjs';

/**
 * @typedef {object} LoadGenerator
 * @property {'wrk' | 'autocannon'} kind
 * @property {string | null} wrk          path of the wrk binary
 * @property {string | null} version      wrk's version line ("4.1.0-3+b2 [epoll]"), or autocannon's version
 * @property {string | null} taskset      path of taskset, null when missing (or not used)
 * @property {number[]} cpus              the CPUs this process may run on (its affinity)
 * @property {number[] | null} serverCpus the server under test's CPUs; null: not pinned
 * @property {number[] | null} loadCpus   wrk's (and the harness's) CPUs; null: not pinned
 * @property {number} threads             wrk threads (= cores given to wrk)
 * @property {'each' | 'summary'} count   how wrk counts statuses: a response() callback per answer, or
 *                                        its summary's non-2xx/3xx count where that is enough
 * @property {string} pinning             one line saying what runs where
 * @property {string | null} reason       why wrk or pinning is not used, when it is not
 */

/** @param {string} name @returns {string | null} the program's path on PATH */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** The CPUs this process may run on (Cpus_allowed_list), else 0..n-1. @returns {number[]} */
export function allowedCpus() {
  try {
    const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (list) {
      /** @type {number[]} */
      const cpus = [];
      for (const part of list.trim().split(',')) {
        const [from, to] = part.split('-').map(Number);
        for (let cpu = from; cpu <= (to ?? from); cpu++) cpus.push(cpu);
      }
      if (cpus.length > 0) return cpus;
    }
  } catch {
    // not Linux
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

/** @param {number[]} cpus */
export const cpuList = (cpus) => cpus.join(',');

/** The model name of the first CPU in /proc/cpuinfo (os.cpus() shortens some). */
export function cpuModel() {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? null;
  } catch {
    return os.cpus()[0]?.model ?? null;
  }
}

/**
 * Which load generator the run uses, and where things run. BENCH_LOADGEN=autocannon forces
 * autocannon, BENCH_LOADGEN=wrk insists on wrk; BENCH_PIN=0 runs wrk unpinned; BENCH_WRK_COUNT=summary
 * counts statuses from wrk's summary wherever that tells enough (see countsEach).
 * @param {NodeJS.ProcessEnv} env @returns {LoadGenerator}
 */
export function chooseLoadGenerator(env = process.env) {
  const cpus = allowedCpus();
  const wanted = (env.BENCH_LOADGEN ?? '').toLowerCase();
  if (wanted && wanted !== 'wrk' && wanted !== 'autocannon') throw new Error(`BENCH_LOADGEN must be wrk or autocannon, not "${wanted}"`);
  const count = env.BENCH_WRK_COUNT === 'summary' ? 'summary' : 'each';
  const wrk = wanted === 'autocannon' ? null : onPath('wrk');
  if (wanted === 'wrk' && !wrk) throw new Error('BENCH_LOADGEN=wrk, but there is no wrk on PATH (apt-get install wrk)');
  if (!wrk) {
    return {
      kind: 'autocannon',
      wrk: null,
      version: autocannonVersion(),
      taskset: null,
      cpus,
      serverCpus: null,
      loadCpus: null,
      threads: 1,
      count,
      pinning: `autocannon in the harness's process, unpinned: server and load generator share all ${cpus.length} core${cpus.length === 1 ? '' : 's'}`,
      reason: wanted === 'autocannon' ? 'BENCH_LOADGEN=autocannon' : 'no wrk on PATH (apt-get install wrk)',
    };
  }
  const version = wrkVersion(wrk);
  const taskset = onPath('taskset');
  const base = { kind: /** @type {const} */ ('wrk'), wrk, version, cpus, count };
  /** @param {string} reason */
  const unpinned = (reason) => ({
    ...base,
    taskset: null,
    serverCpus: null,
    loadCpus: null,
    threads: Math.max(1, cpus.length - 1),
    pinning: `UNPINNED (${reason}): server and wrk share all ${cpus.length} core${cpus.length === 1 ? '' : 's'}`,
    reason,
  });
  if (env.BENCH_PIN === '0') return unpinned('BENCH_PIN=0');
  if (!taskset) return unpinned('no taskset on PATH: apt-get install util-linux');
  if (cpus.length < 2) return unpinned('one core only: nothing to pin apart');
  const serverCpus = cpus.slice(0, 1);
  const loadCpus = cpus.slice(1);
  return {
    ...base,
    taskset,
    serverCpus,
    loadCpus,
    threads: loadCpus.length,
    pinning: `taskset: server on CPU ${cpuList(serverCpus)}, wrk (${loadCpus.length} thread${loadCpus.length === 1 ? '' : 's'}) and the harness on CPU ${cpuList(loadCpus)}`,
    reason: null,
  };
}

/** @param {string} wrk */
function wrkVersion(wrk) {
  try {
    // `wrk -v` prints its version line and the usage, and exits 1.
    execFileSync(wrk, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const out = String(/** @type {{ stdout?: string }} */ (error).stdout ?? '');
    const line = /^wrk (.+?) Copyright/m.exec(out)?.[1];
    if (line) return line.trim();
  }
  return null;
}

function autocannonVersion() {
  try {
    return JSON.parse(readFileSync(new URL('../node_modules/autocannon/package.json', import.meta.url), 'utf8')).version;
  } catch {
    return null;
  }
}

/** The run's load generator, chosen once. */
export const LOADGEN = chooseLoadGenerator();

/**
 * Pins the harness itself (every thread) to `cpus`: its polling and sampling then never take the
 * server's core. Null puts it back on every allowed CPU. No-op without taskset.
 * @param {number[] | null} cpus
 */
export function pinHarness(cpus) {
  if (!LOADGEN.taskset) return;
  execFileSync(LOADGEN.taskset, ['-a', '-p', '-c', cpuList(cpus ?? LOADGEN.cpus), String(process.pid)], { stdio: 'ignore' });
}

/**
 * The command that starts a server under test: through taskset on the server's core when pinning.
 * @param {string} command @param {string[]} args @param {boolean} pinned @returns {[string, string[]]}
 */
export function pinnedCommand(command, args, pinned) {
  if (!pinned || !LOADGEN.taskset || !LOADGEN.serverCpus) return [command, args];
  return [LOADGEN.taskset, ['-c', cpuList(LOADGEN.serverCpus), command, ...args]];
}

// ---------------------------------------------------------------------------------------------
// wrk runs

const SCRIPTS = mkdtempSync(join(tmpdir(), 'understudy-bench-wrk-'));
process.once('exit', () => rmSync(SCRIPTS, { recursive: true, force: true }));

/** A Lua string literal. @param {string} s */
const lua = (s) => JSON.stringify(s); // JSON's escapes (\", \\, \n, \uXXXX for controls) are Lua's too, but for \u
/** @param {Record<string, string>} headers */
const luaTable = (headers) =>
  `{ ${Object.entries(headers)
    .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
    .join(', ')} }`;

/**
 * Whether a run counts each answer's status with a Lua response() callback (wrk then hands every
 * answer's headers and body to Lua), or reads wrk's summary, which counts answers with a status of
 * 400 or more (`errors.status`): enough when every request expects the same 2xx status.
 * @param {number[]} expects @param {'each' | 'summary'} count
 */
export function countsEach(expects, count) {
  if (count === 'each') return true;
  return new Set(expects).size > 1 || expects[0] < 200 || expects[0] >= 300;
}

/**
 * The Lua script of a scenario. One request: wrk's static request (no request() callback). Several:
 * pre-formatted in init() and sent in turn by request(). With `each`, response() counts statuses
 * (globals per thread, read by done() through thread:get). done() prints one line: WRKJSON {...}.
 * @param {{ method: string, path: string, headers: Record<string, string>, body?: string }[]} requests
 * @param {boolean} each
 */
export function wrkScript(requests, each) {
  for (const r of requests)
    if (/[^\x20-\x7e]/.test(r.path + (r.body ?? '') + JSON.stringify(r.headers))) throw new Error('wrk scripts carry printable ASCII only'); // \u escapes are not Lua's
  const lines = [
    '-- generated by bench/loadgen.mjs from bench/scenarios.mjs',
    'local threads = {}',
    'function setup(thread) table.insert(threads, thread) end',
  ];
  if (requests.length === 1) {
    const [r] = requests;
    lines.push(`wrk.method = ${lua(r.method)}`, `wrk.path = ${lua(r.path)}`);
    for (const [k, v] of Object.entries(r.headers)) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`);
    if (r.body !== undefined) lines.push(`wrk.body = ${lua(r.body)}`);
  } else {
    lines.push(
      'local requests = {}',
      'local n = 0',
      'function init(args)',
      ...requests.map(
        (r) =>
          `  table.insert(requests, wrk.format(${lua(r.method)}, ${lua(r.path)}, ${luaTable(r.headers)}, ${r.body === undefined ? 'nil' : lua(r.body)}))`,
      ),
      'end',
      'function request()',
      '  n = n % #requests + 1',
      '  return requests[n]',
      'end',
    );
  }
  if (each)
    lines.push('statuses = {}', 'function response(status, headers, body)', '  statuses[status] = (statuses[status] or 0) + 1', 'end');
  lines.push(
    'function done(summary, latency, requests)',
    '  local counted = {}',
    ...(each
      ? [
          '  for _, thread in ipairs(threads) do',
          '    for status, n in pairs(thread:get("statuses")) do',
          '      counted[#counted + 1] = string.format("[%d,%d]", status, n)',
          '    end',
          '  end',
        ]
      : []),
    '  local e = summary.errors',
    '  io.write(string.format(\'WRKJSON {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f,"statuses":[%s]}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean, table.concat(counted, ",")))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/** user + system clock ticks of this process's waited-for children (cutime + cstime), or null. */
function childTicks() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]);
  } catch {
    return null;
  }
}
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * @typedef {object} WrkResult
 * @property {number} requests       answers in the window
 * @property {number} seconds        the window, as wrk measured it
 * @property {{ p50: number, p90: number, p99: number, max: number, mean: number }} latencyUs  over every answer
 * @property {{ connect: number, read: number, write: number, timeout: number, status: number }} errors  wrk's counts
 * @property {Record<string, number> | null} statuses  answers by status (null when not counted one by one)
 * @property {number | null} cpuSeconds  wrk's own CPU time (user + system)
 * @property {string} script         the Lua script (for the record)
 * @property {string[]} args         wrk's command line
 */

let scriptSerial = 0;

/**
 * Runs wrk once against `origin` for `seconds` (whole seconds: wrk takes no fractions).
 * @param {{ origin: string, requests: { method: string, path: string, headers: Record<string, string>, body?: string }[], each: boolean, seconds: number, connections: number }} run
 * @returns {Promise<WrkResult>}
 */
export async function runWrk(run) {
  if (!LOADGEN.wrk) throw new Error('wrk is not available');
  const script = wrkScript(run.requests, run.each);
  const file = join(SCRIPTS, `scenario-${++scriptSerial}.lua`);
  writeFileSync(file, script);
  const seconds = Math.max(1, Math.ceil(run.seconds));
  const threads = Math.max(1, Math.min(LOADGEN.threads, run.connections));
  const wrkArgs = ['-t', String(threads), '-c', String(run.connections), '-d', `${seconds}s`, '--timeout', '2s', '-s', file, run.origin];
  const [command, args] =
    LOADGEN.loadCpus && LOADGEN.taskset
      ? [LOADGEN.taskset, ['-c', cpuList(LOADGEN.loadCpus), LOADGEN.wrk, ...wrkArgs]]
      : [LOADGEN.wrk, wrkArgs];
  const before = childTicks();
  const { code, stdout, stderr } = await new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ code: status, stdout: out, stderr: err }));
  });
  const after = childTicks(); // wrk has been waited for: its CPU time is in our children's
  rmSync(file, { force: true });
  const line = /^WRKJSON (.+)$/m.exec(stdout)?.[1];
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${(stderr || stdout).trim().slice(0, 500)}`);
  const raw = JSON.parse(line);
  /** @type {Record<string, number> | null} */
  let statuses = null;
  if (run.each) {
    statuses = {};
    for (const [status, n] of /** @type {[number, number][]} */ (raw.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  }
  return {
    requests: raw.requests,
    seconds: raw.durationUs / 1e6,
    latencyUs: { p50: raw.p50, p90: raw.p90, p99: raw.p99, max: raw.max, mean: raw.mean },
    errors: { connect: raw.connect, read: raw.read, write: raw.write, timeout: raw.timeout, status: raw.status },
    statuses,
    cpuSeconds: before === null || after === null ? null : (after - before) / TICKS_PER_SECOND,
    script,
    args: [command, ...args].map((a) => (a === file ? 'SCRIPT.lua' : a)),
  };
}

/**
 * Answers whose status is not what the scenario's requests expect. One expected status: every other
 * status. Several (the mixed scenario, sent in turn): wrk does not say which answer is to which
 * request, so each status's count is held against its share of the answers; the excess beyond a
 * slack of the connections plus the threads (requests in flight at the end, each thread's place in
 * the cycle) is unexpected, as is every status no request expects.
 * @param {Record<string, number>} statuses @param {number[]} expects @param {number} slack
 */
export function unexpectedOf(statuses, expects, slack) {
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  /** @type {Record<string, number>} */
  const share = {};
  for (const e of expects) share[e] = (share[e] ?? 0) + 1 / expects.length;
  let unexpected = 0;
  for (const [status, n] of Object.entries(statuses)) {
    const s = share[status];
    if (s === undefined) unexpected += n;
    else if (expects.length > 1) unexpected += Math.max(0, Math.round(n - s * total - slack));
  }
  return unexpected;
}

/** The requests of a scenario as wrk sends them. @param {import('./scenarios.mjs').Scenario} scenario @param {string} basePath */
export const wrkRequests = (scenario, basePath) =>
  scenario.requests.map((r) => ({
    method: r.method,
    path: basePath + r.path,
    headers: headersOf(r),
    ...(r.body === undefined ? {} : { body: r.body }),
  }));
