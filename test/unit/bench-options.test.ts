import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the bench harness is plain JavaScript with JSDoc types, outside the TypeScript project
import { readOptions } from '../../bench/options.mjs';

interface Options {
  readonly baseline: string | null;
}
const read = readOptions as (env: Record<string, string>, argv: string[]) => Options;

describe('bench options: BENCH_BASELINE', () => {
  const root = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is off unless set', () => {
    expect(read({}, []).baseline).toBeNull();
  });

  it('takes a built checkout, as an absolute directory', () => {
    const built = join(root, 'built');
    mkdirSync(join(built, 'dist/cli'), { recursive: true });
    writeFileSync(join(built, 'dist/cli/main.js'), '');
    expect(read({ BENCH_BASELINE: built }, []).baseline).toBe(built);
  });

  it('refuses a directory with no build in it, naming it', () => {
    expect(() => read({ BENCH_BASELINE: join(root, 'nothing') }, [])).toThrow(/BENCH_BASELINE must be a built checkout.*nothing/);
  });
});
