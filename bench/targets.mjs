// What the bench runs: each target is a server started as `node <args>` on a port.
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { binFlags } from '../scripts/build-state.mjs';
import { ROOT, builtCli } from './options.mjs';

const require = createRequire(import.meta.url);

export const PETSTORE = join(ROOT, 'openapi/petstore.yaml');
/** GitHub's REST API description (~1,200 operations, 13 MB of JSON) from @octokit/openapi. */
export const GITHUB = require.resolve('@octokit/openapi/generated/api.github.com.json');
export const GITHUB_VERSION = /** @type {{ version: string }} */ (require('@octokit/openapi/package.json')).version;
export const PRISM_VERSION = /** @type {{ version: string }} */ (require('@stoplight/prism-cli/package.json')).version;

const SANDBOX_CLI = join(ROOT, 'dist/cli/bin.cjs');
const PRISM_CLI = require.resolve('@stoplight/prism-cli');
const CEILING = join(ROOT, 'bench/ceiling-server.mjs');
export const BENCH_CONFIG = join(ROOT, 'bench/sandbox.yaml');
const BENCH_CONFIG_SILENT = join(ROOT, 'bench/sandbox-silent.yaml');
const BENCH_CONFIG_MINIMAL = join(ROOT, 'bench/sandbox-minimal.yaml');
const BENCH_CONFIG_NO_JOURNAL = join(ROOT, 'bench/sandbox-no-journal.yaml');
const BENCH_CONFIG_NO_WORKSPACES = join(ROOT, 'bench/sandbox-no-workspaces.yaml');
const BENCH_CONFIG_ALL = join(ROOT, 'bench/sandbox-all.yaml');
/** The admin token of the capability targets that have one: the admin API compiled, rules looked up (none are set). */
const ADMIN_TOKEN = 'bench-admin-token';

/** The key on the bench plan (bench/sandbox.yaml). Prism takes any bearer token. */
export const BENCH_KEY = 'bench-unlimited';

/**
 * @typedef {object} Target
 * @property {string} id         short name, used in BENCH_TARGETS and the JSON
 * @property {string} label      name in the table
 * @property {string} command    how a user would start it (for the report)
 * @property {string} basePath   prefix of the API's paths on this server
 * @property {boolean} constant  answers 200 to every request (the ceiling): every status but 200 is an error
 * @property {(port: number) => string[]} args  arguments to `node`
 */

/**
 * Understudy on the Pet Store, every feature on, under its bin's own V8 flags (`cli`'s checkout's).
 * @param {string} config @param {string[]} extra @returns {(port: number) => string[]}
 */
export const sandboxArgs =
  (config, extra = [], cli = SANDBOX_CLI) =>
  (port) => [...binFlags(join(cli, '../../..')), cli, '--config', config, '--port', String(port), ...extra];
/** @param {string} document @param {string[]} extra @returns {(port: number) => string[]} */
const prismArgs =
  (document, extra = []) =>
  (port) => [PRISM_CLI, 'mock', ...extra, '-p', String(port), document];

/** @type {Target[]} The comparison targets, in table order. */
export const TARGETS = [
  {
    id: 'understudy',
    label: 'understudy',
    command: 'understudy --config bench/sandbox.yaml (log: info)',
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG),
  },
  {
    id: 'understudy-silent',
    label: 'understudy, log silent',
    command: 'understudy --config bench/sandbox-silent.yaml (log: silent)',
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG_SILENT),
  },
  {
    id: 'prism',
    label: 'prism mock',
    command: 'prism mock openapi/petstore.yaml',
    // Prism routes on the paths alone: the document's server URL is templated, so no /v1.
    basePath: '',
    constant: false,
    args: prismArgs(PETSTORE),
  },
  {
    id: 'prism-fast',
    label: 'prism mock -v silent',
    command: 'prism mock -v silent openapi/petstore.yaml',
    basePath: '',
    constant: false,
    args: prismArgs(PETSTORE, ['-v', 'silent']),
  },
  {
    id: 'ceiling',
    label: 'ceiling (node:http)',
    command: 'node bench/ceiling-server.mjs',
    basePath: '/v1',
    constant: true,
    args: (port) => [CEILING, '--port', String(port)],
  },
];

/**
 * The capabilities comparison (run in interleaved rounds, interleave.mjs), six targets up at once:
 * every capability added since the first wave on and unused by the load (`understudy-all`), then
 * each turned off in turn, then all of them off (`understudy-minimal`). Each off ÷ all on is what
 * that capability costs when nobody uses it. Redis is in none of them: a sandbox given `--redis`
 * keeps its state there, which is using it (the replica rows measure that). All with the request
 * log at info, as `understudy`.
 * @type {Target[]}
 */
