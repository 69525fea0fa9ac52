import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const CONTRACT = fileURLToPath(new URL('../documents/answers-contract.yaml', import.meta.url));

interface Row {
  readonly name: string;
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
  readonly body?: unknown;
  readonly status: number;
  /** The content type's essence, or null for no body. */
  readonly type: string | null;
  readonly expectBody?: (body: unknown, text: string) => void;
  readonly headers?: Record<string, RegExp>;
}

/**
 * Every answer keeps the document's contract: a declared status (the lowest 2xx, else `default`,
 * else the first declared), a declared content type, a body valid against its schema (the sandbox
 * checks every answer here: `checkResponses` turns a broken one into a 500).
 */
const SCENARIOS: readonly Row[] = [
  {
    name: 'only a 302 declared: 302 with a generated Location',
    method: 'get',
    path: '/moved',
    status: 302,
    type: null,
    headers: { location: /^https?:\/\/\S+$/ },
  },
  { name: 'only a 204 declared: 204, no body', method: 'delete', path: '/sessions/current', status: 204, type: null },
  { name: '202 and 201 declared: the lowest, 201', method: 'post', path: '/reports', body: {}, status: 201, type: 'application/json' },
  {
    name: 'only default declared: 200 in its shape',
    method: 'get',
    path: '/only-default',
    status: 200,
    type: 'application/json',
    expectBody: (b) => expect(b).toEqual({ ok: expect.any(Boolean) }),
  },
  { name: 'text/plain only: text, never JSON', method: 'get', path: '/readme', status: 200, type: 'text/plain' },
  {
    name: 'a vendor JSON type is sent as declared, before a non-JSON one',
    method: 'get',
    path: '/vendor',
    status: 200,
    type: 'application/vnd.api+json',
    expectBody: (b) => expect(b).toEqual({ data: expect.any(Array) }),
  },
  {
    name: 'an array of strings is never a collection',
    method: 'get',
    path: '/tags',
    status: 200,
    type: 'application/json',
    expectBody: (b) => (b as unknown[]).forEach((t) => expect(typeof t).toBe('string')),
  },
  { name: 'limit=0 where the document allows it: no 500', method: 'get', path: '/tags?limit=0', status: 200, type: 'application/json' },
  {
    name: 'a POST beside a list of strings is not a create',
    method: 'post',
    path: '/tags',
    body: { tag: 'x' },
    status: 200,
    type: 'application/json',
  },
  {
    name: 'a POST with no collection is not a create: the document answers',
    method: 'post',
    path: '/search',
    body: { q: 'x' },
    status: 200,
    type: 'application/json',
    expectBody: (b) => expect(b).toEqual({ results: expect.any(Array), took: expect.any(Number) }),
  },
  {
    name: 'records with a UUID id are stored: the create mints a version-4 UUID and keeps what was sent',
    method: 'post',
    path: '/jobs',
    body: { kind: 'x' },
    status: 201,
    type: 'application/json',
    expectBody: (b) =>
      expect(b).toEqual({
        jobId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        state: expect.any(String),
        kind: 'x',
      }),
  },
  {
    name: 'an example that breaks its schema is not served',
    method: 'get',
    path: '/broken-example',
    status: 200,
    type: 'application/json',
    expectBody: (b) => expect(b).toEqual({ count: expect.any(Number) }),
  },
];

describe.each(EDGES)('answers keep the document contract through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: CONTRACT, fixtures: null });
    app = make(sandbox);
  });

  it.each(SCENARIOS)('$name', async (row) => {
    const call = request(app)[row.method](`/api${row.path}`);
    const res = row.body === undefined ? await call : await call.send(row.body as object);
    expect(res.status, JSON.stringify(res.body)).toBe(row.status);
    const type = res.headers['content-type'];
    if (row.type === null) expect(res.text ?? '').toBe('');
    else expect(type?.split(';')[0]).toBe(row.type);
    for (const [name, pattern] of Object.entries(row.headers ?? {})) expect(res.headers[name]).toMatch(pattern);
    row.expectBody?.(res.body, res.text);
  });

  it('generates realistic values by format, property name and x-faker, valid against the schema', async () => {
    const res = await request(app).get('/api/people/anyone');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: expect.stringMatching(/^[^@\s]+@[^@\s]+\.[a-z]+$/),
      firstName: expect.stringMatching(/^[A-Z][a-zA-Z' -]+$/),
      lastName: expect.stringMatching(/^[A-Z][a-zA-Z' -]+$/),
      website: expect.stringMatching(/^https?:\/\//),
      city: expect.stringMatching(/^[A-Z]/),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      born: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      code: expect.stringMatching(/^[A-Z]{3}-[0-9]{2}$/),
      ip: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
      ref: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-/),
      host: expect.stringMatching(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/),
      contact: expect.stringMatching(/@/),
    });
    expect(res.body.nickname).not.toMatch(/\s{2}/);
    expect(res.body.phone).toMatch(/\d/);
  });

  it('generates the same answer under the same seed, and another under another seed', async () => {
    const first = (await request(app).get('/api/people/a')).body;
    const again = (await request(make(await testSandbox({ spec: CONTRACT, fixtures: null }))).get('/api/people/a')).body;
    const other = (await request(make(await testSandbox({ spec: CONTRACT, fixtures: null, seed: 7 }))).get('/api/people/a')).body;
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});
