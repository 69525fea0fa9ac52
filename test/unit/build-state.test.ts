import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: the build scripts are plain JavaScript, outside the TypeScript project
import { BUILD_INPUTS, INSTALLED, needsBuild, staleness } from '../../scripts/build-state.mjs';

const isStale = needsBuild as (root: string) => boolean;
const why = staleness as (root: string) => string | undefined;

const INPUTS = [...(BUILD_INPUTS as string[]), 'src/cli/main.ts'];
const OUTPUTS = { stamp: 'dist/.tsbuildinfo', bin: 'dist/cli/bin.cjs', cache: 'dist/bin/understudy.cjs.cache' };

/** The build, and `npm start` before starting, build only when the build is not current (scripts/build-state.mjs). */
describe('whether npm start builds', () => {
  let root: string;
  /** Writes `file` with its modification time `at` seconds into the checkout's history. */
  const at = (file: string, seconds: number): void => {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, 1_800_000_000 + seconds, 1_800_000_000 + seconds);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'understudy-build-state-'));
    for (const file of INPUTS) at(file, 0);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('does not when the stamp and the code cache are newer than every source', () => {
    at(OUTPUTS.bin, 10);
    at(OUTPUTS.stamp, 10);
    at(OUTPUTS.cache, 11);
    expect(isStale(root)).toBe(false);
  });

  it('does not when only the bin is older than a source: the compiler rewrites only what changed', () => {
    at(OUTPUTS.bin, 1);
    at('src/cli/main.ts', 5);
    at(OUTPUTS.stamp, 10);
    at(OUTPUTS.cache, 11);
    expect(isStale(root)).toBe(false);
  });

  it('does when a source, a config or a build script changed after the build', () => {
    for (const file of ['src/cli/main.ts', 'package.json', 'scripts/bundle.mjs']) {
      at(OUTPUTS.bin, 10);
      at(OUTPUTS.stamp, 10);
      at(OUTPUTS.cache, 11);
      at(file, 12);
      expect(isStale(root)).toBe(true);
      at(file, 0);
    }
  });

  it('does when the build stopped before the code cache, or something is missing', () => {
    at(OUTPUTS.bin, 10);
    at(OUTPUTS.stamp, 10);
    at(OUTPUTS.cache, 2);
    at('src/cli/main.ts', 5);
    expect(isStale(root)).toBe(true);
    at(OUTPUTS.cache, 11);
    expect(isStale(root)).toBe(false);
    for (const missing of Object.values(OUTPUTS)) {
      rmSync(join(root, missing));
      expect(isStale(root)).toBe(true);
      at(missing, 11);
    }
  });

  it('does when npm installed packages after the build (npm ci, npm install), and not when no npm installed any', () => {
    at(OUTPUTS.bin, 10);
    at(OUTPUTS.stamp, 10);
    at(OUTPUTS.cache, 11);
    at(INSTALLED as string, 5);
    expect(isStale(root)).toBe(false);
    at(INSTALLED as string, 12);
    expect(why(root)).toBe('the installed packages changed since the last build');
    rmSync(join(root, INSTALLED as string));
    expect(isStale(root)).toBe(false);
  });

  it('says why: no build yet, a build that did not finish, or the file that changed since', () => {
    expect(why(root)).toBe('there is no build yet');
    at(OUTPUTS.bin, 10);
    expect(why(root)).toBe('the last build did not finish');
    at(OUTPUTS.stamp, 10);
    at(OUTPUTS.cache, 11);
    expect(why(root)).toBeUndefined();
    at('src/cli/main.ts', 12);
    at('package.json', 13);
    expect(why(root)).toBe('package.json changed since the last build');
  });
});
