import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, EDGES } from '../support/sandbox.js';
import { securitySandbox } from '../support/security-sandbox.js';

const FORM = 'application/x-www-form-urlencoded';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'wonder:land');

interface ErrorRow {
  readonly name: string;
  readonly method?: 'get' | 'post';
  readonly type?: string;
  readonly body?: string;
  readonly authorization?: string;
  readonly status: number;
  readonly error?: string;
  readonly code: string;
}

// RFC 6749 §5.2: every refusal is both an OAuth error and the sandbox's Error shape.
const errors: readonly ErrorRow[] = [
  { name: 'GET', method: 'get', status: 405, code: 'method_not_allowed' },
  {
    name: 'a JSON body',
    type: 'application/json',
    body: '{"grant_type":"client_credentials"}',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
  {
    name: 'no grant_type',
    body: 'scope=pets%3Aread',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
  {
    name: 'an empty grant_type (absent)',
    body: 'grant_type=',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
  {
    name: 'grant_type twice',
    body: 'grant_type=client_credentials&grant_type=client_credentials',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
  {
    name: 'the password grant',
    body: 'grant_type=password&username=a&password=b',
    authorization: ALICE,
    status: 400,
    error: 'unsupported_grant_type',
    code: 'unsupported_grant_type',
  },
  { name: 'no client authentication', body: 'grant_type=client_credentials', status: 401, error: 'invalid_client', code: 'invalid_client' },
  {
    name: 'a wrong client secret',
    body: 'grant_type=client_credentials',
    authorization: basic('alice', 'nope'),
    status: 401,
    error: 'invalid_client',
    code: 'invalid_client',
  },
  {
    name: 'an unknown client_id in the body',
    body: 'grant_type=client_credentials&client_id=nobody',
    status: 401,
    error: 'invalid_client',
    code: 'invalid_client',
  },
  {
    name: 'malformed basic',
    body: 'grant_type=client_credentials',
    authorization: 'Basic !!!!',
    status: 401,
    error: 'invalid_client',
    code: 'invalid_client',
  },
  {
    name: 'two client authentications',
    body: 'grant_type=client_credentials&client_id=alice&client_secret=wonder%3Aland',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
  {
    name: 'a scope the client lacks',
    body: 'grant_type=client_credentials&scope=pets%3Awrite',
    authorization: basic('reader', 'reader-pass'),
    status: 400,
    error: 'invalid_scope',
    code: 'invalid_scope',
  },
  {
    name: 'a malformed scope',
    body: 'grant_type=client_credentials&scope=a%22b',
    authorization: ALICE,
    status: 400,
    error: 'invalid_request',
    code: 'malformed_request',
  },
];

describe.each(EDGES)('the OAuth 2 token endpoint through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await securitySandbox();
    app = make(sandbox);
  });

  const mint = (body: string, authorization?: string, path = '/__sandbox/oauth/token') => {
    const req = request(app).post(path).set('Content-Type', FORM);
    return (authorization ? req.set('Authorization', authorization) : req).send(body);
  };

  it('mints with HTTP basic client authentication; the token works until it expires on the sandbox clock', async () => {
    const minted = await mint('grant_type=client_credentials', ALICE);
    expect(minted.status).toBe(200);
    expect(minted.headers['cache-control']).toBe('no-store');
    expect(minted.headers.pragma).toBe('no-cache');
    expect(minted.body).toEqual({ access_token: expect.stringMatching(/^ut_[A-Za-z0-9_-]+$/), token_type: 'Bearer', expires_in: 3600 });
    const token = minted.body.access_token as string;
    const call = () => request(app).get('/api/oauth-write').set('Authorization', `Bearer ${token}`);
    const first = await call();
    expect(first.status).toBe(200);
    // The token is alice's key: the pro plan's quota.
    expect(first.headers['x-ratelimit-limit']).toBe('300');
    sandbox.clock.advance(3599_000);
    expect((await call()).status).toBe(200);
    sandbox.clock.advance(1000);
    const expired = await call();
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ code: 'invalid_api_key', message: 'The access token has expired', status: 401 });
    expect(expired.headers['www-authenticate']).toBe(
      'Bearer realm="understudy", error="invalid_token", error_description="The access token has expired"',
    );
  });

  it('counts the token request and every request with the minted token against the client key', async () => {
    const minted = await mint('grant_type=client_credentials', ALICE);
    expect(minted.headers['x-ratelimit-limit']).toBe('300');
    expect(minted.headers['x-ratelimit-remaining']).toBe('299');
    const token = minted.body.access_token as string;
    const withKey = await request(app).get('/api/bearer').set('Authorization', 'Bearer all-key');
    expect(withKey.headers['x-ratelimit-remaining']).toBe('298');
    const withToken = await request(app).get('/api/bearer').set('Authorization', `Bearer ${token}`);
    expect(withToken.headers['x-ratelimit-remaining']).toBe('297');
  });

  it('refuses a token request over the plan with a 429 and mints nothing; an unauthenticated one counts against the address', async () => {
    const reader = basic('reader', 'reader-pass');
    for (let i = 0; i < 60; i++) expect((await mint('grant_type=client_credentials', reader)).status).toBe(200);
    const over = await mint('grant_type=client_credentials', reader);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(over.body.access_token).toBeUndefined();
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    // The reader's key is spent for the API too: the token endpoint and the API share its quota.
    expect((await request(app).get('/api/bearer').set('Authorization', 'Bearer reader-key')).status).toBe(429);
    // A client that does not authenticate is counted per address, under the anonymous plan.
    const stranger = await mint('grant_type=client_credentials', basic('nobody', 'nothing'));
    expect(stranger.status).toBe(401);
    expect(stranger.headers['x-ratelimit-limit']).toBe('60');
  });

  it('grants the scopes asked for, within the key’s, and checks them on use', async () => {
    const narrow = await mint('grant_type=client_credentials&scope=pets%3Aread', ALICE);
    expect(narrow.body.scope).toBe('pets:read');
    const token = narrow.body.access_token as string;
    expect((await request(app).get('/api/oauth-read').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const write = await request(app).get('/api/oauth-write').set('Authorization', `Bearer ${token}`);
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('insufficient_scope');
    expect(write.headers['www-authenticate']).toContain('error="insufficient_scope"');
    // A key with configured scopes gets them all when it asks for none.
    const reader = await mint('grant_type=client_credentials', basic('reader', 'reader-pass'));
    expect(reader.body.scope).toBe('pets:read');
  });

  it.each([
    ['client_id and client_secret in the body', 'grant_type=client_credentials&client_id=alice&client_secret=wonder%3Aland', undefined],
    ['the key as client_id with no secret', 'grant_type=client_credentials&client_id=all-key', undefined],
    ['the key as basic user-id with an empty password', 'grant_type=client_credentials', basic('all-key', '')],
    ['form-encoded basic credentials (RFC 6749 §2.3.1)', 'grant_type=client_credentials', basic('alice', 'wonder%3Aland')],
  ])('authenticates the client with %s', async (_name, body, authorization) => {
    const res = await mint(body, authorization);
    expect(res.status).toBe(200);
    expect(
      (
        await request(app)
          .get('/api/oidc')
          .set('Authorization', `Bearer ${res.body.access_token as string}`)
      ).status,
    ).toBe(200);
  });

  it('is served at the document’s relative tokenUrl too', async () => {
    const res = await mint('grant_type=client_credentials', ALICE, '/oauth/token');
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it.each(errors)('refuses $name: $status $error', async (row) => {
    const base = row.method === 'get' ? request(app).get('/__sandbox/oauth/token') : request(app).post('/__sandbox/oauth/token');
    const req = row.authorization ? base.set('Authorization', row.authorization) : base;
    const res = row.method === 'get' ? await req : await req.set('Content-Type', row.type ?? FORM).send(row.body ?? '');
    expect(res.status).toBe(row.status);
    const expected = { code: row.code, message: expect.any(String), status: row.status };
    expect(res.body).toEqual(row.error ? { error: row.error, error_description: expect.any(String), ...expected } : expected);
    if (row.error === 'invalid_client') expect(res.headers['www-authenticate']).toBe('Basic realm="understudy", charset="UTF-8"');
    if (row.error) expect(res.headers['cache-control']).toBe('no-store');
    if (row.status === 405) expect(res.headers.allow).toBe('POST');
  });

  it('forgets minted tokens on reset', async () => {
    const token = (await mint('grant_type=client_credentials', ALICE)).body.access_token as string;
    expect((await request(app).post('/__sandbox/reset').set('Authorization', `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
    expect((await request(app).get('/api/bearer').set('Authorization', `Bearer ${token}`)).status).toBe(401);
  });

  it('keeps client secrets and tokens out of the journal', async () => {
    const token = (await mint('grant_type=client_credentials', ALICE)).body.access_token as string;
    await mint('grant_type=client_credentials&client_id=alice&client_secret=guess-secret');
    await request(app).get('/api/bearer').set('Authorization', `Bearer ${token}`);
    const journal = await request(app).get('/__sandbox/requests').set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    const text = JSON.stringify(journal.body);
    expect(text).toContain('/__sandbox/oauth/token');
    for (const secret of [token, 'wonder', 'guess-secret', 'all-key']) expect(text).not.toContain(secret);
  });
});

describe('the token endpoint without the admin API', () => {
  it('is still served under /__sandbox/oauth/token', async () => {
    const app = EDGES[0]!.make(await securitySandbox({ adminToken: null }));
    const res = await request(app)
      .post('/__sandbox/oauth/token')
      .set('Content-Type', FORM)
      .set('Authorization', ALICE)
      .send('grant_type=client_credentials');
    expect(res.status).toBe(200);
    expect((await request(app).get('/__sandbox/requests')).status).toBe(404);
  });
});
