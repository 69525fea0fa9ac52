import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const STYLES = fileURLToPath(new URL('../documents/styles.yaml', import.meta.url));
const UNREACHABLE = fileURLToPath(new URL('../documents/unreachable.yaml', import.meta.url));

interface Row {
  readonly name: string;
  readonly url: string;
  readonly status: number;
  readonly code?: string;
  readonly locations?: readonly string[];
}

/** Every documented path reachable, as documented (routing rules: src/routing/router.ts). */
// prettier-ignore
const ROWS: readonly Row[] = [
  // sibling templates name the same position differently: each keeps its own names
  { name: 'sibling template {id}', url: '/s/recipe/5', status: 204 },
  { name: 'sibling template {recipeId}', url: '/s/recipe/5/images', status: 204 },
  { name: 'sibling template {recipeId} validated under its own name', url: '/s/recipe/x/images', status: 400, code: 'validation_failed', locations: ['path.recipeId'] },
  { name: 'sibling template {id} validated under its own name', url: '/s/recipe/x', status: 400, code: 'validation_failed', locations: ['path.id'] },
  // templates inside a segment; literal > partly templated > fully templated
  { name: 'a literal segment wins', url: '/s/files/readme.txt', status: 204 },
  { name: 'a partly templated segment ({name}.{ext})', url: '/s/files/notes.txt', status: 204 },
  { name: 'the last dot splits {name}.{ext}', url: '/s/files/a.tar.gz', status: 204 },
  { name: 'partly templated values validated each', url: '/s/files/NOTES.doc', status: 400, code: 'validation_failed', locations: ['path.name', 'path.ext'] },
  { name: 'no dot: the fully templated segment', url: '/s/files/42', status: 204 },
  { name: 'no dot, not an integer: the fully templated segment refuses it', url: '/s/files/abc', status: 400, code: 'validation_failed', locations: ['path.id'] },
  { name: "OData-style key: /indexes('{name}')", url: "/s/indexes('books')", status: 204 },
  { name: 'OData-style key, quotes percent-encoded', url: '/s/indexes(%27books%27)', status: 204 },
  { name: 'OData-style key value validated', url: "/s/indexes('b')", status: 400, code: 'validation_failed', locations: ['path.name'] },
  { name: 'OData-style key without its quotes', url: '/s/indexes(books)', status: 404, code: 'route_not_found' },
  // trailing slashes exactly as documented
  { name: 'a documented trailing slash', url: '/s/trail/', status: 204 },
  { name: 'the same path without its documented slash', url: '/s/trail', status: 404, code: 'route_not_found' },
  { name: 'a path documented without a slash', url: '/s/plain', status: 204 },
  { name: 'the same path with a slash it does not document', url: '/s/plain/', status: 404, code: 'route_not_found' },
  // a template the document forgot to declare
  { name: 'an undeclared {thing} is any text', url: '/s/undeclared/anything', status: 204 },
];

describe.each(EDGES)('path templates through the $name', ({ make }) => {
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    app = make(await testSandbox({ spec: STYLES, fixtures: null }));
  });

  it.each(ROWS)('$name → $status $code', async (row) => {
    const res = await request(app).get(row.url);
    expect(res.status).toBe(row.status);
    if (row.status >= 400) expect(res.body).toMatchObject({ code: row.code, status: row.status });
    if (row.locations) {
      const locations = (res.body.details as { location: string }[]).map((d) => d.location);
      expect([...new Set(locations)].sort()).toEqual([...row.locations].sort());
    }
  });
});

describe('a documented operation no request can reach', () => {
  it('is reported at start, located and naming the one that shadows it; the first is served', async () => {
    const warnings: string[] = [];
    const config = checkConfig({ ...DEFAULT_CONFIG, spec: UNREACHABLE, fixtures: null, log: { level: 'silent', format: 'json' } });
    const sandbox = await createSandbox(config, { onProgress: (e) => e.phase === 'warning' && warnings.push(e.message) });
    expect(warnings).toEqual([
      '#/paths/~1a~1{y}/get: GET /a/{y} (second) cannot be reached: GET /a/{x} (first) has the same method and path shape and comes first',
    ]);
    const res = await request(EDGES[0]!.make(sandbox)).get('/a/1');
    expect(res.status).toBe(204);
  });
});
