import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { testSandbox } from '../support/sandbox.js';

const require = createRequire(import.meta.url);
const GITHUB = join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated/api.github.com.json');

/** A large real-world OpenAPI 3.0 document (GitHub's REST API, about 1,000 operations) loads and serves. */
describe("GitHub's REST description", () => {
  it('compiles every operation and answers by the document', async () => {
    const sandbox = await testSandbox({
      spec: GITHUB,
      fixtures: null,
      validation: { unknownQueryParameters: 'ignore', checkResponses: false },
    });
    expect(sandbox.model.operations.length).toBeGreaterThan(900);
    const app = createNodeHandler(sandbox);
    const auth = { Authorization: 'Bearer demo-enterprise' };
    expect((await request(app).get('/').set(auth)).status).toBe(200);
    const meta = await request(app).get('/meta').set(auth);
    expect(meta.status).toBe(200);
    const bad = await request(app).get('/repos/octocat/hello/issues?per_page=many').set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ location: 'query.per_page', message: expect.any(String) }]);
    const missing = await request(app).post('/repos/octocat/hello/issues').set(auth).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { location: string }) => d.location)).toContain('body.title');
  }, 60_000);
});
