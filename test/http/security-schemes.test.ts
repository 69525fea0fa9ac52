import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { ADMIN_TOKEN, EDGES } from '../support/sandbox.js';
import { securitySandbox } from '../support/security-sandbox.js';

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');
const basic = (user: string, password: string): string => `Basic ${b64(`${user}:${password}`)}`;

const BEARER = 'Bearer realm="understudy"';
const BASIC = 'Basic realm="understudy", charset="UTF-8"';

interface Row {
  readonly name: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly status: number;
  readonly code?: string;
  /** The exact `WWW-Authenticate`, or null for none. */
  readonly challenge?: string | null;
  /** A fragment the `WWW-Authenticate` contains. */
  readonly challengeHas?: string;
}

const auth = (value: string) => ({ Authorization: value });

// Each scheme × (missing, malformed, wrong, right, right but short of a scope).
const rows: readonly Row[] = [
  // http bearer (RFC 6750)
  { name: 'bearer: nothing', path: '/bearer', status: 401, code: 'missing_credentials', challenge: BEARER },
  {
    name: 'bearer: a token with a space',
    path: '/bearer',
    headers: auth('Bearer a b'),
    status: 401,
    code: 'malformed_credentials',
    challengeHas: 'error="invalid_request"',
  },
  {
    name: 'bearer: Basic instead',
    path: '/bearer',
    headers: auth(basic('alice', 'wonder:land')),
    status: 401,
    code: 'malformed_credentials',
    challengeHas: 'error="invalid_request"',
  },
  {
    name: 'bearer: an unknown key',
    path: '/bearer',
    headers: auth('Bearer nope'),
    status: 401,
    code: 'invalid_api_key',
    challengeHas: 'error="invalid_token"',
  },
  { name: 'bearer: a key', path: '/bearer', headers: auth('Bearer all-key'), status: 200 },
  { name: 'bearer: the scheme in any case', path: '/bearer', headers: auth('bEARer reader-key'), status: 200 },
  // http basic (RFC 7617)
  { name: 'basic: nothing', path: '/basic', status: 401, code: 'missing_credentials', challenge: BASIC },
  { name: 'basic: not base64', path: '/basic', headers: auth('Basic !!!!'), status: 401, code: 'malformed_credentials', challenge: BASIC },
  { name: 'basic: non-canonical base64', path: '/basic', headers: auth('Basic YR=='), status: 401, code: 'malformed_credentials' },
  {
    name: 'basic: not UTF-8',
    path: '/basic',
    headers: auth(`Basic ${b64(Buffer.from([0x61, 0xff, 0x3a, 0x62]))}`),
    status: 401,
    code: 'malformed_credentials',
  },
  { name: 'basic: no colon', path: '/basic', headers: auth(`Basic ${b64('alice')}`), status: 401, code: 'malformed_credentials' },
  {
    name: 'basic: a control character',
    path: '/basic',
    headers: auth(basic('alice', 'wonder\u0001land')),
    status: 401,
    code: 'malformed_credentials',
  },
  {
    name: 'basic: Bearer instead',
    path: '/basic',
    headers: auth('Bearer all-key'),
    status: 401,
    code: 'malformed_credentials',
    challenge: BASIC,
  },
  {
    name: 'basic: a wrong password',
    path: '/basic',
    headers: auth(basic('alice', 'wonder')),
    status: 401,
    code: 'invalid_api_key',
    challenge: BASIC,
  },
  { name: 'basic: the key with a password', path: '/basic', headers: auth(basic('all-key', 'x')), status: 401, code: 'invalid_api_key' },
  { name: 'basic: username and a password with a colon', path: '/basic', headers: auth(basic('alice', 'wonder:land')), status: 200 },
  { name: 'basic: the key as user-id, empty password', path: '/basic', headers: auth(basic('all-key', '')), status: 200 },
  { name: 'basic: the scheme in any case', path: '/basic', headers: auth(`bASIC ${b64('reader:reader-pass')}`), status: 200 },
  // another http scheme, by name
  { name: 'Digest: nothing', path: '/digest', status: 401, code: 'missing_credentials', challenge: 'Digest realm="understudy"' },
  { name: 'Digest: nothing after the name', path: '/digest', headers: auth('Digest'), status: 401, code: 'malformed_credentials' },
  { name: 'Digest: Bearer instead', path: '/digest', headers: auth('Bearer all-key'), status: 401, code: 'malformed_credentials' },
  { name: 'Digest: an unknown key', path: '/digest', headers: auth('Digest nope'), status: 401, code: 'invalid_api_key' },
  { name: 'Digest: a key', path: '/digest', headers: auth('digest all-key'), status: 200 },
  // apiKey in a header, the query, a cookie: no HTTP challenge
  { name: 'header key: nothing', path: '/header', status: 401, code: 'missing_credentials', challenge: null },
  { name: 'header key: empty', path: '/header', headers: { 'X-API-Key': '' }, status: 401, code: 'missing_credentials' },
  { name: 'header key: unknown', path: '/header', headers: { 'X-API-Key': 'nope' }, status: 401, code: 'invalid_api_key', challenge: null },
  { name: 'header key: any case of the name', path: '/header', headers: { 'x-api-KEY': 'all-key' }, status: 200 },
  { name: 'query key: nothing', path: '/query', status: 401, code: 'missing_credentials' },
  { name: 'query key: unknown', path: '/query?api_key=nope', status: 401, code: 'invalid_api_key' },
  { name: 'query key: a key', path: '/query?api_key=all-key', status: 200 },
  { name: 'cookie key: nothing', path: '/cookie', status: 401, code: 'missing_credentials', challenge: null },
  { name: 'cookie key: another cookie', path: '/cookie', headers: { Cookie: 'theme=dark' }, status: 401, code: 'missing_credentials' },
  { name: 'cookie key: unknown', path: '/cookie', headers: { Cookie: 'session=nope' }, status: 401, code: 'invalid_api_key' },
  { name: 'cookie key: among others', path: '/cookie', headers: { Cookie: 'theme=dark; session=all-key; x=1' }, status: 200 },
  { name: 'cookie key: quoted', path: '/cookie', headers: { Cookie: 'session="reader-key"' }, status: 200 },
  // OAuth 2 and OpenID Connect: bearer tokens, scopes checked (RFC 6750 §3.1)
  { name: 'oauth: nothing', path: '/oauth-read', status: 401, code: 'missing_credentials', challenge: BEARER },
  { name: 'oauth: malformed', path: '/oauth-read', headers: auth('Bearer "x"'), status: 401, code: 'malformed_credentials' },
  {
    name: 'oauth: unknown',
    path: '/oauth-read',
    headers: auth('Bearer nope'),
    status: 401,
    code: 'invalid_api_key',
    challengeHas: 'error="invalid_token"',
  },
  { name: 'oauth: the scope it needs', path: '/oauth-read', headers: auth('Bearer reader-key'), status: 200 },
  { name: 'oauth: a key without scopes has them all', path: '/oauth-write', headers: auth('Bearer all-key'), status: 200 },
  {
    name: 'oauth: short of a scope',
    path: '/oauth-write',
    headers: auth('Bearer reader-key'),
    status: 403,
    code: 'insufficient_scope',
    challenge:
      'Bearer realm="understudy", error="insufficient_scope", error_description="The credentials lack the scope pets:write this operation requires", scope="pets:read pets:write"',
  },
  { name: 'oidc: nothing', path: '/oidc', status: 401, code: 'missing_credentials', challenge: BEARER },
  { name: 'oidc: a key with every scope', path: '/oidc', headers: auth('Bearer all-key'), status: 200 },
  {
    name: 'oidc: short of a scope',
    path: '/oidc',
    headers: auth('Bearer reader-key'),
    status: 403,
    code: 'insufficient_scope',
    challengeHas: 'scope="openid"',
  },
  // OR of requirements: any one suffices; the most helpful failure is reported
  { name: 'either: the header key', path: '/either', headers: { 'X-API-Key': 'all-key' }, status: 200 },
  { name: 'either: basic', path: '/either', headers: auth(basic('reader', 'reader-pass')), status: 200 },
  { name: 'either: nothing (every HTTP challenge)', path: '/either', status: 401, code: 'missing_credentials', challenge: BASIC },
  {
    name: 'either: a wrong key beats nothing sent',
    path: '/either',
    headers: { 'X-API-Key': 'nope' },
    status: 401,
    code: 'invalid_api_key',
  },
  {
    name: 'either: a wrong password beats the other scheme',
    path: '/either',
    headers: { 'X-API-Key': 'nope', ...auth(basic('alice', 'x')) },
    status: 401,
    code: 'invalid_api_key',
    challenge: BASIC,
  },
  { name: 'either: Bearer instead of Basic', path: '/either', headers: auth('Bearer all-key'), status: 401, code: 'malformed_credentials' },
  // several HTTP schemes: one challenge each (RFC 9110 §11.6.1), the reported failure's with its error
  {
    name: 'any http: nothing',
    path: '/any-http',
    status: 401,
    code: 'missing_credentials',
    challenge: `${BEARER}, ${BASIC}, Digest realm="understudy"`,
  },
  {
    name: 'any http: an unknown bearer token',
    path: '/any-http',
    headers: auth('Bearer nope'),
    status: 401,
    code: 'invalid_api_key',
    challenge: `${BEARER}, error="invalid_token", error_description="The API key is not valid", ${BASIC}, Digest realm="understudy"`,
  },
  { name: 'any http: a wrong basic password', path: '/any-http', headers: auth(basic('alice', 'x')), status: 401, code: 'invalid_api_key' },
  { name: 'any http: a key as Digest', path: '/any-http', headers: auth('Digest reader-key'), status: 200 },
  // AND within a requirement: every scheme must pass
  { name: 'both: key and token', path: '/both', headers: { 'X-API-Key': 'all-key', ...auth('Bearer reader-key') }, status: 200 },
  {
    name: 'both: only the key',
    path: '/both',
    headers: { 'X-API-Key': 'all-key' },
    status: 401,
    code: 'missing_credentials',
    challenge: BEARER,
  },
  { name: 'both: only the token', path: '/both', headers: auth('Bearer all-key'), status: 401, code: 'missing_credentials' },
  {
    name: 'both: a wrong key, a right token',
    path: '/both',
    headers: { 'X-API-Key': 'nope', ...auth('Bearer all-key') },
    status: 401,
    code: 'invalid_api_key',
  },
  // {} makes credentials optional; no requirement makes the operation public
  { name: 'optional: nothing', path: '/optional', status: 200 },
  { name: 'optional: a wrong token is not refused', path: '/optional', headers: auth('Bearer nope'), status: 200 },
  { name: 'public: nothing', path: '/public', status: 200 },
  // a scheme the sandbox cannot check (mutualTLS) is met without it; the others of its requirement still count
  { name: 'mutualTLS only: nothing', path: '/mtls', status: 200 },
  { name: 'mutualTLS and a key: no key', path: '/mtls-and-key', status: 401, code: 'missing_credentials' },
  { name: 'mutualTLS and a key: the key', path: '/mtls-and-key', headers: { 'X-API-Key': 'reader-key' }, status: 200 },
];

