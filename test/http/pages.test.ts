import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/defaults.js';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createApp } from '../../src/http/express-app.js';
import { ADMIN_TOKEN, EDGES, testSandbox } from '../support/sandbox.js';
import { pingOperation } from '../support/ping-operation.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const DOCUMENTS = join(PACKAGE_ROOT, 'test/documents');

/** supertest gives a non-JSON body as a Buffer (or text): the bytes as text either way. */
const text = (res: request.Response): string => (Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.text);

describe.each(EDGES)('the pages through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  it('serves the docs page: HTML that names where it lives, never cached stale, loading nothing from elsewhere', async () => {
    const res = await request(app).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toContain('<base href="/docs/" />');
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const head = await request(app).head('/docs');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  });

  it("serves Swagger UI's files from its package with a validator, and answers 304 to a current copy", async () => {
    const res = await request(app).get('/docs/swagger-ui-bundle.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const installed = await readFile(join(PACKAGE_ROOT, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'));
    expect(res.headers['content-length']).toBe(String(installed.length));
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-z]+-[0-9a-z]+"$/);
    const again = await request(app).get('/docs/swagger-ui-bundle.js').set('If-None-Match', `W/${etag}`);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(text(again)).toBe('');
    const css = await request(app).get('/docs/swagger-ui.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers a file it does not serve with 404 and a wrong method with 405, in the Error shape', async () => {
    const missing = await request(app).get('/docs/index.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'route_not_found', status: 404 });
    const traversal = await request(app).get('/docs/..%2Fpackage.json');
    expect(traversal.status).toBe(404);
    const wrong = await request(app).post('/docs').send({});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(wrong.body.code).toBe('method_not_allowed');
    const get = await request(app).get('/docs/visitor');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it("serves the live document with its servers rewritten to this sandbox's origin and base path", async () => {
    const res = await request(app).get('/docs/openapi.json').set('Host', 'sandbox.test:8080');
    expect(res.status).toBe(200);
    expect(res.body.servers).toEqual([{ url: 'http://sandbox.test:8080/v1', description: 'This sandbox' }]);
    expect(Object.keys(res.body.paths as object)).toContain('/pets');
    const tls = await request(app).get('/docs/openapi.json').set('Host', 'sandbox.test').set('X-Forwarded-Proto', 'https');
    expect(tls.body.servers[0].url).toBe('https://sandbox.test/v1');
  });

  it('mints each visitor a key in a workspace of its own, keeps it while it works, and answers with how to send it', async () => {
    const first = await request(app).post('/docs/visitor').send({});
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toEqual({
      key: expect.stringMatching(/^sk_free_/),
      id: expect.stringMatching(/^key_/),
      plan: 'free',
      workspace: expect.stringMatching(/^ws_/),
      authorizations: [{ scheme: 'bearerAuth', use: 'value' }],
    });
    const key = first.body.key as string;
    const pets = await request(app).get('/v1/pets?limit=1').set('Authorization', `Bearer ${key}`);
    expect(pets.status).toBe(200);
    expect(pets.headers['x-ratelimit-limit']).toBe('60');
    const again = await request(app).post('/docs/visitor').send({ key });
    expect(again.body).toMatchObject({ key, workspace: first.body.workspace });
    const other = await request(app).post('/docs/visitor').send({ key: 'demo-pro' });
    expect(other.body.key).not.toBe('demo-pro');
    expect(other.body.workspace).not.toBe(first.body.workspace);
    const listed = await request(app).get('/__sandbox/workspaces').set(admin);
    const ids = (listed.body.workspaces as { id: string }[]).map((w) => w.id);
    expect(ids).toEqual(expect.arrayContaining([first.body.workspace, other.body.workspace]));
  });

  it('mints at most ten visitor keys a minute per address, then answers 429 with Retry-After', async () => {
    for (let i = 0; i < 10; i++) expect((await request(app).post('/docs/visitor').send({})).status).toBe(200);
    const refused = await request(app).post('/docs/visitor').send({});
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 60 });
    expect((await request(app).post('/docs/visitor').send({})).status).toBe(200);
  });

  it('refuses a visitor body that is not JSON', async () => {
    const res = await request(app).post('/docs/visitor').set('Content-Type', 'application/json').send('{not json');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed_json');
  });

  it('sends a browser that opens / or the base URL to the docs page, and leaves an API client alone', async () => {
    for (const path of ['/', '/v1', '/v1/']) {
      const res = await request(app).get(path).set('Accept', BROWSER_ACCEPT);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/docs');
      expect(res.headers.vary).toBe('Accept');
    }
    const client = await request(app).get('/').set('Accept', 'application/json');
    expect(client.status).toBe(404);
    expect(client.headers['content-type']).toMatch(/json/);
    const anything = await request(app).get('/v1').set('Accept', '*/*');
    expect(anything.status).not.toBe(302);
  });

  it('does not journal page requests or count them against anyone', async () => {
    await request(app).get('/docs');
    await request(app).get('/docs/openapi.json');
    const journal = await request(app).get('/__sandbox/requests').set(admin);
    expect(journal.body.requests ?? journal.body).toEqual([]);
  });

  it('serves the console page from the package, under the admin prefix, without the token (the page asks for it)', async () => {
    const res = await request(app).get('/__sandbox/console');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("style-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    const slash = await request(app).get('/__sandbox/console/');
    expect(slash.status).toBe(302);
    expect(slash.headers.location).toBe('/__sandbox/console');
    const script = await request(app).get('/__sandbox/console/console.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    // The sections in files of their own, and nothing else from the folder.
    for (const [name, type] of [
      ['webhooks.js', 'text/javascript; charset=utf-8'],
      ['webhooks.css', 'text/css; charset=utf-8'],
    ]) {
      const res = await request(app).get(`/__sandbox/console/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
    }
    expect((await request(app).get('/__sandbox/console/index.html')).status).toBe(404);
  });
});

describe('the pages, configured', () => {
  it('has no console without the admin API, and none when switched off', async () => {
    const closed = createApp(await testSandbox({ adminToken: null }));
    const none = await request(closed).get('/__sandbox/console');
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('route_not_found');
    const off = createApp(await testSandbox({ pages: { console: false } }));
    expect((await request(off).get('/__sandbox/console').set(admin)).status).toBe(404);
  });

  it('has no docs page and no redirect when docs is null', async () => {
    const app = createApp(await testSandbox({ pages: { docs: null } }));
    expect((await request(app).get('/docs')).status).toBe(404);
    expect((await request(app).get('/').set('Accept', BROWSER_ACCEPT)).status).toBe(404);
  });

  it('serves the docs page at another path, and mints keys on the configured plan', async () => {
    const app = createApp(await testSandbox({ pages: { docs: '/api-docs', visitorPlan: 'pro' } }));
    const page = await request(app).get('/api-docs');
    expect(page.text).toContain('<base href="/api-docs/" />');
    expect((await request(app).post('/api-docs/visitor').send({})).body.plan).toBe('pro');
    expect((await request(app).get('/').set('Accept', BROWSER_ACCEPT)).headers.location).toBe('/api-docs');
  });

  it('mints no key when visitor keys are off: the visitor pastes one', async () => {
    const app = createApp(await testSandbox({ pages: { visitorKeys: false } }));
    const res = await request(app).post('/docs/visitor').send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key: null, plan: null, authorizations: [{ scheme: 'bearerAuth', use: 'value' }] });
  });

  it('tells the page how each security scheme carries the key', async () => {
    const app = createApp(await testSandbox({ spec: join(DOCUMENTS, 'security-schemes.yaml'), fixtures: null }));
    const res = await request(app).post('/docs/visitor').send({});
    expect(res.body.authorizations).toEqual([
      { scheme: 'bearer', use: 'value' },
      { scheme: 'basic', use: 'basic' },
      { scheme: 'headerKey', use: 'value' },
      { scheme: 'queryKey', use: 'value' },
      { scheme: 'cookieKey', use: 'value' },
      { scheme: 'oauth', use: 'token' },
      { scheme: 'oidc', use: 'token' },
    ]);
  });

  it('points the OAuth 2 token URLs and OpenID Connect discovery at the sandbox, which answers the discovery', async () => {
    const app = createApp(await testSandbox({ spec: join(DOCUMENTS, 'security-schemes.yaml'), fixtures: null }));
    const doc = await request(app).get('/docs/openapi.json').set('Host', 'h:1');
    const schemes = doc.body.components.securitySchemes;
    expect(schemes.oauth.flows.clientCredentials).toEqual({
      tokenUrl: 'http://h:1/__sandbox/oauth/token',
      scopes: { 'pets:read': 'read pets', 'pets:write': 'change pets' },
    });
    expect(schemes.oidc).toEqual({ type: 'openIdConnect', openIdConnectUrl: 'http://h:1/docs/openid-configuration' });
    expect(schemes.headerKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    const discovery = await request(app).get('/docs/openid-configuration').set('Host', 'h:1');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({ issuer: 'http://h:1', token_endpoint: 'http://h:1/__sandbox/oauth/token' });
    const issued = await request(app).post('/docs/visitor').send({});
    const token = await request(app)
      .post('/__sandbox/oauth/token')
      .auth(issued.body.key as string, '')
      .type('form')
      .send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));
  });

  it('shows a 3.0 document as written (not as the validator reads it), and a Swagger 2.0 one converted', async () => {
    const library = createApp(await testSandbox({ spec: join(DOCUMENTS, 'library.yaml'), fixtures: null, basePath: '/lib' }));
    const doc = await request(library).get('/docs/openapi.json').set('Host', 'h');
    expect(doc.body.openapi).toBe('3.0.3');
    expect(JSON.stringify(doc.body)).toContain('"nullable":true');
    expect(doc.body.servers).toEqual([{ url: 'http://h/lib', description: 'This sandbox' }]);
    const shop = createApp(await testSandbox({ spec: join(DOCUMENTS, 'swagger2-shop.yaml'), fixtures: null }));
    const converted = await request(shop).get('/docs/openapi.json');
    expect(converted.body.openapi).toMatch(/^3\.0/);
    expect(converted.body.swagger).toBeUndefined();
  });

  it('leaves a path the document claims to the API', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pages-'));
    try {
      const spec = join(dir, 'docs.yaml');
      await writeFile(spec, `openapi: 3.1.0\ninfo: { title: Docs API, version: '1' }\npaths:\n${pingOperation('docs')}`);
      const app = createApp(await testSandbox({ spec, fixtures: null }));
      const res = await request(app).get('/docs');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows the new document after a reload', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pages-'));
    try {
      const spec = join(dir, 'petstore.yaml');
      await writeFile(spec, await readFile(join(PACKAGE_ROOT, 'openapi/petstore.yaml'), 'utf8'));
      const sandbox = await testSandbox({ spec });
      const app = createApp(sandbox);
      expect(Object.keys((await request(app).get('/docs/openapi.json')).body.paths as object)).not.toContain('/ping');
      await writeFile(spec, (await readFile(spec, 'utf8')).replace(/^paths:\n/m, `paths:\n${pingOperation()}`));
      expect((await sandbox.reload()).ok).toBe(true);
      const after = await request(app).get('/docs/openapi.json');
      expect(Object.keys(after.body.paths as object)).toContain('/ping');
      expect(after.headers['x-sandbox-generation']).toBe('2');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names its mount prefix when mounted in another Express app', async () => {
    const outer = express();
    outer.use('/mock', createApp(await testSandbox()));
    const page = await request(outer).get('/mock/docs');
    expect(page.text).toContain('<base href="/mock/docs/" />');
    const doc = await request(outer).get('/mock/docs/openapi.json').set('Host', 'h');
    expect(doc.body.servers[0].url).toBe('http://h/mock/v1');
    const root = await request(outer).get('/mock/').set('Accept', BROWSER_ACCEPT);
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/mock/docs');
  });
});
