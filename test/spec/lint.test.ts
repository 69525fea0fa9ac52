import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPECTRAL = join(ROOT, 'node_modules', '.bin', 'spectral');
const TIMEOUT = 60_000;

/** One Spectral finding, as its `json` formatter prints it (severity 0 error, 1 warning, 2 info, 3 hint). */
interface LintResult {
  readonly code: string | number;
  readonly message: string;
  readonly severity: 0 | 1 | 2 | 3;
  readonly path: readonly (string | number)[];
  readonly range: { readonly start: { readonly line: number } };
}

/**
 * Runs the local Spectral CLI with the repository's ruleset. Spectral exits 1 when it finds errors,
 * which is still a lint result; anything else (a crash, a ruleset that does not load) fails the test.
 */
function lint(file: string): Promise<LintResult[]> {
  const args = ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'];
  return new Promise((resolve, reject) => {
    execFile(SPECTRAL, args, { cwd: ROOT, timeout: TIMEOUT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      if (code !== 0 && code !== 1) {
        reject(new Error(`spectral exited with ${String(code)}: ${stderr || error?.message}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout) as LintResult[]);
      } catch {
        reject(new Error(`spectral printed no JSON: ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`));
      }
    });
  });
}

const describeResult = (r: LintResult): string =>
  `${r.code} at ${r.path.join('.') || '(root)'} (line ${r.range.start.line + 1}): ${r.message}`;

/** Every document the repository ships: the served API's and the sandbox's own admin API. */
const DOCUMENTS = ['openapi/petstore.yaml', 'openapi/admin.yaml'] as const;

describe.each(DOCUMENTS)('%s under Spectral (spectral:oas)', (document) => {
  it(
    'has no errors and no warnings',
    async () => {
      const results = await lint(document);
      expect(results.filter((r) => r.severity === 0).map(describeResult)).toEqual([]);
      expect(results.filter((r) => r.severity === 1).map(describeResult)).toEqual([]);
    },
    TIMEOUT,
  );
});

describe('the Spectral ruleset (spectral:oas)', () => {
  // A control: an empty result above only means something if the ruleset is loaded and reports.
  it(
    'does report problems in a document that has them',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'understudy-lint-'));
      try {
        const file = join(dir, 'broken.yaml');
        await writeFile(file, 'openapi: 3.1.0\ninfo: { title: Broken, version: "1" }\npaths:\n  /a:\n    get:\n      responses: {}\n');
        const codes = new Set((await lint(file)).map((r) => r.code));
        expect(codes).toContain('info-contact');
        expect(codes).toContain('oas3-api-servers');
        expect(codes).toContain('operation-operationId');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );
});
