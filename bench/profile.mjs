#!/usr/bin/env node
// `npm run bench:profile [scenario ...]`: where the sandbox's time goes under load. For each scenario
// (default: list, get, create, invalid) it starts the sandbox as `npm run bench` does (bench/sandbox.yaml,
// the request log on) with `node --cpu-prof`, pinned like the bench (the server alone on the first core,
// wrk on the others), loads it with wrk for BENCH_PROFILE_SECONDS (default 8) after a second of warm-up,
// stops it, and draws the profile as a flame graph: bench/results/flame-<scenario>.svg. The profiler
// costs throughput of its own: the req/s printed here are for reading the graph, not for comparing.
// It runs the compiled modules (dist/cli/main.js), not the bundle the bin runs: the same code on
// the request path, but each function keeps its own file, so that the graph can tell our code
// from a dependency's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flameSvg } from './flame.mjs';
import { LOADGEN, pinHarness, runWrk, wrkRequests } from './loadgen.mjs';
import { ROOT } from './options.mjs';
import { freePort, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { BENCH_CONFIG, BENCH_KEY, sandboxArgs } from './targets.mjs';

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 8);
const CONNECTIONS = 32;
const wanted = process.argv.slice(2);
const chosen = wanted.length === 0 ? SCENARIOS.filter((s) => ['list', 'get', 'create', 'invalid'].includes(s.id)) : [];
for (const id of wanted) {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) {
    process.stderr.write(`bench:profile: no scenario ${id}; one of ${SCENARIOS.map((s) => s.id).join(', ')}\n`);
    process.exit(2);
  }
  chosen.push(scenario);
}
if (!LOADGEN.wrk) {
  process.stderr.write('bench:profile: needs wrk (apt-get install wrk)\n');
  process.exit(2);
}
if (LOADGEN.loadCpus) pinHarness(LOADGEN.loadCpus);

for (const scenario of chosen) {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-profile-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = startServer(
    `profile-${scenario.id}`,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...sandboxArgs(BENCH_CONFIG, [], join(ROOT, 'dist/cli/main.js'))(port)],
    undefined,
    {
      pinned: true,
    },
  );
  try {
    await timeToFirstAnswer(server, { url: `${origin}/v1/pets?limit=1`, headers: { authorization: `Bearer ${BENCH_KEY}` } }, 30);
    const requests = wrkRequests(scenario, '/v1');
    await runWrk({ origin, requests, each: false, seconds: 1, connections: CONNECTIONS });
    const run = await runWrk({ origin, requests, each: false, seconds: SECONDS, connections: CONNECTIONS });
    await stopServer(server);
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${scenario.id}: the sandbox wrote no profile`);
    const rps = Math.round(run.requests / run.seconds);
    const title = `understudy, ${scenario.label}: ${rps.toLocaleString('en-US')} req/s under the profiler (wrk, ${CONNECTIONS} connections, server pinned to one core)`;
    const out = join(ROOT, `bench/results/flame-${scenario.id}.svg`);
    writeFileSync(out, flameSvg(JSON.parse(readFileSync(join(dir, file), 'utf8')), { title }));
    process.stdout.write(`bench:profile: ${scenario.id}: ${rps} req/s profiled; flame graph in bench/results/flame-${scenario.id}.svg\n`);
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}
