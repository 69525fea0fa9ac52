import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locate, projectRoot } from './locate.js';
import { CORPUS } from './manifest.js';
import { format, summarise } from './report.js';
import type { DocumentResult } from './run-document.js';

/**
 * `npm run corpus`: every document of the manifest, each in a child process of its own, then the
 * table and the causes, printed and written to bench/results/corpus.json. Runs from the compiled
 * copy (package.json's script compiles test/corpus and src with tsc first).
 * CORPUS_ONLY=id,id runs a selection.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = projectRoot();
// The compiled sandbox finds its own files (admin.yaml…) beside its package root: point it at ours.
const buildRoot = join(here, '..', '..');
for (const folder of ['openapi', 'fixtures']) {
  const link = join(buildRoot, folder);
  if (!existsSync(link)) symlinkSync(join(root, folder), link);
}

const only = process.env.CORPUS_ONLY?.split(',').filter(Boolean);
const docs = only ? CORPUS.filter((d) => only.includes(d.id)) : CORPUS;
const scratch = mkdtempSync(join(tmpdir(), 'understudy-corpus-'));
const results: DocumentResult[] = [];
try {
  for (const doc of docs) {
    const failed = (message: string): DocumentResult => ({
      id: doc.id,
      bytes: 0,
      started: false,
      startError: message,
      peakRssMb: 0,
      operations: 0,
      outcomes: [],
      near: [],
    });
    let file: string;
    try {
      file = locate(doc);
    } catch (error) {
      results.push(failed(`not available: ${(error as Error).message}`));
      continue;
    }
    const out = join(scratch, `${doc.id}.json`);
    const child = spawnSync(process.execPath, ['--max-old-space-size=16384', join(here, 'child.js'), doc.id, file, out], {
      encoding: 'utf8',
      timeout: 20 * 60 * 1000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (child.status === 0 && existsSync(out)) {
      const result = JSON.parse(readFileSync(out, 'utf8')) as DocumentResult;
      results.push(result);
      process.stderr.write(
        `${doc.id}: ${result.started ? `started in ${result.startMs} ms, ${result.operations} operations` : 'did not start'}\n`,
      );
    } else {
      const why = child.error ? child.error.message : `exit ${child.status ?? child.signal}`;
      results.push(
        failed(`the harness process ended (${why}): ${(child.stderr || '').trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`),
      );
      process.stderr.write(`${doc.id}: harness process ended (${why})\n`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const summary = summarise(docs, results);
console.log(format(docs, results, summary));
const target = process.env.CORPUS_OUT ?? join(root, 'bench', 'results', 'corpus.json');
mkdirSync(dirname(target), { recursive: true });
// Answers within contract are only counted (the summary has them): the file keeps what needs reading.
const written = results.map((r) => ({
  ...r,
  outcomes: r.outcomes.filter((o) => o.verdict !== 'ok'),
  near: r.near.filter((n) => n.verdict !== 'refused' || n.errorBreach),
}));
writeFileSync(target, JSON.stringify({ node: process.version, documents: docs, summary, results: written }, null, 1) + '\n');
console.log(`\nwritten: ${target}`);
