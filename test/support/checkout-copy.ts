import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout these tests run in. */
export const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));

export interface CheckoutCopy {
  /** The copy's root. */
  readonly dir: string;
  /** Removes the copy (its links only, not what they point at). */
  readonly remove: () => void;
}

export interface CopyOptions {
  /** The checkout's build copied too (the doc tests), or none (a fresh clone's, which the fresh-copy test builds). */
  readonly dist: boolean;
}

/**
 * The files a fresh clone of this checkout would have, as they are on disk now: the tracked files
 * (`git ls-files`) in their working-tree versions, edits not yet committed included, and the new
 * files git would not ignore (a source file not yet added is part of what is tested, as on disk).
 */
function checkoutFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: CHECKOUT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // A tracked file deleted on disk is not in the working tree: not copied either.
  return [...new Set(listed.split('\0'))].filter(
    (file) => file !== '' && statSync(join(CHECKOUT, file), { throwIfNoEntry: false })?.isFile(),
  );
}

/**
 * A copy of this checkout in a temporary directory, for tests that run what a user runs in one
 * (`npm run prepare`, `npm start`, the commands of the README): what they write stays in the copy.
 *
 * Modification times are kept: the build's up-to-date check (scripts/build-state.mjs) compares
 * them, so a copy of a current build is current too, and a copy without one builds.
 *
 * node_modules is not installed again (a real `npm ci` needs the network and some 50 s): it is a
 * directory of links, one to each of the checkout's installed packages, which stand in for the same
 * packages installed from the same lockfile. Not one link to the whole directory: `npm ci` (which a
 * command under test may run) empties node_modules entry by entry, which through a single link would
 * empty the checkout's own; here it removes the copy's links. Its `.cache` is not linked: a fresh
 * install has none (the sandbox's parsed documents, validators and kept seed start cold, as after
 * `npm ci`), and the copy writes none into the checkout's.
 */
export function copyCheckout({ dist }: CopyOptions): CheckoutCopy {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-checkout-'));
  const remove = (): void => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    for (const file of checkoutFiles()) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(CHECKOUT, file), join(dir, file), { preserveTimestamps: true });
    }
    const modules = realpathSync(join(CHECKOUT, 'node_modules'));
    mkdirSync(join(dir, 'node_modules'));
    for (const entry of readdirSync(modules)) {
      if (entry !== '.cache') symlinkSync(join(modules, entry), join(dir, 'node_modules', entry));
    }
    // A copy, not a link, for the same reason as node_modules: a command that builds (npm ci's
    // prepare, npm run build, npm start after an edit) writes dist, and must write the copy's.
    if (dist) cpSync(join(CHECKOUT, 'dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: true });
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, remove };
}
