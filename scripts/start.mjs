// `npm start`: builds only when a source file changed since the last build, then runs the bin (the
// bundled CLI) in this process. An up-to-date checkout starts without a compiler (a scan of
// src/ takes milliseconds; `tsc -b` alone takes half a second to find nothing to do).
import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILT, needsBuild, stampOf } from './build-state.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const stamp = stampOf(root);
const program = `${root}${BUILT.bin}`;
if (needsBuild(root)) {
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
