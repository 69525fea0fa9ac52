// Cold starts, in rounds: Understudy as a user starts it again (its cache holding the parsed YAML,
// the validators and the seed earlier starts of the document wrote: decisions 0013, 0014),
// Understudy on a first start of the document (an empty cache directory of its own), and the
// ceiling, one after another in each round, each timed from spawn to its first 2xx answer, the
// server on its core. One start
// is at the mercy of the machine (it moved by 20 ms between two starts a second apart); the median
// of a few is not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServer, stopServer, timeToFirstAnswer } from './processes.mjs';
import { median } from './verdicts.mjs';

/**
 * @typedef {object} ColdStarts
 * @property {number} rounds
 * @property {number[]} againMs   Understudy, its cache written by an earlier start
 * @property {number[]} firstMs   Understudy, an empty cache: a first start of the document
 * @property {number[]} ceilingMs the ceiling (node:http answering 200)
 * @property {number | null} againMedianMs
 * @property {number | null} firstMedianMs
 * @property {number | null} ceilingMedianMs
 */

/**
 * @param {{ understudy: import('./targets.mjs').Target, ceiling: import('./targets.mjs').Target }} targets
 * @param {{ rounds: number, probe: { path: string, headers: Record<string, string> }, startTimeout: number }} how
 * @param {{ quiet: (what: string) => Promise<void>, log: (message: string) => void }} hooks
 * @returns {Promise<ColdStarts>}
 */
export async function coldStarts(targets, how, hooks) {
  /** @type {ColdStarts} */
  const result = {
    rounds: how.rounds,
    againMs: [],
    firstMs: [],
    ceilingMs: [],
    againMedianMs: null,
    firstMedianMs: null,
    ceilingMedianMs: null,
  };
  // One start before the rounds, so that "again" reads a cache whatever ran before the bench.
  await timeOne(targets.understudy, {}, how);
  const kinds = /** @type {const} */ (['againMs', 'firstMs', 'ceilingMs']);
  for (let round = 1; round <= how.rounds; round++) {
    for (const kind of round % 2 === 1 ? kinds : [...kinds].reverse()) {
      await hooks.quiet(`cold start ${round}`);
      if (kind === 'firstMs') {
        const cache = mkdtempSync(join(tmpdir(), 'understudy-bench-cache-'));
        try {
          result.firstMs.push(await timeOne(targets.understudy, { SANDBOX_CACHE_DIR: join(cache, 'empty') }, how));
        } finally {
          rmSync(cache, { recursive: true, force: true });
        }
      } else {
        result[kind].push(await timeOne(kind === 'againMs' ? targets.understudy : targets.ceiling, {}, how));
      }
    }
  }
  result.againMedianMs = median(result.againMs);
  result.firstMedianMs = median(result.firstMs);
  result.ceilingMedianMs = median(result.ceilingMs);
  const ms = (/** @type {number[]} */ values) => values.map((v) => Math.round(v)).join(', ');
  hooks.log(`cold starts: again ${ms(result.againMs)}; first ${ms(result.firstMs)}; ceiling ${ms(result.ceilingMs)} ms`);
  return result;
}

/**
 * One start, timed, then stopped.
 * @param {import('./targets.mjs').Target} target @param {Record<string, string>} env
 * @param {{ probe: { path: string, headers: Record<string, string> }, startTimeout: number }} how
 */
async function timeOne(target, env, how) {
  const port = await freePort();
  const server = startServer(`${target.id}-cold-start`, target.args(port), undefined, { pinned: true, env });
  try {
    return await timeToFirstAnswer(
      server,
      { url: `http://127.0.0.1:${port}${target.basePath}${how.probe.path}`, headers: how.probe.headers },
      how.startTimeout,
    );
  } finally {
    await stopServer(server);
  }
}

/** The report's lines. @param {ColdStarts} c */
export function formatColdStarts(c) {
  const ms = (/** @type {number | null} */ v) => (v === null ? 'n/a' : `${Math.round(v)} ms`);
  return [
    `cold starts, the median of ${c.rounds} rounds (spawn to first 2xx, the server on its core): Understudy ${ms(c.againMedianMs)}` +
      ` (its cache written by an earlier start); on a first start of the document (an empty cache) ${ms(c.firstMedianMs)};` +
      ` the ceiling ${ms(c.ceilingMedianMs)}`,
  ];
}
