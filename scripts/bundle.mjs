// Bundles the built CLI (dist/cli/main.js) into one CommonJS script, dist/bin/understudy.cjs, and
// makes its V8 code cache, dist/bin/understudy.cjs.cache: what the `understudy` bin (dist/cli/bin.cjs)
// runs. Node 20 loads an ES module graph file by file (resolve, read, compile, link each of some
// 240 modules) and has no compile cache; one script, with the functions a start runs already
// compiled, reaches its first answer in under half the time. Faker, which a start with a kept seed
// never runs, is a script of its own beside it (dist/bin/faker.cjs, with its code cache), run on
// first use. What only some configurations load (Redis, Swagger 2.0 conversion, external `$ref`s,
// XML) stays a package of its own in node_modules, required on first use (see LOADED_ON_USE). Run by
// the build (build.mjs: `npm run build`, `prepare`, and `npm start` when the build is not current),
// which times the bundle and the code cache as two steps; it can be run alone too.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { build, stop } from 'esbuild';
import { loadEnglishFaker } from '../dist/mock/english-faker.js';
import { fakerGenerators } from '../dist/mock/seeded-faker.js';
import { packageVersion } from '../dist/openapi/cache-files.js';
import { BUILT, binFlags } from './build-state.mjs';
import { REQUIRE_PREAMBLE } from './config-validator.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${root}${BUILT.bundle}`;
const BIN = `${root}${BUILT.bin}`;
const FAKER = `${root}${BUILT.faker}`;

/** CommonJS's own wrapper, written by the build: the bin compiles the file as it is (cached-script.cts). */
const WRAPPER = { banner: '(function (exports, require, module, __filename, __dirname) {', footer: '})' };

/**
 * Packages only some configurations import (dynamically): left to Node's own loader (the MCP SDK:
 * only `understudy mcp` and the first request to /__sandbox/mcp load it). Not chokidar:
 * a terminal's `npm start` watches by default, and loading it from node_modules as an ES module
 * kept the first answer waiting about 30 ms; bundled, its code is in the bundle's cache too.
 */
const LOADED_ON_USE = ['ioredis', 'fast-xml-parser', 'swagger2openapi', '@apidevtools/json-schema-ref-parser', '@modelcontextprotocol/sdk'];

/**
 * The config loader imports its generated validator (scripts/config-validator.mjs) through a
 * variable, so that a run from the sources without one falls back to compiling the schema; the
 * bundle has it, so the import is made static for esbuild to include it. The validator's own
 * requires (Ajv's runtime helpers, ajv-formats' formats) are made the bundle's too: without the
 * `createRequire` line they are plain requires esbuild resolves, not Node's loader looking for a
 * second copy in node_modules at every start.
 * @type {import('esbuild').Plugin}
 */
const generatedValidator = {
  name: 'generated-config-validator',
  setup(on) {
    on.onLoad({ filter: /[\\/]dist[\\/]config[\\/]load-config\.js$/ }, ({ path }) => {
      const code = readFileSync(path, 'utf8');
      if (!code.includes('import(GENERATED)')) throw new Error(`${path}: no import(GENERATED) to make static`);
      return { contents: code.replace('import(GENERATED)', "import('./config-validator.js')"), loader: 'js' };
    });
    on.onLoad({ filter: /[\\/]dist[\\/]config[\\/]config-validator\.js$/ }, ({ path }) => {
      const code = readFileSync(path, 'utf8');
      if (!code.startsWith(REQUIRE_PREAMBLE)) throw new Error(`${path}: it does not start with the createRequire line to drop`);
      return { contents: code.slice(REQUIRE_PREAMBLE.length), loader: 'js' };
    });
  },
};

/**
 * Requires of Node built-ins that only paths the CLI does not take at start need, moved into those
 * paths, so that a start does not load them (about 10 ms, measured): pino's worker-thread transports
 * (thread-stream, which loads `worker_threads` and `assert`), pino's `isMainThread` (asked only of an
 * asynchronous destination pino makes; the CLI hands pino its own) and sonic-boom's one `assert`,
 * made when a destination closes. Each rewrite must find its text exactly once: a dependency that
 * changed fails the build.
 * @type {{ file: string, rewrites: [from: string, to: string][] }[]} file: its path under node_modules
 */
const DEFERRED_REQUIRES = [
  {
    file: 'pino/lib/transport.js',
    rewrites: [
      [
        "const ThreadStream = require('thread-stream')",
        "const ThreadStream = function (options) { return new (require('thread-stream'))(options) }",
      ],
    ],
  },
  {
    file: 'pino/lib/tools.js',
    rewrites: [
      ["const { isMainThread } = require('worker_threads')", "const isMainThread = () => require('worker_threads').isMainThread"],
      ['if (!opts.sync && isMainThread) {', 'if (!opts.sync && isMainThread()) {'],
    ],
  },
  {
    file: 'sonic-boom/index.js',
    rewrites: [["const assert = require('assert')", "const assert = (...args) => require('assert')(...args)"]],
  },
];

