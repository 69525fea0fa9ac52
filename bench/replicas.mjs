// The replica rows of npm run bench: Understudy on Redis (`--redis`), one replica and two behind a
// round-robin proxy, against the sandbox in memory, in the same run. The harness starts its own
// redis-server (a temporary --dir, deleted afterwards). Self-contained: run.mjs calls benchReplicas()
// with its own quiet() and log(), and prints what comes back. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { blankEntry } from './interleave.mjs';
import { coresUsed } from './machine.mjs';
import { measureLoad } from './measure.mjs';
import { ROOT } from './options.mjs';
import { freePort, logTail, memoryOf, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';
import { headersOf, SCENARIOS, send } from './scenarios.mjs';
import { BENCH_CONFIG, sandboxArgs } from './targets.mjs';

/** The comparison scenarios measured here (mixed: list, get, create, invalid create, no key). */
const SCENARIO_IDS = ['list', 'get', 'create', 'mixed'];
const CHOSEN = SCENARIO_IDS.map((id) => /** @type {import('./scenarios.mjs').Scenario} */ (SCENARIOS.find((s) => s.id === id)));
const CREATE = /** @type {import('./scenarios.mjs').Scenario} */ (SCENARIOS.find((s) => s.id === 'create'));
const PROBE = '/v1/pets?status=available&limit=20';
const PROXY = join(ROOT, 'bench/round-robin-proxy.mjs');
/** How the harness runs Redis: no RDB snapshots, AOF on with one fsync a second (the advice of docs/replicas.md). */
const REDIS_PERSISTENCE = ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'];
/**
 * Rounds, as in durable.mjs: every target is up at once; each round measures every scenario on
 * every target in turn (the order reversed every other round), and each row is its median round.
 */
const ROUNDS = 3;
/** Processes busy during a two-replica run: two sandboxes, Redis, the proxy, autocannon. */
const BUSY_PROCESSES = 5;

/**
 * @typedef {object} Hooks  what run.mjs lends the section
 * @property {(options: import('./options.mjs').BenchOptions, what: string) => Promise<void>} quiet  waits for the machine to go quiet
 * @property {(message: string) => void} log
 */

/**
 * @typedef {object} Cluster  one target of the section: sandbox processes, maybe behind the proxy
 * @property {string} id
 * @property {string} label
 * @property {number} replicas     sandbox processes
 * @property {boolean} redis       on the harness's Redis (`--redis`), under a prefix of its own
 * @property {boolean} proxied     behind bench/round-robin-proxy.mjs
 */

/** @type {Cluster[]} In table order; the first is what every ratio divides by. */
const CLUSTERS = [
  { id: 'replicas-memory', label: 'in memory, 1 process', replicas: 1, redis: false, proxied: false },
  { id: 'replicas-redis-1', label: 'Redis, 1 replica', replicas: 1, redis: true, proxied: false },
  { id: 'replicas-redis-1-proxy', label: 'Redis, 1 replica, proxy', replicas: 1, redis: true, proxied: true },
  { id: 'replicas-redis-2-proxy', label: 'Redis, 2 replicas, proxy', replicas: 2, redis: true, proxied: true },
];

/** @param {string} id */
const prefixOf = (id) => `understudy-bench:${id}:`;

/**
 * @typedef {object} ReplicaRun  one target of the section, for run.mjs's table
 * @property {import('./run.mjs').TargetResult} entry
 * @property {import('./scenarios.mjs').Scenario[]} scenarios
 */

/**
 * @typedef {object} ReplicaSummary
 * @property {string | null} skipped        why the section did not run (no redis-server)
 * @property {string | null} error          why it failed (whole or in part)
 * @property {number} cores                 os.availableParallelism()
 * @property {string | null} redisVersion
 * @property {string} redisCommand          how the harness started Redis (port and --dir left out)
 * @property {number} rounds
 * @property {string[]} scenarios
 * @property {{ id: string, label: string, command: string, prefix: string | null, peakRssKb: (number | null)[] }[]} targets
 * @property {Record<string, Record<string, { rps: number | null, p99: number | null }>>} ratios  target -> scenario -> ÷ in memory
 * @property {Record<string, Record<string, Record<string, number> | null>>} redisCommands  target -> scenario -> command -> calls per answer (median round)
 * @property {Record<string, Record<string, Record<string, number | null>>>} busyCores  target -> scenario -> process -> cores it kept busy (median round)
 * @property {{ peakRssKb: number | null, usedMemoryBytes: number | null, aofBytes: number | null, proxyPeakRssKb: (number | null)[] }} footprint
 */

// --- a few Redis commands over RESP, without a client library ----------------------------------

/**
 * Sends one command and resolves with its reply (a string, a number or null; an error reply rejects).
 * @param {number} port @param {string[]} args @returns {Promise<string | number | null>}
 */
function redisCommand(port, args, timeoutMs = 2000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    /** @type {Buffer} */
    let buffer = Buffer.alloc(0);
    const done = (/** @type {Error | null} */ error, /** @type {string | number | null} */ value = null) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => done(new Error(`redis ${args[0]}: no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => done(error));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n');
      if (end < 0) return;
      const kind = String.fromCharCode(buffer[0]);
      const head = buffer.subarray(1, end).toString('utf8');
      if (kind === '+') done(null, head);
      else if (kind === '-') done(new Error(`redis ${args[0]}: ${head}`));
      else if (kind === ':') done(null, Number(head));
      else if (kind === '$') {
        const length = Number(head);
        if (length < 0) done(null, null);
        else if (buffer.length >= end + 2 + length + 2) done(null, buffer.subarray(end + 2, end + 2 + length).toString('utf8'));
      } else done(new Error(`redis ${args[0]}: an answer this client does not read (${kind})`));
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

/** Calls per command so far (`INFO commandstats`). @param {number} port @returns {Promise<Record<string, number>>} */
async function commandCalls(port) {
  const text = String(await redisCommand(port, ['INFO', 'commandstats']));
  /** @type {Record<string, number>} */
  const calls = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1]] = Number(match[2]);
  return calls;
}

/** One field of `INFO <section>`. @param {number} port @param {string} section @param {string} field */
async function infoField(port, section, field) {
  const text = String(await redisCommand(port, ['INFO', section]));
  return new RegExp(`^${field}:(.*)$`, 'm').exec(text)?.[1]?.trim() ?? null;
}

/**
 * The redis-server to run (REDIS_SERVER or the one on PATH) and its version, or null when there is none.
 * @returns {{ binary: string, version: string } | null}
 */
function findRedis() {
  const binary = process.env.REDIS_SERVER || 'redis-server';
  try {
    const out = execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { binary, version: /v=(\S+)/.exec(out)?.[1] ?? out.trim() };
  } catch {
    return null;
  }
}

/**
 * Starts redis-server on a free loopback port in `dir`, and waits for its PONG.
 * @param {string} binary @param {string} dir @param {import('./options.mjs').BenchOptions} options
 */
async function startRedis(binary, dir, options) {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...REDIS_PERSISTENCE];
  const server = startServer('redis-server', args, binary);
  const deadline = performance.now() + options.startTimeout * 1000;
  for (;;) {
    if (server.exitedWith !== null) throw new Error(`redis-server exited (${server.exitedWith}): ${logTail(server) || '(no output)'}`);
    const pong = await redisCommand(port, ['PING'], 500).catch(() => null);
    if (pong === 'PONG') return { server, port, url: `redis://127.0.0.1:${port}` };
    if (performance.now() > deadline)
      throw new Error(`redis-server did not answer PING within ${options.startTimeout} s: ${logTail(server) || '(no output)'}`);
    await sleep(20);
  }
}

/**
 * bench/sandbox.yaml with a `redis` block added (its prefix, and the replicas for `outage: local`),
 * written to `dir`; the URL is given with `--redis`. @param {string} dir @param {Cluster} cluster
 */
function configFor(dir, cluster) {
  const base = readFileSync(BENCH_CONFIG, 'utf8');
  if (/^redis:/m.test(base)) throw new Error('bench/sandbox.yaml has a redis block already: the replica rows add their own');
  const file = join(dir, `${cluster.id}.yaml`);
  writeFileSync(
    file,
    `${base}\n# Added by bench/replicas.mjs for ${cluster.label}\nredis: { prefix: '${prefixOf(cluster.id)}', replicas: ${cluster.replicas} }\n`,
  );
  return file;
}

/** @param {Cluster} cluster */
function commandOf(cluster) {
  if (!cluster.redis) return 'understudy --config bench/sandbox.yaml (log: info)';
  const one = `understudy --config bench/sandbox.yaml+redis.prefix --redis URL`;
  return cluster.proxied ? `${cluster.replicas} x ${one}, behind node bench/round-robin-proxy.mjs (per connection)` : `${one} (log: info)`;
}

/** @param {Cluster} cluster @returns {import('./run.mjs').TargetResult} */
const clusterEntry = (cluster) => blankEntry({ id: cluster.id, label: cluster.label, command: commandOf(cluster) });

/**
 * @typedef {object} Live  a cluster while it runs
 * @property {Cluster} cluster
 * @property {import('./run.mjs').TargetResult} entry
 * @property {import('./processes.mjs').ServerProcess[]} servers
 * @property {import('./processes.mjs').ServerProcess | null} proxy
 * @property {string} origin   where the load goes: the only replica, or the proxy
 * @property {Record<string, (import('./measure.mjs').LoadResult & { redisCommands: Record<string, number> | null, cores: Record<string, number | null> })[]>} results  per scenario, per round
 */

/**
 * Starts a cluster: its replicas at once (each timed from its spawn to its first answer: the row's
 * start is the later), then the proxy. @param {Cluster} cluster @param {string | null} config
 * @param {string | null} redisUrl @param {import('./options.mjs').BenchOptions} options @param {Live[]} live
 */
async function startCluster(cluster, config, redisUrl, options, live) {
  /** @type {Live} */
  const one = { cluster, entry: clusterEntry(cluster), servers: [], proxy: null, origin: '', results: {} };
  live.push(one);
  /** @type {number[]} */
  const ports = [];
  for (let i = 0; i < cluster.replicas; i++) {
    const port = await freePort();
    ports.push(port);
    const extra = redisUrl === null ? [] : ['--redis', redisUrl];
    one.servers.push(startServer(`${cluster.id}-${i + 1}`, sandboxArgs(config ?? BENCH_CONFIG, extra)(port)));
  }
  const firsts = await Promise.all(
    one.servers.map((server, i) =>
      timeToFirstAnswer(
        server,
        { url: `http://127.0.0.1:${ports[i]}${PROBE}`, headers: headersOf(CREATE.requests[0]) },
        options.startTimeout,
      ),
    ),
  );
  one.entry.coldStartMs = Math.max(...firsts);
  one.origin = `http://127.0.0.1:${ports[0]}`;
  if (cluster.proxied) {
    const port = await freePort();
    one.proxy = startServer(`${cluster.id}-proxy`, [
      PROXY,
      '--port',
      String(port),
      ...ports.flatMap((p) => ['--upstream', `127.0.0.1:${p}`]),
    ]);
    one.origin = `http://127.0.0.1:${port}`;
    await timeToFirstAnswer(one.proxy, { url: one.origin + PROBE, headers: headersOf(CREATE.requests[0]) }, options.startTimeout);
  }
  return one;
}

/** The processes of a cluster that may not die under load. @param {Live} one @param {import('./processes.mjs').ServerProcess | null} redis */
const processesOf = (one, redis) => [...one.servers, ...(one.proxy ? [one.proxy] : []), ...(one.cluster.redis && redis ? [redis] : [])];

/**
 * One measured run, as measureLoad does it (warm-up, then the window), with Redis's command counts
 * read around the window. @param {Live} one @param {import('./scenarios.mjs').Scenario} scenario
 * @param {import('./options.mjs').BenchOptions} options @param {{ server: import('./processes.mjs').ServerProcess, port: number } | null} redis
 */
async function measureOnce(one, scenario, options, redis) {
  const others = processesOf(one, redis?.server ?? null).slice(1);
  const load = {
    origin: one.origin,
    basePath: '/v1',
    constant: false,
    scenario,
    duration: options.duration,
    warmup: 0,
    connections: options.connections,
    pid: one.servers[0].pid,
    pids: others.map((p) => p.pid),
    // autocannon in this process, unpinned, as before wrk: the cores-busy figures count it as 'autocannon'
    generator: /** @type {const} */ ('autocannon'),
  };
  if (options.warmup > 0) await measureLoad({ ...load, duration: options.warmup });
  const counted = one.cluster.redis && redis !== null;
  const before = counted ? await commandCalls(redis.port) : null;
  /** @type {[string, number | 'self'][]} what kept the cores busy: the target's processes and the harness (autocannon) */
  const busy = [
    ...one.servers.map((s, i) => /** @type {[string, number]} */ ([one.servers.length === 1 ? 'sandbox' : `replica ${i + 1}`, s.pid])),
    ...(one.proxy ? [/** @type {[string, number]} */ (['proxy', one.proxy.pid])] : []),
    ...(counted ? [/** @type {[string, number]} */ (['Redis', redis.server.pid])] : []),
    /** @type {[string, 'self']} */ (['autocannon', 'self']),
  ];
  const cpu = coresUsed(busy.map(([, pid]) => pid));
  const result = await measureLoad(load);
  const used = cpu.stop();
  const after = counted ? await commandCalls(redis.port) : null;
  /** @type {Record<string, number> | null} */
  let redisCommands = null;
  if (before && after && result.requests > 0) {
    redisCommands = {};
    for (const [command, calls] of Object.entries(after)) {
      const used = calls - (before[command] ?? 0) - (command === 'info' ? 1 : 0); // the INFO that read `before`
      if (used > 0) redisCommands[command] = used / result.requests;
    }
  }
  return { ...result, redisCommands, cores: Object.fromEntries(busy.map(([name], i) => [name, used[i] ?? null])) };
}

/**
 * The replica rows: Redis started, every cluster started and primed, then ROUNDS rounds (1 in a quick
 * run) of every scenario on every cluster in turn; a row's figures are its median round's (by req/s),
 * its errors every round's. Everything is stopped and the Redis directory deleted at the end.
 * @param {import('./options.mjs').BenchOptions} options @param {Hooks} hooks
 * @returns {Promise<{ runs: ReplicaRun[], summary: ReplicaSummary }>}
 */
export async function benchReplicas(options, hooks) {
  const { log } = hooks;
  const rounds = options.quick ? 1 : ROUNDS;
  /** @type {ReplicaSummary} */
  const summary = {
    skipped: null,
    error: null,
    cores: os.availableParallelism(),
    redisVersion: null,
    redisCommand: `redis-server --bind 127.0.0.1 --port PORT --dir TMPDIR ${REDIS_PERSISTENCE.map((a) => (a === '' ? "''" : a)).join(' ')}`,
    rounds,
    scenarios: SCENARIO_IDS,
    targets: [],
    ratios: {},
    redisCommands: {},
    busyCores: {},
    footprint: { peakRssKb: null, usedMemoryBytes: null, aofBytes: null, proxyPeakRssKb: [] },
  };
  const found = findRedis();
  if (!found) {
    summary.skipped = `no ${process.env.REDIS_SERVER || 'redis-server'} to run (install Debian's redis-server, or set REDIS_SERVER)`;
    log(`replicas: skipped: ${summary.skipped}`);
    return { runs: [], summary };
  }
  summary.redisVersion = found.version;
  const dir = mkdtempSync(join(tmpdir(), 'understudy-bench-replicas-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', cleanup); // after processes.mjs's handler has killed redis-server and the replicas
  /** @type {Live[]} */
  const live = [];
  /** @type {{ server: import('./processes.mjs').ServerProcess, port: number, url: string } | null} */
  let redis = null;
  try {
    const redisDir = join(dir, 'redis');
    mkdirSync(redisDir);
    await hooks.quiet(options, 'replicas: redis-server');
    redis = await startRedis(found.binary, redisDir, options);
    log(`replicas: redis-server ${found.version} on 127.0.0.1:${redis.port} (${REDIS_PERSISTENCE.join(' ')})`);
    for (const cluster of CLUSTERS) {
      await hooks.quiet(options, `${cluster.label}: start`);
      log(`${cluster.label}: starting`);
      const config = cluster.redis ? configFor(dir, cluster) : null;
      try {
        const one = await startCluster(cluster, config, cluster.redis ? redis.url : null, options, live);
        // One create first: a collection is copied from the seed into Redis on its first write, and
        // until then the replicas answer reads from their in-memory seed. Primed, every read goes to
        // Redis in every round (the in-memory target gets the same create).
        const created = await send(one.origin, '/v1/pets', CREATE.requests[0]);
        if (created.status !== 201) throw new Error(`the priming create answered ${created.status}: ${created.body.slice(0, 200)}`);
        log(`${cluster.label}: first answer after ${Math.round(one.entry.coldStartMs ?? 0)} ms`);
      } catch (error) {
        const one = live.find((l) => l.cluster === cluster);
        const message = `${/** @type {Error} */ (error).message}${one ? ` ${one.servers.map((s) => logTail(s)).join(' | ')}` : ''}`;
        if (one) one.entry.error = message;
        log(`${cluster.label}: FAILED: ${message}`);
      }
      summary.targets.push({
        id: cluster.id,
        label: cluster.label,
        command: commandOf(cluster),
        prefix: cluster.redis ? prefixOf(cluster.id) : null,
        peakRssKb: [],
      });
    }

    for (let round = 1; round <= rounds; round++) {
      for (const scenario of CHOSEN) {
        for (const one of round % 2 === 1 ? live : [...live].reverse()) {
          if (one.entry.error) continue;
          await hooks.quiet(options, `${one.entry.label}: ${scenario.label}`);
          const result = await measureOnce(one, scenario, options, redis);
          const dead = processesOf(one, redis.server).find((p) => p.exitedWith !== null);
          if (dead) {
            one.entry.error = `${dead.name} exited (${dead.exitedWith}) under load: ${logTail(dead)}`;
            log(`${one.entry.label}: FAILED: ${one.entry.error}`);
            continue;
          }
          (one.results[scenario.id] ??= []).push(result);
          const commands = result.redisCommands ? Object.values(result.redisCommands).reduce((a, b) => a + b, 0) : null;
          log(
            `${one.entry.label}: ${scenario.label}, round ${round}/${rounds}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms?.toFixed(2)} ms, ${result.errors} errors${commands === null ? '' : `, ${commands.toFixed(1)} Redis commands per answer`}, others took ${Math.round((result.foreignCpu ?? 0) * 100)}% of the CPU`,
          );
        }
      }
    }

    for (const one of live) {
      summary.redisCommands[one.cluster.id] = {};
      summary.busyCores[one.cluster.id] = {};
      for (const scenario of CHOSEN) {
        const results = one.results[scenario.id] ?? [];
        if (results.length === 0) continue;
        const median = [...results].sort((a, b) => a.rps - b.rps)[Math.floor((results.length - 1) / 2)];
        /** @type {Record<string, number>} */
        const statuses = {};
        for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
        const sum = (/** @type {'errors' | 'unexpected' | 'socketErrors'} */ key) => results.reduce((total, r) => total + r[key], 0);
        one.entry.scenarios[scenario.id] = {
          ...median,
          errors: sum('errors'),
          unexpected: sum('unexpected'),
          socketErrors: sum('socketErrors'),
          statuses,
          rounds: results.map((r) => ({
            rps: r.rps,
            p50Ms: r.p50Ms,
            p99Ms: r.p99Ms,
            errors: r.errors,
            foreignCpu: r.foreignCpu,
            redisCommands: r.redisCommands,
            cores: r.cores,
          })),
        };
        summary.redisCommands[one.cluster.id][scenario.id] = median.redisCommands;
        summary.busyCores[one.cluster.id][scenario.id] = median.cores;
        one.entry.loadPeakRssKb = Math.max(one.entry.loadPeakRssKb ?? 0, ...results.map((r) => r.peakRssKb ?? 0)) || null;
      }
      const peaks = one.servers.map((s) => memoryOf(s.pid)?.hwmKb ?? null);
      const target = summary.targets.find((t) => t.id === one.cluster.id);
      if (target) target.peakRssKb = peaks;
      one.entry.peakRssKb = peaks.every((p) => p !== null) ? peaks.reduce((a, b) => a + b, 0) : null;
      if (one.proxy) summary.footprint.proxyPeakRssKb.push(memoryOf(one.proxy.pid)?.hwmKb ?? null);
    }
    const memory = live.find((l) => l.cluster === CLUSTERS[0]);
    for (const one of live) {
      if (one === memory) continue;
      summary.ratios[one.cluster.id] = {};
      for (const id of SCENARIO_IDS) {
        const own = one.entry.scenarios[id];
        const base = memory?.entry.scenarios[id];
        const divide = (/** @type {number | null | undefined} */ a, /** @type {number | null | undefined} */ b) =>
          a === null || a === undefined || !b ? null : a / b;
        summary.ratios[one.cluster.id][id] = { rps: divide(own?.rps, base?.rps), p99: divide(own?.p99Ms, base?.p99Ms) };
      }
    }
    summary.footprint.peakRssKb = memoryOf(redis.server.pid)?.hwmKb ?? null;
    summary.footprint.usedMemoryBytes = Number(await infoField(redis.port, 'memory', 'used_memory')) || null;
    summary.footprint.aofBytes = Number(await infoField(redis.port, 'persistence', 'aof_current_size')) || null;
  } catch (error) {
    summary.error = /** @type {Error} */ (error).message;
    log(`replicas: FAILED: ${summary.error}`);
  } finally {
    for (const one of live) for (const p of [...(one.proxy ? [one.proxy] : []), ...one.servers]) await stopServer(p);
    if (redis) await stopServer(redis.server);
    cleanup();
    process.removeListener('exit', cleanup);
  }
  return { runs: live.map((one) => ({ entry: one.entry, scenarios: CHOSEN })), summary };
}

/** @param {number | null | undefined} value @param {number} digits */
const fixed = (value, digits) => (value === null || value === undefined ? 'n/a' : value.toFixed(digits));
/** @param {number | null | undefined} kb */
const mbOf = (kb) => (kb === null || kb === undefined ? 'n/a' : `${Math.round(kb / 1024)} MB`);

/** The section's lines under the table. @param {ReplicaSummary} summary */
export function formatReplicas(summary) {
  if (summary.skipped) return [`replicas: skipped: ${summary.skipped}`];
  const lines = [
    `replicas (${summary.redisCommand}, redis-server ${summary.redisVersion}, started and deleted by the harness; each Redis target`,
    `  its own redis.prefix; bench/sandbox.yaml's config and key everywhere; every target primed with one create, so its pets live in`,
    `  Redis before the rounds; all four up at once, each scenario measured on each in turn, ${summary.rounds} round${summary.rounds === 1 ? '' : 's'}, the order reversed`,
    `  every other round, each row its median round; RSS: the target's sandbox processes together):`,
    `  proxy: bench/round-robin-proxy.mjs, node:net, round-robin PER CONNECTION (bytes copied, HTTP not parsed): the load generator's`,
    `  keep-alive connections are split evenly and each stays on one replica; "1 replica, proxy" is the proxy's own cost`,
  ];
  if (summary.error) lines.push(`  FAILED: ${summary.error}`);
  const labelOf = (/** @type {string} */ id) => summary.targets.find((t) => t.id === id)?.label ?? id;
  for (const [id, byScenario] of Object.entries(summary.ratios)) {
    const parts = Object.entries(byScenario).map(([scenario, r]) => `${scenario} ${fixed(r.rps, 2)} (p99 ${fixed(r.p99, 2)})`);
    lines.push(`  ${`${labelOf(id)} ÷ in memory:`.padEnd(38)} req/s ${parts.join(', ')}`);
  }
  /** @param {Record<string, number> | null | undefined} calls */
  const totalOf = (calls) => (calls ? Object.values(calls).reduce((a, b) => a + b, 0) : null);
  const counted = Object.entries(summary.redisCommands).filter(([, byScenario]) => Object.values(byScenario).some((c) => c));
  if (counted.length > 0) {
    lines.push(
      `  Redis commands per answer (INFO commandstats around each measured window; the Lua scripts' inner calls included, evalsha = one`,
      `  script run; median round): ${counted
        .map(
          ([id, byScenario]) =>
            `${labelOf(id)}: ${Object.entries(byScenario)
              .map(([scenario, calls]) => `${scenario} ${fixed(totalOf(calls), 1)}`)
              .join(', ')}`,
        )
        .join('; ')}`,
    );
    const [id, byScenario] = counted[0];
    for (const [scenario, calls] of Object.entries(byScenario)) {
      if (!calls) continue;
      const top = Object.entries(calls)
        .filter(([, n]) => n >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([command, n]) => `${command} ${n.toFixed(2)}`);
      lines.push(`    ${labelOf(id)}, ${scenario}: ${top.join(', ')}`);
    }
  }
  lines.push(`  cores kept busy during the measured window (1 = one core all the time; median round):`);
  for (const [id, byScenario] of Object.entries(summary.busyCores)) {
    const parts = Object.entries(byScenario).map(
      ([scenario, cores]) =>
        `${scenario} ${Object.entries(cores)
          .map(([name, n]) => `${name} ${fixed(n, 2)}`)
          .join(' + ')}`,
    );
    lines.push(`    ${labelOf(id)}: ${parts.join('; ')}`);
  }
  const f = summary.footprint;
  lines.push(
    `  Redis at the end: peak RSS ${mbOf(f.peakRssKb)}, used_memory ${f.usedMemoryBytes === null ? 'n/a' : `${(f.usedMemoryBytes / 2 ** 20).toFixed(1)} MB`}, AOF ${f.aofBytes === null ? 'n/a' : `${(f.aofBytes / 2 ** 20).toFixed(1)} MB`}; proxy peak RSS ${f.proxyPeakRssKb.map(mbOf).join(', ') || 'n/a'}`,
  );
  const cores = summary.cores;
  lines.push(
    cores < BUSY_PROCESSES
      ? `  this machine has ${cores} CPU core${cores === 1 ? '' : 's'}: under the two-replica load, two sandboxes, Redis, the proxy and autocannon (${BUSY_PROCESSES} busy processes) share them, so that row measures what coordination through Redis costs, NOT scale-out`
      : `  this machine has ${cores} CPU cores, at least one for each of the ${BUSY_PROCESSES} processes busy under the two-replica load (two sandboxes, Redis, the proxy, autocannon)`,
  );
  return lines;
}