export const CAPABILITY_TARGETS = [
  capabilityTarget(
    'understudy-all',
    'all on',
    BENCH_CONFIG_ALL,
    ['--watch', '--admin-token', ADMIN_TOKEN],
    'the admin API and rules, the journal of 1000 recording, --watch, workspace team-a',
  ),
  capabilityTarget(
    'understudy-no-journal',
    'journal off',
    BENCH_CONFIG_NO_JOURNAL,
    ['--watch', '--admin-token', ADMIN_TOKEN],
    'all on but journalSize 0',
  ),
  capabilityTarget(
    'understudy-no-admin',
    'admin API off',
    BENCH_CONFIG_ALL,
    ['--watch'],
    'all on but no admin token: no admin API, no rules, and no journal, which nothing could read',
  ),
  capabilityTarget(
    'understudy-no-watch',
    'hot reload off',
    BENCH_CONFIG_ALL,
    ['--no-watch', '--admin-token', ADMIN_TOKEN],
    'all on but --no-watch',
  ),
  capabilityTarget(
    'understudy-no-workspaces',
    'workspaces off',
    BENCH_CONFIG_NO_WORKSPACES,
    ['--watch', '--admin-token', ADMIN_TOKEN],
    'all on but no workspace besides the default',
  ),
  capabilityTarget(
    'understudy-minimal',
    'all off',
    BENCH_CONFIG_MINIMAL,
    ['--no-watch'],
    'journalSize 0, no admin token, --no-watch, no workspace besides the default',
  ),
];

/**
 * One target of the capabilities comparison: the sandbox on `config` with `flags`.
 * @param {string} id @param {string} state @param {string} config @param {string[]} flags @param {string} note
 * @returns {Target}
 */
function capabilityTarget(id, state, config, flags, note) {
  return {
    id,
    label: `understudy, ${state}`,
    command: `understudy --config ${relative(ROOT, config)} ${flags.join(' ')} (${note})`,
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(config, flags),
  };
}

/**
 * Another build of understudy (BENCH_BASELINE: a checkout with `dist/`), with this checkout's
 * bench config, measured in the same run: a change's cost, before against after, on the same
 * machine under the same conditions. @param {string} dir @param {string} revision @returns {Target}
 */
export function baselineTarget(dir, revision) {
  return {
    id: 'understudy-baseline',
    label: `understudy at ${revision}`,
    command: `understudy at ${revision} --config bench/sandbox.yaml (log: info)`,
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG, [], builtCli(dir) ?? join(dir, 'dist/cli/bin.cjs')),
  };
}

/** The baselines every figure is divided by. */
export const BASELINES = /** @type {const} */ (['prism-fast', 'ceiling']);

/** Understudy on the Pet Store with `pets` seeded `count` times (bench/fixtures/). @param {number} count @param {string} fixtures @returns {Target} */
export function storeSizeTarget(count, fixtures) {
  return {
    id: `understudy-pets-${count}`,
    label: `understudy, ${count.toLocaleString('en-US')} pets`,
    command: `understudy --config bench/sandbox.yaml --fixtures ${fixtures}`,
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG, ['--fixtures', join(ROOT, fixtures)]),
  };
}

/**
 * The document-size targets: start-up only, Pet Store against GitHub's description.
 * `probe` is a GET that must answer 2xx once the server is up.
 * @type {(Target & { document: string, probe: string })[]}
 */
export const DOCUMENT_TARGETS = [
  {
    id: 'understudy-doc-petstore',
    label: 'understudy, Pet Store doc',
    command: 'understudy --config bench/sandbox.yaml',
    document: 'petstore',
    probe: '/pets?limit=1',
    basePath: '/v1',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG),
  },
  {
    id: 'prism-doc-petstore',
    label: 'prism mock, Pet Store doc',
    command: 'prism mock openapi/petstore.yaml',
    document: 'petstore',
    probe: '/pets?limit=1',
    basePath: '',
    constant: false,
    args: prismArgs(PETSTORE),
  },
  {
    id: 'understudy-doc-github',
    label: 'understudy, GitHub doc',
    command: `understudy --config bench/sandbox.yaml --spec ${GITHUB.slice(ROOT.length)}`,
    document: 'github',
    probe: '/',
    basePath: '',
    constant: false,
    args: sandboxArgs(BENCH_CONFIG, ['--spec', GITHUB]),
  },
  {
    id: 'prism-doc-github',
    label: 'prism mock, GitHub doc',
    command: `prism mock ${GITHUB.slice(ROOT.length)}`,
    document: 'github',
    probe: '/',
    basePath: '',
    constant: false,
    args: prismArgs(GITHUB),
  },
];
