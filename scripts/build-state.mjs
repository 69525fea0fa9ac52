// Whether a checkout's build is current, for the build (build.mjs: `npm run build`, `prepare`) and
// `npm start` (start.mjs): built means the compiler's stamp (dist/.tsbuildinfo) and the bundle's
// code cache, the build's last step, are both newer than every file the build reads, and the bin
// exists. The bin's own time does not count: the compiler rewrites only what changed, so bin.cjs
// keeps the time bin.cts was last compiled.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What a build leaves, relative to the package root: the bin, the bundle it runs, the bundle's code
 * cache, and faker's script, run on first use (its code cache is written with the bundle's).
 */
export const BUILT = {
  bin: 'dist/cli/bin.cjs',
  bundle: 'dist/bin/understudy.cjs',
  cache: 'dist/bin/understudy.cjs.cache',
  faker: 'dist/bin/faker.cjs',
};

/** The files besides src/ that the build reads. */
export const BUILD_INPUTS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'scripts/config-validator.mjs',
  'scripts/bundle.mjs',
  'scripts/build-state.mjs',
  'scripts/build.mjs',
];

/**
 * npm's record of what it installed (its hidden lockfile), which every `npm ci` and `npm install`
 * rewrites: the bundle holds the installed packages' code, so a build older than the install is
 * stale. A checkout installed by another client has none, and then only the files above count.
 */
export const INSTALLED = 'node_modules/.package-lock.json';

/** The compiler's stamp, which build.mjs touches after a build the compiler found nothing to emit for. */
export const stampOf = (/** @type {string} */ root) => join(root, 'dist/.tsbuildinfo');

/**
 * @param {string} root
 * @returns {{ file: string, at: number }} the file the build reads that changed last (relative to root), and when
 */
export function newestSource(root) {
  let newest = { file: '', at: 0 };
  const consider = (/** @type {string} */ path, /** @type {number} */ at) => {
    if (at > newest.at) newest = { file: relative(root, path), at };
  };
  for (const file of BUILD_INPUTS) consider(join(root, file), statSync(join(root, file)).mtimeMs);
  const installed = statSync(join(root, INSTALLED), { throwIfNoEntry: false });
  if (installed) consider(join(root, INSTALLED), installed.mtimeMs);
  for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    consider(path, statSync(path).mtimeMs);
  }
  return newest;
}

/** @param {string} root @returns {number} when the last whole build ended, or 0 when there is none */
export function builtAt(root) {
  try {
    statSync(join(root, BUILT.bin));
    // Both: a build stopped between the compiler and the bundle's code cache is not a build.
    return Math.min(statSync(stampOf(root)).mtimeMs, statSync(join(root, BUILT.cache)).mtimeMs);
  } catch {
    return 0;
  }
}

/**
 * Why the checkout needs a build, in words for the line that announces it, or undefined when its
 * build is current.
 * @param {string} root @returns {string | undefined}
 */
export function staleness(root) {
  const built = builtAt(root);
  if (built === 0) return existsSync(join(root, BUILT.bin)) ? 'the last build did not finish' : 'there is no build yet';
  const newest = newestSource(root);
  if (newest.at <= built) return undefined;
  return newest.file === INSTALLED ? 'the installed packages changed since the last build' : `${newest.file} changed since the last build`;
}

/** @param {string} root @returns {boolean} */
export const needsBuild = (root) => staleness(root) !== undefined;

/**
 * The V8 flags of the bin's shebang (`#!/usr/bin/env -S node FLAGS`), read from the built bin: the
 * cache is made under them, since V8 takes a cache only under the flags it was made with.
 * @param {string} root @returns {string[]}
 */
export function binFlags(root) {
  const first = readFileSync(join(root, BUILT.bin), 'utf8').split('\n', 1)[0] ?? '';
  const shebang = /^#!\/usr\/bin\/env -S node((?: --?[\w-]+(?:=\S+)?)*)$/.exec(first);
  if (!shebang) throw new Error(`${BUILT.bin}: a shebang of the form "#!/usr/bin/env -S node FLAGS" expected, not "${first}"`);
  return shebang[1].split(' ').filter((flag) => flag !== '');
}
