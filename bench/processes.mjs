// Server processes: spawn, time to first answer, memory, stop. Every process started here is
// killed when the harness exits, however it exits.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinnedCommand } from './loadgen.mjs';
import { ROOT } from './options.mjs';

/**
 * @typedef {object} ServerProcess
 * @property {string} name
 * @property {import('node:child_process').ChildProcess} child
 * @property {number} pid
 * @property {number} spawnedAt   performance.now() just before spawn
 * @property {string} logFile     the process's stdout and stderr
 * @property {Promise<void>} exit resolves when the process has exited
 * @property {string | null} exitedWith  null while it runs, else "code N" or the signal
 */

/**
 * @typedef {object} Probe
 * @property {string} url
 * @property {Record<string, string>} [headers]
 */

const LOG_DIR = mkdtempSync(join(tmpdir(), 'understudy-bench-'));
/** @type {Set<ServerProcess>} */
const live = new Set();

function killAll() {
  for (const server of live) {
    try {
      process.kill(server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
  rmSync(LOG_DIR, { recursive: true, force: true });
}

process.once('exit', killAll);
for (const [signal, code] of /** @type {const} */ ([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
])) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping the servers\n`);
    process.exit(code); // runs killAll
  });
}

/** Environment variables the sandbox reads: the bench passes everything on the command line. */
const SANDBOX_ENV = [
  'SANDBOX_CONFIG',
  'SANDBOX_SPEC',
  'SANDBOX_DATA',
  'SANDBOX_REDIS_URL',
  'PORT',
  'HOST',
  'SANDBOX_SEED',
  'SANDBOX_ADMIN_TOKEN',
  'SANDBOX_NO_ADMIN',
  'SANDBOX_CACHE_DIR',
  // The log format: the bench measures the JSON log (its output is a file), whatever the caller's shell says.
  'SANDBOX_LOG_FORMAT',
];

/**
 * Variables no server here has a use for that change how long any Node process takes to start:
 * with NODE_EXTRA_CA_CERTS set, Node reads and parses those certificates before the first line of
 * every program (60 ms for Debian's bundle on the machine this was written on), for the outbound
 * TLS none of the servers makes. Left out, so that a start measures the server, not the machine.
 */
export const STARTUP_ENV = ['NODE_EXTRA_CA_CERTS'];

/** A port nobody listens on right now. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * @param {string} name @param {string[]} args arguments to `node` (or to `command`)
 * @param {string} command the program: node unless said otherwise (replicas.mjs starts redis-server)
 * @param {{ pinned?: boolean, env?: Record<string, string> }} [how] pinned: started through taskset on the
 *   server's core (loadgen.mjs), when the run pins; taskset execs the program, so the pid is the server's.
 *   env: variables to set for this server
 * @returns {ServerProcess}
 */
export function startServer(name, args, command = process.execPath, how = {}) {
  const logFile = join(LOG_DIR, `${name.replace(/[^\w.-]+/g, '-')}.log`);
  const fd = openSync(logFile, 'w');
  const env = { ...process.env };
  for (const key of [...SANDBOX_ENV, ...STARTUP_ENV]) delete env[key];
  // A sandbox on loopback makes itself an admin token when given none (and then keeps a journal):
  // the rows without an admin token measure the sandbox without its admin API, as they always have
  // (a checkout older than that choice ignores the variable).
  if (command === process.execPath && !args.includes('--admin-token')) env.SANDBOX_NO_ADMIN = '1';
  Object.assign(env, how.env);
  const [program, argv] = pinnedCommand(command, args, how.pinned === true);
  const spawnedAt = performance.now();
  const child = spawn(program, argv, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`${name}: could not spawn ${command} ${args.join(' ')}`);
  /** @type {ServerProcess} */
  const server = {
    name,
    child,
    pid: child.pid,
    spawnedAt,
    logFile,
    exitedWith: null,
    exit: new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        server.exitedWith = signal ?? `code ${code}`;
        live.delete(server);
        resolve();
      });
    }),
  };
  live.add(server);
  return server;
}

/** The last lines the process wrote (for error messages). @param {ServerProcess} server */
export function logTail(server, lines = 5) {
  try {
    return readFileSync(server.logFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** One GET; resolves with the status, or null when nothing answered. @param {Probe} probe */
function tryOnce(probe) {
  return new Promise((resolve) => {
    const req = http.get(probe.url, { headers: probe.headers, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? null));
      res.once('error', () => resolve(null));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(null));
  });
}

/**
 * Cold start: from spawn to the first 2xx answer to `probe`, polled every millisecond or two.
 * Throws with the process's last words when it exits first or takes longer than `timeoutS`.
 * @param {ServerProcess} server @param {Probe} probe @param {number} timeoutS
 * @returns {Promise<number>} milliseconds
 */
export async function timeToFirstAnswer(server, probe, timeoutS) {
  const deadline = server.spawnedAt + timeoutS * 1000;
  let lastStatus = null;
  while (performance.now() < deadline) {
    if (server.exitedWith !== null) {
      const after = Math.round(performance.now() - server.spawnedAt);
      throw new Error(`exited (${server.exitedWith}) ${after} ms after spawn, before answering: ${logTail(server) || '(no output)'}`);
    }
    const status = await tryOnce(probe);
    if (status !== null && status >= 200 && status < 300) return performance.now() - server.spawnedAt;
    if (status !== null) lastStatus = status;
    await sleep(status === null ? 2 : 20);
  }
  throw new Error(
    `no 2xx answer to GET ${probe.url} within ${timeoutS} s${lastStatus ? ` (last answer ${lastStatus})` : ''}: ${logTail(server) || '(no output)'}`,
  );
}

/** pid -> the highest VmHWM read before a resetPeakRss(): VmHWM then starts again from VmRSS. */
const peaksBeforeReset = new Map();

/**
 * The process's resident memory now and at its peak, in kB (Linux /proc), or null elsewhere.
 * `hwmKb` is the peak over the process's life (resets included); `sinceResetKb` the peak since the
 * last resetPeakRss() (VmHWM as the kernel has it).
 * @param {number} pid @returns {{ rssKb: number, hwmKb: number, sinceResetKb: number } | null}
 */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (/** @type {string} */ name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    const hwm = field('VmHWM');
    return { rssKb: field('VmRSS'), hwmKb: Math.max(hwm, peaksBeforeReset.get(pid) ?? 0), sinceResetKb: hwm };
  } catch {
    return null;
  }
}

/**
 * Resets the process's VmHWM to its VmRSS (`5` to /proc/PID/clear_refs, Linux 4.0+), remembering the
 * peak so far: the next sinceResetKb is the exact peak of what happened in between. False when the
 * kernel refused (then only sampling tells the peak of a window).
 * @param {number} pid
 */
export function resetPeakRss(pid) {
  const memory = memoryOf(pid);
  if (!memory) return false;
  peaksBeforeReset.set(pid, memory.hwmKb);
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples the resident memory every `intervalMs`; `stop()` gives the highest seen, in kB. @param {number} pid */
export function sampleRss(pid, intervalMs = 200) {
  let peak = 0;
  const take = () => {
    const memory = memoryOf(pid);
    if (memory && memory.rssKb > peak) peak = memory.rssKb;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak || null;
    },
  };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. @param {ServerProcess} server */
export async function stopServer(server, graceMs = 5000) {
  if (server.exitedWith === null) {
    server.child.kill('SIGTERM');
    const forced = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
    await server.exit;
    clearTimeout(forced);
  }
  peaksBeforeReset.delete(server.pid);
  rmSync(server.logFile, { force: true });
}
