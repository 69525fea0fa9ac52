import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFiles, type FileWatch } from '../../src/cli/watch-files.js';

const QUIET_MS = 60;
/** Generous: a loaded machine may be slow to deliver a file event. */
const EVENT_TIMEOUT_MS = 5_000;

/** Counts the calls and hands out a promise for the next one. */
function calls() {
  const seen: (readonly string[])[] = [];
  let waiting: { count: number; resolve: () => void }[] = [];
  const onSettled = (changed: readonly string[]): Promise<void> => {
    seen.push(changed);
    for (const w of waiting.filter((w) => seen.length >= w.count)) w.resolve();
    waiting = waiting.filter((w) => seen.length < w.count);
    return Promise.resolve();
  };
  /** Resolves once `count` calls in all have been made. */
  const reach = (count: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (seen.length >= count) return resolve();
      const timer = setTimeout(() => reject(new Error(`only ${seen.length} of ${count} calls came`)), EVENT_TIMEOUT_MS);
      waiting.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  return { seen, onSettled, reach };
}

const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchFiles', () => {
  let dir: string;
  let file: string;
  let watch: FileWatch | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'understudy-watch-'));
    file = join(dir, 'api.yaml');
    await writeFile(file, 'a: 1\n');
  });
  afterEach(async () => {
    await watch?.close();
    watch = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('counts a listed file that does not exist yet once it is written, and no neighbour', async () => {
    const { seen, onSettled, reach } = calls();
    // A reload that failed on a `$ref` to a file not written yet lists that file.
    const missing = join(dir, 'schemas.yaml');
    watch = watchFiles(() => [file, missing], onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    // A log written beside the document, line after line: never a call.
    for (const n of [1, 2, 3]) await writeFile(join(dir, 'server.log'), `line ${n}\n`);
    await writeFile(missing, 'c: 1\n');
    await reach(1);
    expect(seen).toEqual([[missing]]);
  });

  it('calls once after a file is written', async () => {
    const { seen, onSettled, reach } = calls();
    watch = watchFiles(() => [file], onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    await writeFile(file, 'a: 2\n');
    await reach(1);
    expect(seen).toEqual([[file]]);
  });

  it('calls after an editor’s save: a temp file renamed over the original', async () => {
    const { seen, onSettled, reach } = calls();
    watch = watchFiles(() => [file], onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    const temp = join(dir, 'api.yaml.tmp-123');
    await writeFile(temp, 'a: 2\n');
    await rename(temp, file);
    await reach(1);
    expect(seen[0]).toEqual([file]);
    // The watch survives the replaced file: the next save is seen too.
    await writeFile(temp, 'a: 3\n');
    await rename(temp, file);
    await reach(2);
  });

  it('makes one call of a burst of saves', async () => {
    const { seen, onSettled, reach } = calls();
    watch = watchFiles(() => [file], onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    for (const n of [2, 3, 4]) await writeFile(file, `a: ${n}\n`);
    await reach(1);
    // Waiting for the absence of a second call.
    await quiet(QUIET_MS * 3);
    expect(seen).toHaveLength(1);
  });

  it('ignores a file it was not given, even in the same directory', async () => {
    const { seen, onSettled } = calls();
    watch = watchFiles(() => [file], onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    await writeFile(join(dir, 'notes.txt'), 'hello\n');
    await writeFile(join(dir, 'notes.txt'), 'hello again\n');
    // Waiting for the absence of a call.
    await quiet(QUIET_MS * 3);
    expect(seen).toHaveLength(0);
  });

  it('makes exactly one more call for changes that arrive while a call runs', async () => {
    let release: () => void = () => undefined;
    const { seen, onSettled, reach } = calls();
    let first = true;
    watch = watchFiles(
      () => [file],
      async (changed) => {
        await onSettled(changed);
        if (!first) return;
        first = false;
        await new Promise<void>((resolve) => (release = resolve));
      },
      { quietMs: QUIET_MS },
    );
    await watch.ready();
    await writeFile(file, 'a: 2\n');
    await reach(1);
    // The first call is still running: two saves now make one call, after it.
    await writeFile(file, 'a: 3\n');
    await writeFile(file, 'a: 4\n');
    await quiet(QUIET_MS * 2);
    expect(seen).toHaveLength(1);
    release();
    await reach(2);
    await quiet(QUIET_MS * 3);
    expect(seen).toHaveLength(2);
  });

  it('watches a file added to the list, in a new directory, after the next call', async () => {
    const { seen, onSettled, reach } = calls();
    const other = join(dir, 'schemas');
    await mkdir(other);
    const added = join(other, 'pet.yaml');
    await writeFile(added, 'type: object\n');
    const listed = [file];
    watch = watchFiles(() => listed, onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    // Not listed yet: a change to it is not seen.
    await writeFile(added, 'type: string\n');
    listed.push(added);
    await writeFile(file, 'a: 2\n');
    await reach(1);
    expect(seen[0]).toEqual([file]);
    await watch.ready();
    await writeFile(added, 'type: integer\n');
    await reach(2);
    expect(seen[1]).toEqual([added]);
  });

  it('ignores a file no longer listed after a call, and calls nothing once closed', async () => {
    const { seen, onSettled, reach } = calls();
    const other = join(dir, 'schemas');
    await mkdir(other);
    const dropped = join(other, 'pet.yaml');
    await writeFile(dropped, 'type: object\n');
    const listed = [file, dropped];
    watch = watchFiles(() => listed, onSettled, { quietMs: QUIET_MS });
    await watch.ready();
    listed.pop();
    await writeFile(file, 'a: 2\n');
    await reach(1);
    await watch.ready();
    await writeFile(dropped, 'type: string\n');
    // Waiting for the absence of a call (twice).
    await quiet(QUIET_MS * 3);
    expect(seen).toHaveLength(1);
    await watch.close();
    await writeFile(file, 'a: 3\n');
    await quiet(QUIET_MS * 3);
    expect(seen).toHaveLength(1);
  });
});
