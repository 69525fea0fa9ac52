import { execFileSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
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
 * A node_modules of links to the packages in `from`: a directory of the copy's own, holding a link
 * per package, so that what npm writes or removes in the copy's node_modules (a command under test
 * may run `npm ci`, which empties node_modules entry by entry, or `npm install`) writes or removes
 * the copy's entries, links included, never the checkout's packages. So not one link to the whole
 * directory, nor to a directory npm adds to (a scope's, .bin, whose links are made again, relative
 * as npm makes them); npm's record of the install is copied, not linked, as npm rewrites it. Its
 * `.cache` is not linked: a fresh install has none (the sandbox's parsed documents, validators and
 * kept seed start cold, as after `npm ci`), and the copy writes none into the checkout's.
 */
function linkPackages(from: string, to: string): void {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.name === '.cache') continue;
    if (entry.name === '.package-lock.json') {
      cpSync(source, target, { preserveTimestamps: true });
    } else if (entry.name === '.bin' && entry.isDirectory()) {
      mkdirSync(target);
      for (const bin of readdirSync(source)) {
        const link = join(source, bin);
        symlinkSync(lstatSync(link).isSymbolicLink() ? readlinkSync(link) : link, join(target, bin));
      }
    } else if (entry.name.startsWith('@') && entry.isDirectory()) {
      mkdirSync(target);
      for (const name of readdirSync(source)) symlinkSync(join(source, name), join(target, name));
    } else {
      symlinkSync(source, target);
    }
  }
}

/**
 * A copy of this checkout in a temporary directory, for tests that run what a user runs in one
 * (`npm run prepare`, `npm start`, the commands of the README): what they write stays in the copy.
 *
 * Modification times are kept: the build's up-to-date check (scripts/build-state.mjs) compares
 * them, so a copy of a current build is current too, and a copy without one builds.
 *
 * node_modules is not installed again (a real `npm ci` needs the network and some 50 s): the
 * checkout's installed packages stand in for the same packages installed from the same lockfile,
 * linked (linkPackages).
 */
export function copyCheckout({ dist }: CopyOptions): CheckoutCopy {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-checkout-'));
  const remove = (): void => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    for (const file of checkoutFiles()) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(CHECKOUT, file), join(dir, file), { preserveTimestamps: true });
    }
    linkPackages(realpathSync(join(CHECKOUT, 'node_modules')), join(dir, 'node_modules'));
    // A copy, not a link, for the same reason as node_modules: a command that builds (npm ci's
    // prepare, npm run build, npm start after an edit) writes dist, and must write the copy's.
    if (dist) cpSync(join(CHECKOUT, 'dist'), join(dir, 'dist'), { recursive: true, preserveTimestamps: true });
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, remove };
}
