// `npm start`, and `npm run receive` (which passes `receive` on to the CLI): builds only when the
// build is not current (build.mjs; an up-to-date checkout starts without a compiler: a scan of src/
// takes milliseconds, `tsc -b` alone half a second to find nothing to do), then runs the bin (the
// bundled CLI) in this process. `npm ci` builds already (`prepare`); a start builds after an
// install without it (`--ignore-scripts`, or `--omit=dev` followed by an install of the dev
// dependencies) and after an edit. A build prints its steps and their durations, and the CLI's
// ready line then says how long the start took apart from the build.
// The build leaves no process behind (esbuild's service and the code cache's warm-up start are
// stopped before it returns): this process serves alone.
import { fileURLToPath } from 'node:url';
import { BUILT } from './build-state.mjs';
import { BuildFailed, buildIfNeeded } from './build.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
try {
  await buildIfNeeded();
} catch (error) {
  if (!(error instanceof BuildFailed)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
await import(`${root}${BUILT.bin}`);
