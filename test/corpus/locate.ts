import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { CorpusDocument } from './manifest.js';
import { writeLargeDocument } from './synthetic.js';

/**
 * The project root: the nearest folder above this file whose package.json is ours. Found by walking
 * up, so the same code works from test/corpus and from the compiled copy the full run executes.
 */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'understudy') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('corpus: cannot find the project root (package.json named understudy)');
    dir = up;
  }
}

export const cacheDir = (): string => join(projectRoot(), 'node_modules', '.cache', 'understudy-corpus');

/** Whether the document can be had without the network (the fast subset uses only these). */
export const isLocal = (doc: CorpusDocument): boolean => doc.source === 'devDependency';

/**
 * The document as a file the sandbox can be pointed at. A packed package is fetched once with
 * `npm pack` (the registry's ordinary client) and unpacked into the cache; a `.gz` is unpacked
 * beside it. Throws with a message naming the package when that is impossible.
 */
export function locate(doc: CorpusDocument): string {
  if (doc.source === 'generated') return generated(doc);
  const root = projectRoot();
  const base = doc.source === 'devDependency' ? join(root, 'node_modules', doc.package) : unpacked(doc);
  const file = join(base, doc.path);
  if (!existsSync(file)) throw new Error(`corpus: ${doc.package}@${doc.version} has no ${doc.path} (run npm ci?)`);
  if (!file.endsWith('.gz')) return file;
  const plain = file.slice(0, -'.gz'.length);
  if (!existsSync(plain)) writeFileSync(plain, gunzipSync(readFileSync(file)));
  return plain;
}

/** The generated document, written into the cache on first use. */
function generated(doc: CorpusDocument): string {
  const dir = join(cacheDir(), 'generated');
  const file = join(dir, doc.path);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeLargeDocument(file);
  }
  return file;
}

function unpacked(doc: CorpusDocument): string {
  const dir = join(cacheDir(), 'packages', `${doc.package.replace('/', '+')}@${doc.version}`);
  const done = join(dir, 'package', 'package.json');
  if (existsSync(done)) return join(dir, 'package');
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${doc.package}@${doc.version}`, '--silent', '--pack-destination', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .trim()
    .split('\n')
    .pop();
  if (tarball === undefined || tarball === '') throw new Error(`corpus: npm pack ${doc.package}@${doc.version} produced no tarball`);
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  return join(dir, 'package');
}
