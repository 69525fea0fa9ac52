import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * vitest globalSetup: every test must remove what it writes to the temp dir.
 *
 * Before the run, the OS temp dir is swapped for a fresh one (`understudy-run-*`) by setting TMPDIR,
 * which `os.tmpdir()` reads on every call and which the test workers, the CLIs they spawn, Spectral
 * and the soak script all inherit. After the run that directory must be empty: anything left in it
 * is a leak, whoever wrote it (a test, the server, a child process). As a second net, new
 * `understudy-*` entries in the real temp dir (from code that ignores TMPDIR) count too. (Vitest's
 * own cache dir, `<tmp>/<random>/ssr`, is made before global setup and removed by vitest on close.)
 *
 * A leak is printed and fails the run through process.exitCode (vitest reports an error thrown from
 * a global teardown but still exits 0). The run's own directory is then removed, leaks and all, so
 * the guard leaves nothing behind either.
 */
export default function setup(): () => void {
  const realTmp = tmpdir();
  const ours = (name: string): boolean => name.startsWith('understudy-');
  const before = new Set(readdirSync(realTmp).filter(ours));
  const runTmp = mkdtempSync(join(realTmp, 'understudy-run-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = runTmp;

  return () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    const leaks = [
      ...readdirSync(runTmp).map((name) => `${describe(join(runTmp, name))}  (in this run's TMPDIR)`),
      ...readdirSync(realTmp)
        // Another run's `understudy-run-*` (two vitest runs at once, e.g. watch mode beside `npm test`) is not a leak of this one.
        .filter((name) => ours(name) && !before.has(name) && !name.startsWith('understudy-run-'))
        .map((name) => `${join(realTmp, name)}  (in the real temp dir: written by code that ignores TMPDIR)`),
    ];
    rmSync(runTmp, { recursive: true, force: true });
    if (leaks.length === 0) return;
    console.error(
      `\n✗ temp-guard: the run left ${leaks.length} entr${leaks.length === 1 ? 'y' : 'ies'} in the temp dir; every test must remove what it writes ` +
        `(onTestFinished/afterEach + rm(dir, { recursive: true, force: true })):\n` +
        leaks.map((leak) => `    ${leak}`).join('\n') +
        '\n',
    );
    process.exitCode = 1;
  };
}

/** `name`, or for a directory `name/ (first, second, …)` so that the report shows who wrote it. */
function describe(path: string): string {
  const name = basename(path);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return name;
  const inside = readdirSync(path);
  return `${name}/ (${inside.slice(0, 4).join(', ')}${inside.length > 4 ? ', …' : ''})`;
}
