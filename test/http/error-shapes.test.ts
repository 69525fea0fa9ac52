import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const SPEC = new URL('../documents/error-shapes.yaml', import.meta.url).pathname;

/** The sandbox's refusals in the error shape each status declares (checkResponses is on: they must validate). */
describe.each(EDGES)("errors in the document's own shape through the $name", ({ make }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: SPEC, fixtures: null, keys: [{ key: 'k-123', plan: 'free' }] });
  });

  it('moves code, message and status into a GitHub-style error, status as a string', async () => {
    const res = await request(make(sandbox)).post('/api/things').send({ name: 'ok' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      code: 'missing_credentials',
      message: expect.any(String),
      status: '401',
      documentation_url: expect.any(String),
    });
  });

  it('answers a validation failure as the problem+json the document declares, nothing more', async () => {
    const res = await request(make(sandbox)).post('/api/things').set('x-api-key', 'k-123').send({ name: 'far too long' });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Object.keys(res.body).sort()).toEqual(['detail', 'status', 'title', 'type']);
    expect(res.body).toEqual({
      type: 'tag:understudy.dev,2026:problem:validation_failed',
      title: 'Request invalid',
      status: 400,
      detail: expect.stringContaining('body.name'),
    });
  });

  it('sends no body where the document declares the status without content, the error in X-Sandbox-Error', async () => {
    const res = await request(make(sandbox)).get('/api/gadgets/999').set('x-api-key', 'k-123');
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.headers['x-sandbox-error']).toMatch(/^resource_not_found: /);
  });

  it('keeps the catalogue shape where the document declares none for the status', async () => {
    const res = await request(make(sandbox)).get('/api/nowhere').set('x-api-key', 'k-123');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'route_not_found', status: 404 });
  });
});
