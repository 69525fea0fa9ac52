// `npm start`: builds only when a source file changed since the last build, then runs the bin (the
// bundled CLI) in this process. An up-to-date checkout starts without a compiler (a scan of
// src/ takes milliseconds; `tsc -b` alone takes half a second to find nothing to do).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const stamp = `${root}dist/.tsbuildinfo`;

/** The newest modification time among the files that the build reads. */
function newestSource() {
  let newest = 0;
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/config-validator.mjs', 'scripts/bundle.mjs'])
    newest = Math.max(newest, statSync(`${root}${file}`).mtimeMs);
  for (const entry of readdirSync(`${root}src`, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
  }
  return newest;
}

const program = `${root}dist/cli/bin.cjs`;
const codeCache = `${root}dist/bin/understudy.cjs.cache`;
const built = (() => {
  try {
    // All: a build stopped between the compiler and the bundle's code cache is not a build.
    return Math.min(statSync(stamp).mtimeMs, statSync(program).mtimeMs, statSync(codeCache).mtimeMs);
  } catch {
    return 0;
  }
})();
if (newestSource() > built) {
  const tsc = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b', `${root}tsconfig.build.json`], {
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  const { writeConfigValidator } = await import('./config-validator.mjs');
  await writeConfigValidator();
  const { bundle } = await import('./bundle.mjs');
  await bundle();
  // tsc -b leaves its stamp alone when the sources changed only in time: mark the build as current.
  const now = new Date();
  utimesSync(stamp, now, now);
}
await import(program);
