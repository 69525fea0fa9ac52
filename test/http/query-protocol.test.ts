import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/query-protocol.yaml', import.meta.url).pathname;

interface Row {
  readonly name: string;
  readonly method: 'get' | 'post';
  readonly url: string;
  readonly status: number;
  /** The operation that answered (its `operation` field), or the error code. */
  readonly answer: string;
  readonly locations?: readonly string[];
}

/** Operations keyed `/#Action=…`, told apart by the query value clients send (src/routing/template.ts). */
// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'the Action names the operation', method: 'get', url: '/?Action=DescribeInstances&Version=2016-11-15', status: 200, answer: 'DescribeInstances' },
  { name: 'in any order among the other values', method: 'get', url: '/?Version=2016-11-15&Action=RunInstances', status: 200, answer: 'RunInstances' },
  { name: 'another method on the same key', method: 'post', url: '/?Action=DescribeInstances', status: 200, answer: 'POST_DescribeInstances' },
  { name: 'the other parameters validated as declared', method: 'get', url: '/?Action=DescribeInstances&Version=2016-11-15&MaxResults=2', status: 400, answer: 'validation_failed', locations: ['query.MaxResults'] },
  { name: 'a required one missing', method: 'get', url: '/?Action=DescribeInstances', status: 400, answer: 'validation_failed', locations: ['query.Version'] },
  { name: 'an Action in the wrong case', method: 'get', url: '/?Action=describeinstances&Version=2016-11-15', status: 404, answer: 'route_not_found' },
  { name: 'an Action no operation has', method: 'get', url: '/?Action=RebootInstances&Version=2016-11-15', status: 404, answer: 'route_not_found' },
  { name: 'no Action', method: 'get', url: '/?Version=2016-11-15', status: 404, answer: 'route_not_found' },
  { name: 'an Action only another method has', method: 'post', url: '/?Action=RunInstances', status: 405, answer: 'method_not_allowed' },
  { name: 'the Action as a header does not count', method: 'get', url: '/', status: 404, answer: 'route_not_found' },
];

describe.each(EDGES)('a query-protocol document through the $name', ({ make }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null });
  });

  it.each(ROWS)('$name → $status $answer', async (row) => {
    const res = await request(make(sandbox))[row.method](row.url).set('Action', 'DescribeInstances');
    expect(res.status).toBe(row.status);
    if (row.status === 200) expect(res.body).toEqual({ operation: row.answer });
    else expect(res.body).toMatchObject({ code: row.answer, status: row.status });
    if (row.status === 405) expect(res.headers.allow).toBe('GET, HEAD');
    if (row.locations) expect((res.body.details as { location: string }[]).map((d) => d.location)).toEqual(row.locations);
  });

  it('suggests the operation whose Action is nearest the one sent', async () => {
    const res = await request(make(sandbox)).get('/?Action=TerminateInstance');
    expect(res.status).toBe(404);
    expect(res.body.details[0]).toEqual({ location: 'path', message: 'GET /#Action=TerminateInstances' });
  });
});
