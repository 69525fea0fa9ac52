// The build, one definition for all who build: `npm run build`, `prepare` (which `npm ci` and
// `npm install` run once the packages are installed, so that a fresh checkout is ready to start)
// and `npm start` (start.mjs, when it finds the build not current). It compiles the TypeScript
// (tsc -b), writes the config's validator as code, bundles the CLI and makes the bundle's code
// cache, and prints each step with its duration, so that a build is never a silent wait.
//
// It builds only when the build is not current (build-state.mjs, a scan of some milliseconds):
// `npm test` after `npm ci` finds the build `prepare` made and goes straight on. `--force` builds
// anyway (as `npm run build` always did: the compiler still skips what it finds unchanged).
//
// Two installs leave no build: `npm ci --ignore-scripts` runs no `prepare`, and `npm ci --omit=dev`
// (or NODE_ENV=production) installs no compiler, so `prepare` says so and lets the install succeed.
// After either, `npm start` builds before its first start, given the dev dependencies (start.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { staleness, stampOf } from './build-state.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const TSC = `${root}node_modules/typescript/bin/tsc`;

/**
 * The User Timing measure a build leaves in its process: `npm start` builds and then starts the CLI
 * in the same process, and the CLI's ready line (src/cli/startup-report.ts, which names it too)
 * tells the build's time apart from the start's.
 */
export const BUILD_MEASURE = 'understudy build';

/**
 * A duration as the `understudy:` lines write it: milliseconds below a second, else seconds to a
 * tenth (the twin of src/cli/startup-report.ts's; test/unit/startup-report.test.ts holds them together).
 * @param {number} ms
 */
export const duration = (ms) => (Math.round(ms) < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** @param {string} line */
const say = (line) => process.stdout.write(`understudy: ${line}\n`);

/** A build that cannot go on; its message is the line to print. */
export class BuildFailed extends Error {}

/** @param {string} done what the step did, for its line @param {() => unknown} run */
async function step(done, run) {
  const started = performance.now();
  await run();
  say(`${done} in ${duration(performance.now() - started)}`);
}

/** @returns {string | undefined} why this checkout cannot build, when it cannot */
export function missingTools() {
  const missing = [TSC, `${root}node_modules/esbuild/package.json`].some((file) => !existsSync(file));
  return missing ? 'the dev dependencies (TypeScript, esbuild) are not installed' : undefined;
}

/**
 * Builds, saying why first, then each step with its duration and the whole build's.
 * @param {string} reason why the build is needed, for the first line
 * @returns {Promise<number>} how long the build took, in milliseconds
 */
export async function build(reason) {
  const started = performance.now();
  const cannot = missingTools();
  if (cannot) throw new BuildFailed(`understudy: cannot build (${reason}): ${cannot}; npm ci installs them`);
  say(`building (${reason})…`);
  await step('compiled TypeScript', () => {
    const tsc = spawnSync(process.execPath, [TSC, '-b', `${root}tsconfig.build.json`], { stdio: 'inherit' });
    if (tsc.status !== 0)
      throw new BuildFailed(`understudy: cannot build: the TypeScript compiler exited with ${tsc.status} (its errors are above)`);
  });
  // Imported only now: each reads what the step before it wrote (the config's schema, the compiled CLI).
  const { writeConfigValidator } = await import('./config-validator.mjs');
  await step('wrote the config validator', writeConfigValidator);
  const { bundleScript, writeCodeCache } = await import('./bundle.mjs');
  await step('bundled the CLI', bundleScript);
  await step('made its code cache', writeCodeCache);
  // tsc -b leaves its stamp alone when the sources changed only in time: mark the build as current.
  const now = new Date();
  utimesSync(stampOf(root), now, now);
  const ended = performance.now();
  performance.measure(BUILD_MEASURE, { start: started, end: ended });
  say(`built in ${duration(ended - started)}`);
  return ended - started;
}

/**
 * Builds when the build is not current (or always, with `force`).
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<number | undefined>} how long the build took, or undefined when there was none
 */
export async function buildIfNeeded({ force = false } = {}) {
  const reason = force ? 'asked to, with --force' : staleness(root);
  return reason === undefined ? undefined : build(reason);
}

/** `node scripts/build.mjs [--force]`: what `npm run build` and `prepare` run. */
async function main() {
  const force = process.argv.includes('--force');
  // `npm ci --omit=dev`: no compiler, and nothing to fail the install for (see the top of the file).
  const cannot = missingTools();
  if (cannot && process.env.npm_lifecycle_event === 'prepare') {
    say(`not building: ${cannot}; npm start builds once they are`);
    return;
  }
  try {
    if ((await buildIfNeeded({ force })) === undefined) say('the build is current (nothing changed since the last build)');
  } catch (error) {
    if (!(error instanceof BuildFailed)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