/**
 * Faker is not in the bundle: the module that loads it (src/mock/english-faker.ts, which asks Node's
 * loader) is replaced by one that runs faker's own script with its code cache, beside the bundle.
 * @type {import('esbuild').Plugin}
 */
const fakerOnFirstUse = {
  name: 'faker-on-first-use',
  setup(on) {
    on.onLoad({ filter: /[\\/]dist[\\/]mock[\\/]english-faker\.js$/ }, () => ({
      contents: [
        "import { join } from 'node:path';",
        "import { runCached } from '../cli/cached-script.cjs';",
        "export const loadEnglishFaker = () => runCached(join(__dirname, 'faker.cjs'), 'faker.cjs').faker;",
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** @type {import('esbuild').Plugin} */
const deferredRequires = {
  name: 'deferred-requires',
  setup(on) {
    for (const { file, rewrites } of DEFERRED_REQUIRES) {
      const pattern = ['node_modules', ...file.split('/')].map((part) => part.replaceAll('.', '\\.')).join('[\\\\/]');
      const filter = new RegExp(`[\\\\/]${pattern}$`);
      on.onLoad({ filter }, ({ path }) => {
        let code = readFileSync(path, 'utf8');
        for (const [from, to] of rewrites) {
          if (code.split(from).length !== 2) throw new Error(`${path}: "${from}" expected once`);
          code = code.replace(from, to);
        }
        return { contents: code, loader: 'js' };
      });
    }
  },
};

/** Bundled packages whose versions name cache entries (packageVersion in src/openapi/cache-files.ts). */
const VERSIONED = ['ajv', 'ajv-formats', 'js-yaml'];

/** The versions of VERSIONED as installed, which esbuild bundles: the bundle knows them without looking. */
export function bundledVersions() {
  return Object.fromEntries(
    VERSIONED.map((name) => {
      const version = packageVersion(name);
      if (version === undefined) throw new Error(`the version of ${name} cannot be read`);
      return [name, version];
    }),
  );
}

/**
 * What the bundle's UNDERSTUDY_BUILD (src/openapi/cache-files.ts) holds while it is built: as long
 * as a SHA-256 in hex, so that writing the digest over it moves no position the source map names.
 */
const BUILD_PLACEHOLDER = 'understudy build digest, written once the bundle is built'.padEnd(64, '.');

/**
 * The build's digest: the SHA-256 of the bundle (with the placeholder) and faker's script, written
 * over the placeholder. It names the cache entries our own code makes (a kept seed), so that
 * another build never reads them.
 */
function writeBuildDigest() {
  const bundled = readFileSync(OUT, 'latin1');
  const digest = createHash('sha256').update(bundled).update(readFileSync(FAKER)).digest('hex');
  const parts = bundled.split(JSON.stringify(BUILD_PLACEHOLDER));
  if (parts.length < 2) throw new Error(`${BUILT.bundle}: the build digest's placeholder is missing`);
  writeFileSync(OUT, parts.join(JSON.stringify(digest)), 'latin1');
}

/**
 * Writes dist/bin/understudy.cjs and dist/bin/faker.cjs. esbuild's API runs a service, a child
 * process it keeps for the next call; it is stopped here, once both scripts are written (or the
 * bundling failed), since `npm start` goes on to serve in this process after building and would
 * otherwise keep that child for as long as it serves.
 */
export async function bundleScript() {
  try {
    await bundleScripts();
  } finally {
    await stop();
  }
}

async function bundleScripts() {
  rmSync(`${root}dist/bin`, { recursive: true, force: true });
  await build({
    entryPoints: [`${root}dist/cli/main.js`],
    outfile: OUT,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: LOADED_ON_USE,
    // A script run through node:vm has no dynamic import() without --experimental-vm-modules: the
    // packages loaded on use are required (Node 20.19 and later require ES modules too).
    supported: { 'dynamic-import': false },
    define: {
      'import.meta.url': '__bundleUrl',
      UNDERSTUDY_BUNDLED_VERSIONS: JSON.stringify(JSON.stringify(bundledVersions())),
      UNDERSTUDY_FAKER_GENERATORS: JSON.stringify(JSON.stringify(fakerGenerators(loadEnglishFaker()))),
      UNDERSTUDY_BUILD: JSON.stringify(BUILD_PLACEHOLDER),
    },
    // The wrapper on the first line, so the code's line numbers stay the file's.
    banner: { js: `${WRAPPER.banner}var __bundleUrl = require("node:url").pathToFileURL(__filename).href;` },
    footer: { js: WRAPPER.footer },
    // The bin reads the file as Latin-1 (ASCII is the same text in both): anything else is escaped.
    charset: 'ascii',
    // Whitespace and syntax only: names stay readable in a stack trace.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    plugins: [generatedValidator, fakerOnFirstUse, deferredRequires],
    logLevel: 'warning',
  });
  // Faker's English locale, as the bundle would have held it.
  await build({
    stdin: { contents: "module.exports = require('@faker-js/faker/locale/en');", resolveDir: root, sourcefile: 'faker.cjs' },
    outfile: FAKER,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    banner: { js: WRAPPER.banner },
    footer: { js: WRAPPER.footer },
    charset: 'ascii',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
  for (const [file, out] of [
    [BUILT.bundle, OUT],
    [BUILT.faker, FAKER],
  ]) {
    const at = readFileSync(out).findIndex((byte) => byte > 0x7f);
    if (at !== -1) throw new Error(`${file}: a byte past ASCII at ${at}: the bin reads it as Latin-1`);
  }
  writeBuildDigest();
}

/** Answers of the Pet Store the code cache should have compiled: a start and each common kind of answer. */
const WARM_UP = [
  { method: 'GET', path: '/pets?status=available&limit=20', key: 'demo-enterprise', expect: 200 },
  { method: 'GET', path: '/pets/1', key: 'demo-enterprise', expect: 200 },
  { method: 'POST', path: '/pets', key: 'demo-enterprise', body: '{"name":"Rex","categoryId":1,"status":"available"}', expect: 201 },
  { method: 'POST', path: '/pets', key: 'demo-enterprise', body: '{"name":5,"status":"lost"}', expect: 400 },
  { method: 'GET', path: '/pets?status=available&limit=20', expect: 401 },
  { method: 'GET', path: '/nowhere', key: 'demo-enterprise', expect: 404 },
];

/** @param {string} url @param {{ method: string, key?: string, body?: string }} how @returns {Promise<number>} */
const send = (url, how) =>
  new Promise((resolve, reject) => {
    const headers = {
      accept: 'application/json',
      ...(how.key && { authorization: `Bearer ${how.key}` }),
      ...(how.body && { 'content-type': 'application/json' }),
    };
    const req = request(url, { method: how.method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(how.body);
  });

/** The environment without the CLI's own settings (SANDBOX_*, PORT, HOST). @param {NodeJS.ProcessEnv} env */
export const withoutSandboxSettings = (env) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('SANDBOX_') && name !== 'PORT' && name !== 'HOST'));

/**
 * Writes the code caches of the bundle and of faker's script: the bin, started as its shebang starts
 * it, on the Pet Store, answers WARM_UP and stops; at exit each script writes what it compiled (the
 * warm-up waits for that exit: no start of the bin outlives the build). Its cache directory is a
 * fresh one, so that it reads, compiles and seeds everything (faker included) whatever earlier
 * starts kept: the cache then holds what a document's first start runs too, and a start again,
 * which reads what is kept, was measured no slower for it (16 interleaved rounds).
 */
export async function writeCodeCache() {
  const cacheDir = mkdtempSync(join(tmpdir(), 'understudy-warm-up-'));
  try {
    await warmUp(cacheDir);
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  for (const script of [BUILT.bundle, BUILT.faker]) {
    if (!existsSync(`${root}${script}.cache`)) throw new Error(`the warm-up wrote no code cache for ${script}`);
  }
}

/** @param {string} cacheDir */
async function warmUp(cacheDir) {
  // Watching, as a start in a terminal does: the watcher's code is compiled into the cache too.
  const child = spawn(process.execPath, [...binFlags(root), BIN, '--port', '0', '--watch'], {
    cwd: root,
    // The Pet Store with its defaults, whatever the environment that runs the build configures
    // (a SANDBOX_DATA of the user's must not receive the warm-up's pet).
    env: { ...withoutSandboxSettings(process.env), UNDERSTUDY_WRITE_CODE_CACHE: '1', SANDBOX_CACHE_DIR: cacheDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const ready = /serving .* at (http:\/\/\S+)/.exec(output);
      if (ready && output.includes('understudy: watching ')) resolve(ready[1]);
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`the bundle exited with ${code} before it served:\n${output}`)));
  });
  try {
    for (const how of WARM_UP) {
      const status = await send(`${base}${how.path}`, how);
      if (status !== how.expect)
        throw new Error(`the bundle answered ${how.method} ${how.path} with ${status}, not ${how.expect}:\n${output}`);
    }
  } finally {
    // Also when a warm-up request failed: the start is stopped and waited for before the error
    // goes on, so that a failed build leaves no server behind either.
    child.kill('SIGTERM');
    await exited;
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the bundle exited with ${code} after the warm-up:\n${output}`);
}

/** The bundle, then its code cache. */
export async function bundle() {
  await bundleScript();
  await writeCodeCache();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