describe.each(EDGES)('every security scheme through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await securitySandbox();
    app = make(sandbox);
  });

  it.each(rows)('$name → $status $code', async (row) => {
    const res = await request(app)
      .get(`/api${row.path}`)
      .set(row.headers ?? {});
    expect(res.status).toBe(row.status);
    if (row.status === 200) expect(res.body).toEqual({ ok: true });
    else expect(res.body).toEqual({ code: row.code, message: expect.any(String), status: row.status });
    if (row.challenge !== undefined) expect(res.headers['www-authenticate']).toBe(row.challenge ?? undefined);
    if (row.challengeHas !== undefined) expect(res.headers['www-authenticate']).toContain(row.challengeHas);
  });

  it('lists every way to authenticate when nothing was sent', async () => {
    const either = await request(app).get('/api/either');
    expect(either.body.message).toBe(
      'Missing credentials: send the API key in the header "x-api-key", or Authorization: Basic <base64 of user:password>',
    );
    const both = await request(app).get('/api/both');
    expect(both.body.message).toBe('Missing credentials: send the API key in the header "x-api-key" and Authorization: Bearer <API_KEY>');
  });

  it('counts a key against its own quota however it is presented', async () => {
    const remaining = async (path: string, headers: Record<string, string>): Promise<[number, string, string]> => {
      const res = await request(app).get(`/api${path}`).set(headers);
      return [res.status, res.headers['x-ratelimit-limit'] as string, res.headers['x-ratelimit-remaining'] as string];
    };
    // all-key is on pro (300 a minute); each presentation takes one from the same window.
    expect(await remaining('/bearer', auth('Bearer all-key'))).toEqual([200, '300', '299']);
    expect(await remaining('/basic', auth(basic('alice', 'wonder:land')))).toEqual([200, '300', '298']);
    expect(await remaining('/basic', auth(basic('all-key', '')))).toEqual([200, '300', '297']);
    expect(await remaining('/cookie', { Cookie: 'session=all-key' })).toEqual([200, '300', '296']);
    expect(await remaining('/query?api_key=all-key', {})).toEqual([200, '300', '295']);
    expect(await remaining('/digest', auth('Digest all-key'))).toEqual([200, '300', '294']);
    // reader-key is on free (60): a 403 short of a scope is counted against the reader, not the address.
    expect(await remaining('/oauth-read', auth('Bearer reader-key'))).toEqual([200, '60', '59']);
    expect(await remaining('/oauth-write', auth('Bearer reader-key'))).toEqual([403, '60', '58']);
    // A valid key sent to a public operation still counts against the key.
    expect(await remaining('/public', auth(basic('reader', 'reader-pass')))).toEqual([200, '60', '57']);
  });

  it('never lets a credential reach the journal or an error message', async () => {
    const sent = [
      { path: '/basic', headers: auth(basic('alice', 'wonder:land')) },
      { path: '/basic', headers: auth(basic('alice', 'secret-guess')) },
      { path: '/cookie', headers: { Cookie: 'session=all-key' } },
      { path: '/cookie', headers: { Cookie: 'session=cookie-guess' } },
      { path: '/query?api_key=all-key&x=1', headers: {} },
      { path: '/query?api%5Fkey=query-guess', headers: {} },
      { path: '/digest', headers: auth('Digest digest-guess') },
      { path: '/oauth-write', headers: auth('Bearer reader-key') },
    ];
    const bodies: string[] = [];
    for (const { path, headers } of sent) bodies.push(JSON.stringify((await request(app).get(`/api${path}`).set(headers)).body));
    const journal = await request(app)
      .get('/__sandbox/requests')
      .set(auth(`Bearer ${ADMIN_TOKEN}`));
    expect(journal.status).toBe(200);
    const text = JSON.stringify(journal.body) + bodies.join('');
    expect(text).toContain('api_key=[redacted]&x=1');
    for (const secret of [
      'all-key',
      'reader-key',
      'wonder',
      'secret-guess',
      'cookie-guess',
      'query-guess',
      'digest-guess',
      b64('alice:wonder:land'),
    ])
      expect(text).not.toContain(secret);
  });
});

describe('schemes at start', () => {
  it('starts with a warning naming a scheme the sandbox cannot check', async () => {
    const sandbox = await securitySandbox();
    expect(sandbox.model.warnings).toEqual([
      '#/components/securitySchemes/mtls: security scheme "mtls" (mutualTLS) cannot be checked by the sandbox; requirements naming it are met without it',
    ]);
  });
});
