import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

/**
 * A forced error status the operation declares only through a range or `default`
 * (docs/control-surface.md, "Forcing an answer: Prefer"): the body says what that status means
 * (`forced_status`, its reason phrase, the status), in the document's error shape, never an example
 * written for another status. An example declared for exactly that status, or one the request
 * names, is still served. testSandbox checks every answer against the document: a body that broke
 * it would be a 500 `response_contract_violation`.
 */

type App = Parameters<typeof request>[0];

interface Row {
  readonly name: string;
  readonly spec?: string;
  readonly method: 'get' | 'post';
  readonly url: string;
  readonly prefer: string;
  readonly status: number;
  readonly applied: string;
  readonly body: unknown;
}

const own = (status: number, message: string): unknown => ({ code: 'forced_status', message, status });
const FORCED = 'test/documents/forced-answers.yaml';

// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'Pet Store code=500 → default, the 500’s own error (not the 405 example)', method: 'get', url: '/v1/pets/1', prefer: 'code=500', status: 500, applied: 'code=500', body: own(500, 'Internal Server Error') },
  { name: 'Pet Store code=503 on listPets', method: 'get', url: '/v1/pets', prefer: 'code=503', status: 503, applied: 'code=503', body: own(503, 'Service Unavailable') },
  { name: 'Pet Store code=418 → default', method: 'get', url: '/v1/pets/1', prefer: 'code=418', status: 418, applied: 'code=418', body: own(418, "I'm a Teapot") },
  { name: 'Pet Store code=500, dynamic=true: still the status’s own error', method: 'get', url: '/v1/pets/1', prefer: 'code=500, dynamic=true', status: 500, applied: 'code=500', body: own(500, 'Internal Server Error') },
  { name: 'Pet Store code=500, example=error: the named example is served', method: 'get', url: '/v1/pets/1', prefer: 'code=500, example=error', status: 500, applied: 'code=500, example=error', body: { code: 'method_not_allowed', message: 'DELETE is not allowed on /pets; allowed: GET, POST', status: 500 } },
  { name: 'Pet Store code=404: the example declared for 404 is served', method: 'get', url: '/v1/pets/1', prefer: 'code=404', status: 404, applied: 'code=404', body: { code: 'resource_not_found', message: 'No pets with id 999', status: 404 } },
  { name: 'a default with an example → the 503’s own error', spec: FORCED, method: 'get', url: '/api/animals/3', prefer: 'code=503', status: 503, applied: 'code=503', body: own(503, 'Service Unavailable') },
  { name: 'a 4XX range → the 418’s own error', spec: FORCED, method: 'get', url: '/api/animals/3', prefer: 'code=418', status: 418, applied: 'code=418', body: own(418, "I'm a Teapot") },
  { name: 'an exact 404 with its example', spec: FORCED, method: 'get', url: '/api/animals/3', prefer: 'code=404', status: 404, applied: 'code=404', body: { code: 'not_found', message: 'No animal 9' } },
];

describe.each(EDGES)('a forced status says what it means, through the $name', ({ make }) => {
  const apps = new Map<string, App>();
  beforeEach(() => apps.clear());
  const appFor = async (spec: string | undefined): Promise<App> => {
    const key = spec ?? 'petstore';
    const known = apps.get(key);
    if (known !== undefined) return known;
    const app = make(await testSandbox(spec === undefined ? {} : { spec, fixtures: null })) as App;
    apps.set(key, app);
    return app;
  };

  it.each(ROWS)('$name', async (row) => {
    const app = await appFor(row.spec);
    const res = await request(app)[row.method](row.url).set(auth()).set('Prefer', row.prefer);
    expect([res.status, res.headers['preference-applied'], res.body], res.text).toEqual([row.status, row.applied, row.body]);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });
});
