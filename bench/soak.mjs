// The soak: a mixed workload against the built sandbox for a while, reporting zero-5xx, the RSS
// slope and the event-loop delay. `npm run soak` (SOAK_SECONDS, default 120; SOAK_CONCURRENCY,
// default 16; SOAK_REPORT, where the JSON goes, default bench/results/soak-latest.json). `npm test`
// runs a 4-second version of it. Loopback only.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binFlags } from '../scripts/build-state.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const ADMIN = 'soak-admin-token';
const KEY = 'bench-unlimited';
/** The store is reset this often, so the slope measures leaks, not the data the creates add. */
const RESET_EVERY_MS = 10_000;

const server = spawn(
  process.execPath,
  [
    ...binFlags(ROOT),
    join(ROOT, 'dist/cli/bin.cjs'),
    '--port',
    '0',
    '--config',
    join(ROOT, 'bench/sandbox-silent.yaml'),
    '--admin-token',
    ADMIN,
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
process.once('exit', () => server.kill('SIGKILL'));
const base = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const ready = /at (http:\/\/\S+)/.exec(out);
    if (ready) resolve(ready[1]);
  });
  server.once('exit', (code) => reject(new Error(`the sandbox exited with ${code} before it was ready`)));
});
const { port } = new URL(base);
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY + 2 });

/** One request; resolves with the status, or 0 for a socket error. */
function send(method, path, headers = {}, body) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, agent, method, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const auth = { Authorization: `Bearer ${KEY}` };
const json = { ...auth, 'Content-Type': 'application/json' };
const MIX = [
  () => send('GET', '/v1/pets?status=available&limit=20', auth),
  () => send('POST', '/v1/pets', json, JSON.stringify({ name: 'Soak', categoryId: 3, status: 'pending' })),
  () => send('POST', '/v1/pets', json, JSON.stringify({ name: 7 })),
  () => send('GET', '/v1/pets'),
  () => send('GET', '/v1/pets/1', auth),
  () => send('GET', '/v1/unknown', auth),
  () => send('GET', `/v1/pets?limit=100&after=${Math.floor(Math.random() * 100)}`, auth),
];

async function metrics() {
  const res = await fetch(`${base.replace(/\/v1$/, '')}/__sandbox/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  return res.json();
}

const counts = { total: 0, '2xx': 0, '4xx': 0, '5xx': 0, socket: 0 };
const samples = [];
const started = Date.now();
const deadline = started + SECONDS * 1000;
let lastReset = started;
const sampler = setInterval(async () => {
  const m = await metrics();
  samples.push({ t: (Date.now() - started) / 1000, rss: m.rssBytes });
  if (Date.now() - lastReset >= RESET_EVERY_MS) {
    lastReset = Date.now();
    await fetch(`${base.replace(/\/v1$/, '')}/__sandbox/reset`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` } });
  }
}, 1000);

await Promise.all(
  Array.from({ length: CONCURRENCY }, async (_, worker) => {
    for (let i = worker; Date.now() < deadline; i++) {
      const status = await MIX[i % MIX.length]();
      counts.total++;
      if (status === 0) counts.socket++;
      else counts[`${String(status)[0]}xx`] = (counts[`${String(status)[0]}xx`] ?? 0) + 1;
    }
  }),
);
clearInterval(sampler);
const final = await metrics();
server.kill('SIGTERM');

// Least-squares slope of RSS over time, past the first fifth (warm-up: JIT, caches, pools).
const steady = samples.filter((s) => s.t >= SECONDS / 5);
const slope = (() => {
  if (steady.length < 2) return 0;
  const n = steady.length;
  const mt = steady.reduce((a, s) => a + s.t, 0) / n;
  const mr = steady.reduce((a, s) => a + s.rss, 0) / n;
  const num = steady.reduce((a, s) => a + (s.t - mt) * (s.rss - mr), 0);
  const den = steady.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  return den === 0 ? 0 : num / den;
})();
const report = {
  seconds: SECONDS,
  concurrency: CONCURRENCY,
  requests: counts,
  requestsPerSecond: Math.round(counts.total / SECONDS),
  rssMB: {
    first: samples[0] ? samples[0].rss / 2 ** 20 : null,
    last: final.rssBytes / 2 ** 20,
    max: Math.max(...samples.map((s) => s.rss)) / 2 ** 20,
  },
  rssSlopeMBPerMinute: (slope * 60) / 2 ** 20,
  eventLoopDelayMs: final.eventLoopDelayMs,
};
const reportFile = process.env.SOAK_REPORT ?? join(ROOT, 'bench/results/soak-latest.json');
mkdirSync(dirname(reportFile), { recursive: true });
writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.exitCode = counts['5xx'] === 0 && counts.socket === 0 ? 0 : 1;
