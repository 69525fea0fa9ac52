import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface SoakReport {
  readonly requests: {
    readonly total: number;
    readonly '2xx': number;
    readonly '4xx': number;
    readonly '5xx': number;
    readonly socket: number;
  };
  readonly eventLoopDelayMs: { readonly p99: number };
}

/** `npm run soak`, cut to 4 seconds: the mixed workload finds no 5xx and no socket error. */
describe('the soak, short', () => {
  it('runs a mixed workload with zero 5xx and zero socket errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-soak-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const reportFile = join(dir, 'soak.json');
    const env = { ...process.env, SOAK_SECONDS: '4', SOAK_REPORT: reportFile };
    const child = spawn(process.execPath, ['bench/soak.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output).toBe(0);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as SoakReport;
    expect(report.requests.total).toBeGreaterThan(1000);
    expect(report.requests['2xx']).toBeGreaterThan(0);
    expect(report.requests['4xx']).toBeGreaterThan(0);
    expect(report.requests['5xx']).toBe(0);
    expect(report.requests.socket).toBe(0);
  }, 30_000);
});
