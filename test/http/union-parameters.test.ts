import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/one-of-parameters.yaml', import.meta.url).pathname;

interface Row {
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly status: number;
  readonly locations?: readonly string[];
}

/** Values read against every branch of a oneOf/anyOf, or every type of a list (src/validation/parse-parameter.ts). */
// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'a path integer from the integer branch', url: '/slots/1', status: 200 },
  { name: 'a path string from the string branch', url: '/slots/a', status: 200 },
  { name: 'a path value neither branch takes', url: '/slots/3', status: 400, locations: ['path.slot'] },
  { name: 'a query integer (anyOf)', url: '/slots/2?size=4', status: 200 },
  { name: 'a query array (anyOf)', url: '/slots/2?size=4&size=5', status: 200 },
  { name: 'a query array too short for its branch, not an integer', url: '/slots/2?size=4,x', status: 400, locations: ['query.size'] },
  { name: 'a deepObject of the object branch', url: '/slots/1?created[gte]=5&created[lt]=9', status: 200 },
  { name: 'a deepObject sent plain: the integer branch', url: '/slots/1?created=7', status: 200 },
  { name: 'a deepObject member not its type', url: '/slots/1?created[gte]=soon', status: 400, locations: ['query.created.gte', 'query.created'] },
  { name: 'a list of types: the boolean', url: '/slots/b?exact=true', status: 200 },
  { name: 'a list of types: the string', url: '/slots/b?exact=maybe', status: 200 },
  { name: 'a header number (oneOf by $ref)', url: '/slots/1', headers: { 'X-Level': '2.5' }, status: 200 },
  { name: 'a header boolean', url: '/slots/1', headers: { 'X-Level': 'false' }, status: 200 },
  { name: 'a header neither branch takes', url: '/slots/1', headers: { 'X-Level': '11' }, status: 400, locations: ['header.x-level'] },
  { name: 'a cookie boolean', url: '/slots/1', headers: { Cookie: 'theme=true' }, status: 200 },
  { name: 'a cookie that is text', url: '/slots/1', headers: { Cookie: 'theme=dark' }, status: 400, locations: ['cookie.theme'] },
];

describe.each(EDGES)('parameters of several types through the $name', ({ make }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
  });

  it.each(ROWS)('$name → $status', async (row) => {
    const res = await request(make(sandbox))
      .get(row.url)
      .set(row.headers ?? {});
    expect(res.status).toBe(row.status);
    if (row.status === 400) {
      expect(res.body).toMatchObject({ code: 'validation_failed', status: 400 });
      const locations = (res.body.details as { location: string }[]).map((d) => d.location);
      expect([...new Set(locations)]).toEqual(row.locations);
    }
  });
});

describe('a parameter of several types under validation.unknownQueryParameters: reject', () => {
  it('claims both its plain key and its members', async () => {
    const app = EDGES[0]!.make(await testSandbox({ spec: SPEC, fixtures: null, validation: { unknownQueryParameters: 'reject' } }));
    expect((await request(app).get('/slots/1?created=7')).status).toBe(200);
    expect((await request(app).get('/slots/1?created[gte]=7')).status).toBe(200);
    const other = await request(app).get('/slots/1?createdAt=7');
    expect(other.status).toBe(400);
    expect(other.body.details).toEqual([{ location: 'query.createdAt', message: 'is not a parameter of this operation' }]);
  });
});
