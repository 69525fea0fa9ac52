import request, { type Response } from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, auth, EDGES, testSandbox } from '../support/sandbox.js';

/**
 * Forcing an answer (docs/control-surface.md, "Forcing an answer: Prefer", issue 11 §1), as a client sees it through
 * both HTTP edges: `Prefer` (RFC 7240, Prism's code/example/dynamic/seed), Postman's headers and the
 * `__code` query fallbacks; what comes first (route, key, limits, validation); the 429 of the key's
 * real windows; the store left alone or written; the journal. testSandbox checks every answer
 * against the document, so a forced answer that broke it would be a 500: none may be.
 */

const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const FORCED = 'test/documents/forced-answers.yaml';
/** An operation with no state behind it (getPlain: a JSON answer with one named example). */
const FAULTS = 'test/documents/faults.yaml';

const NOT_FOUND_EXAMPLE = { code: 'resource_not_found', message: 'No pets with id 999', status: 404 };
const BAD_REQUEST_EXAMPLE = {
  code: 'validation_failed',
  message: 'Invalid request: body.name is required',
  status: 400,
  details: [{ location: 'body.name', message: 'is required' }],
};
const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const CREATED_EXAMPLE = { id: 101, name: 'Rex', categoryId: 1, status: 'available' };
/** What getPet declares, as a 422 preference_unsatisfiable lists it. */
const GET_PET_DECLARES = [
  { location: 'responses.200', message: 'declared, examples: pet' },
  { location: 'responses.400', message: 'declared, examples: invalid' },
  { location: 'responses.401', message: 'declared, examples: missing' },
  { location: 'responses.404', message: 'declared, examples: notFound' },
  { location: 'responses.429', message: 'declared, examples: limited' },
  { location: 'responses.default', message: 'declared, examples: error' },
];

interface Entry {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly code?: string;
  readonly applied?: { readonly preference?: string };
  readonly change?: string;
}

/** The codes of the sandbox's own failures: a broken answer (checkResponses) or a bug. */
const SANDBOX_FAILURES: readonly string[] = ['response_contract_violation', 'internal_error'];

type App = Parameters<typeof request>[0];

interface ForcedRow {
  readonly name: string;
  /** GET this URL (on getPet unless it says otherwise). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;
  /** Preference-Applied, or undefined when the answer must carry none. */
  readonly applied: string | undefined;
  readonly body: unknown;
}

// prettier-ignore
const FORCED_ROWS: readonly ForcedRow[] = [
  { name: 'Prefer: code=404 → the declared 404 and its example', url: '/v1/pets/1', headers: { Prefer: 'code=404' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: 'Prefer: code=400 → the declared 400 (a valid request)', url: '/v1/pets/1', headers: { Prefer: 'code=400' }, status: 400, applied: 'code=400', body: BAD_REQUEST_EXAMPLE },
  { name: 'Prefer: example=pet → the named example of the success response, in place of the stored record', url: '/v1/pets/1', headers: { Prefer: 'example=pet' }, status: 200, applied: 'example=pet', body: PET_EXAMPLE },
  { name: 'Prefer: code=404, example=notFound → both named', url: '/v1/pets/1', headers: { Prefer: 'code=404, example=notFound' }, status: 404, applied: 'code=404, example=notFound', body: NOT_FOUND_EXAMPLE },
  { name: 'a quoted value', url: '/v1/pets/1', headers: { Prefer: 'code="404"' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: 'a preference name in upper case', url: '/v1/pets/1', headers: { Prefer: 'CODE=404' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: 'unknown tokens and parameters after ; are ignored', url: '/v1/pets/1', headers: { Prefer: 'respond-async, wait=10, handling=lenient, code=404;foo=bar' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: 'only unknown tokens: the ordinary answer', url: '/v1/pets/1', headers: { Prefer: 'return=minimal, foo' }, status: 200, applied: undefined, body: { id: 1 } },
  { name: 'a preference given twice counts as first given', url: '/v1/pets/1', headers: { Prefer: 'code=404, code=400' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: '?__code=404 without a Prefer header', url: '/v1/pets/1?__code=404', headers: {}, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: '?__code=404&__example=notFound without a Prefer header', url: '/v1/pets/1?__example=notFound&__code=404', headers: {}, status: 404, applied: 'code=404, example=notFound', body: NOT_FOUND_EXAMPLE },
  { name: '?__code=404 is not read when a Prefer header is there', url: '/v1/pets/1?__code=404', headers: { Prefer: 'return=minimal' }, status: 200, applied: undefined, body: { id: 1 } },
  { name: "Postman's x-mock-response-code", url: '/v1/pets/1', headers: { 'x-mock-response-code': '404' }, status: 404, applied: 'code=404', body: NOT_FOUND_EXAMPLE },
  { name: "Postman's x-mock-response-code and x-mock-response-name", url: '/v1/pets/1', headers: { 'x-mock-response-code': '404', 'x-mock-response-name': 'notFound' }, status: 404, applied: 'code=404, example=notFound', body: NOT_FOUND_EXAMPLE },
  { name: 'Prefer comes before x-mock-response-code', url: '/v1/pets/1', headers: { Prefer: 'code=400', 'x-mock-response-code': '404' }, status: 400, applied: 'code=400', body: BAD_REQUEST_EXAMPLE },
  { name: 'x-mock-response-code comes before ?__code', url: '/v1/pets/1?__code=404', headers: { 'x-mock-response-code': '400' }, status: 400, applied: 'code=400', body: BAD_REQUEST_EXAMPLE },
  { name: 'dynamic=true on a stateful read: the normal stateful answer, nothing applied', url: '/v1/pets/1', headers: { Prefer: 'dynamic=true, seed=42' }, status: 200, applied: undefined, body: { id: 1 } },
];

interface MalformedRow {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Where the 400's single detail says the bad value was. */
  readonly location: string;
}

// prettier-ignore
const MALFORMED_ROWS: readonly MalformedRow[] = [
  { name: 'code=abc', url: '/v1/pets/1', headers: { Prefer: 'code=abc' }, location: 'header.prefer' },
  { name: 'code=600', url: '/v1/pets/1', headers: { Prefer: 'code=600' }, location: 'header.prefer' },
  { name: 'code=4040', url: '/v1/pets/1', headers: { Prefer: 'code=4040' }, location: 'header.prefer' },
  { name: 'code=404 followed by junk', url: '/v1/pets/1', headers: { Prefer: 'code=404 extra' }, location: 'header.prefer' },
  { name: 'example= with no name', url: '/v1/pets/1', headers: { Prefer: 'example=' }, location: 'header.prefer' },
  { name: 'dynamic=maybe', url: '/v1/pets/1', headers: { Prefer: 'dynamic=maybe' }, location: 'header.prefer' },
  { name: 'seed=-1', url: '/v1/pets/1', headers: { Prefer: 'seed=-1' }, location: 'header.prefer' },
  { name: 'delay=abc', url: '/v1/pets/1', headers: { Prefer: 'delay=abc' }, location: 'header.prefer' },
  { name: 'fault=explode', url: '/v1/pets/1', headers: { Prefer: 'fault=explode' }, location: 'header.prefer' },
  { name: 'x-mock-response-code: abc', url: '/v1/pets/1', headers: { 'x-mock-response-code': 'abc' }, location: 'header.x-mock-response-code' },
  { name: '?__code=abc', url: '/v1/pets/1?__code=abc', headers: {}, location: 'query.__code' },
  { name: '?__dynamic=yes', url: '/v1/pets/1?__dynamic=yes', headers: {}, location: 'query.__dynamic' },
];

describe.each(EDGES)('Prefer and its aliases, through the $name', ({ make }) => {
  let app: App;
  beforeEach(async () => {
    app = make(await testSandbox()) as App;
  });

  const journal = async (query = ''): Promise<Entry[]> => {
    const res = await request(app).get(`/__sandbox/requests${query}`).set(ADMIN);
    expect(res.status).toBe(200);
    return (res.body as Entry[]).filter((e) => !e.path.startsWith('/__sandbox'));
  };

  // Every answer is checked against the document (checkResponses): none may have broken it, and the
  // sandbox may not have failed (a forced 500 or 503 is fine; the sandbox's own 500 is not).
  afterEach(async () => {
    const failed = (await journal('?limit=1000')).filter((e) => e.code !== undefined && SANDBOX_FAILURES.includes(e.code));
    expect(failed).toEqual([]);
  });

  it.each(FORCED_ROWS)('$name → $status', async (row) => {
    const res = await request(app).get(row.url).set(auth()).set(row.headers);
    expect(res.status).toBe(row.status);
    expect(res.headers['preference-applied']).toBe(row.applied);
    // Caches must key on the preference when one was applied (RFC 7240 §2).
    expect(res.headers.vary).toBe(row.applied === undefined ? undefined : 'Prefer');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toMatchObject(row.body as object);
    // The answer keeps every header the sandbox sends on its operation.
    expect(res.headers['x-ratelimit-remaining']).toBe('4999');
    expect(res.headers.deprecation).toBeDefined();
  });

  it.each(MALFORMED_ROWS)('a malformed value ($name) → 400 invalid_preference naming $location', async (row) => {
    const res = await request(app).get(row.url).set(auth()).set(row.headers);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_preference', status: 400 });
    expect(res.body.details).toEqual([{ location: row.location, message: expect.any(String) }]);
    expect(res.headers['preference-applied']).toBeUndefined();
  });

  it('an example the operation does not name → 422 preference_unsatisfiable listing every declared response and its examples', async () => {
    const res = await request(app).get('/v1/pets/1').set(auth()).set('Prefer', 'example=nope');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'preference_unsatisfiable', status: 422, message: expect.stringContaining('"nope"') });
    expect(res.body.details).toEqual(GET_PET_DECLARES);
    expect(res.headers['preference-applied']).toBeUndefined();
  });

  it('x-mock-response-name alone names an example of the success response: one of the 404 is unsatisfiable', async () => {
    const res = await request(app).get('/v1/pets/1').set(auth()).set('x-mock-response-name', 'notFound');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('preference_unsatisfiable');
    expect(res.body.details).toEqual(GET_PET_DECLARES);
  });

  it('a 1xx status is never a final answer → 422 preference_unsatisfiable', async () => {
    const res = await request(app).get('/v1/pets/1').set(auth()).set('Prefer', 'code=100');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('preference_unsatisfiable');
    expect(res.body.details).toEqual(GET_PET_DECLARES);
  });

  // prettier-ignore
  const ORDER: readonly (readonly [string, number, string, () => request.Test])[] = [
    ['no key', 401, 'missing_credentials', () => request(app).get('/v1/pets/1').set('Prefer', 'code=404')],
    ['an unknown key', 401, 'invalid_api_key', () => request(app).get('/v1/pets/1').set(auth('no-such-key')).set('Prefer', 'code=200')],
    ['no route', 404, 'route_not_found', () => request(app).get('/v1/pet/1').set(auth()).set('Prefer', 'code=200')],
    ['an invalid body', 400, 'validation_failed', () => request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=201').send({ categoryId: 'x' })],
    ['an invalid path parameter', 400, 'validation_failed', () => request(app).get('/v1/pets/0').set(auth()).set('Prefer', 'code=200')],
    ['an invalid body and a malformed preference', 400, 'validation_failed', () => request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=abc').send({})],
    ['an Accept the operation cannot answer', 406, 'not_acceptable', () => request(app).get('/v1/pets/1').set(auth()).set('Accept', 'text/html').set('Prefer', 'code=404')],
  ];
  it.each(ORDER)('%s comes before the preference → %i %s', async (_name, status, code, send) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(res.headers['preference-applied']).toBeUndefined();
  });

  it('the query fallbacks never count as unknown parameters under unknownQueryParameters: reject', async () => {
    const strict = make(await testSandbox({ validation: { unknownQueryParameters: 'reject', checkResponses: true } })) as App;
    // prettier-ignore
    const rows: readonly (readonly [string, number, string | undefined])[] = [
      ['/v1/pets/1?__code=404', 404, 'code=404'],
      ['/v1/pets/1?__code=404&__example=notFound', 404, 'code=404, example=notFound'],
      ['/v1/pets/1?__dynamic=true&__seed=4', 200, undefined],
      ['/v1/pets/1?__seed=3&__code=404', 404, 'code=404'],
    ];
    for (const [url, status, applied] of rows) {
      const res = await request(strict).get(url).set(auth());
      expect({ url, status: res.status, applied: res.headers['preference-applied'] }).toEqual({ url, status, applied });
    }
    // With a Prefer header they are not read, and still not unknown.
    const withPrefer = await request(strict).get('/v1/pets/1?__code=404').set(auth()).set('Prefer', 'return=minimal');
    expect(withPrefer.status).toBe(200);
    // Anything else is still refused.
    const other = await request(strict).get('/v1/pets/1?__codex=404&x=1').set(auth());
    expect(other.status).toBe(400);
    expect(other.body.details).toEqual([
      { location: 'query.__codex', message: 'is not a parameter of this operation' },
      { location: 'query.x', message: 'is not a parameter of this operation' },
    ]);
  });

  it('Prefer: code=429 is the sandbox’s own 429: Retry-After and the rate-limit headers of the key’s real windows, counted', async () => {
    const before = await request(app).get('/v1/pets/1').set(auth('demo-free'));
    const forced = await request(app).get('/v1/pets/1').set(auth('demo-free')).set('Prefer', 'code=429');
    const after = await request(app).get('/v1/pets/1').set(auth('demo-free'));
    expect(before.status).toBe(200);
    expect(forced.status).toBe(429);
    expect(forced.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(forced.headers['preference-applied']).toBe('code=429');
    // The clock is frozen 30 s into a minute: the minute window resets in 30 s.
    expect(forced.headers['retry-after']).toBe('30');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-reset', 'ratelimit-policy'])
      expect(forced.headers[name]).toBe(before.headers[name]);
    expect(before.headers['x-ratelimit-limit']).toBe('60');
    expect(before.headers['x-ratelimit-remaining']).toBe('59');
    expect(forced.headers['x-ratelimit-remaining']).toBe('58');
    expect(forced.headers.ratelimit).toBe('"minute";r=58;t=30');
    expect(after.headers['x-ratelimit-remaining']).toBe('57');
  });

  it('forced 429s do not count towards a ban; over the quota, a preference gets the real 429, then the ban', async () => {
    const tight = make(
      await testSandbox({ plans: { free: { perMinute: 2, perDay: 1000 } }, bans: { threshold: 2, durationSeconds: 600 } }),
    ) as App;
    const key = auth('demo-free');
    for (let i = 0; i < 2; i++) {
      const forced = await request(tight).get('/v1/pets/1').set(key).set('Prefer', 'code=429');
      expect([forced.status, forced.headers['preference-applied']]).toEqual([429, 'code=429']);
    }
    // The two forced 429s used the quota (2 a minute) but started no ban.
    const over = await request(tight).get('/v1/pets/1').set(key).set('Prefer', 'code=200');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'rate_limited', message: 'Rate limit of 2 requests per minute exceeded' });
    expect(over.headers['retry-after']).toBe('30');
    expect(over.headers['preference-applied']).toBeUndefined();
    const second = await request(tight).get('/v1/pets/1').set(key).set('Prefer', 'code=404');
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('600');
    const banned = await request(tight).get('/v1/pets/1').set(key).set('Prefer', 'code=404');
    expect(banned.status).toBe(429);
    expect(banned.body.code).toBe('key_banned');
    expect(banned.headers['preference-applied']).toBeUndefined();
  });

  it('a forced non-2xx on createPet leaves the store as it was', async () => {
    const listed = async (): Promise<unknown> => (await request(app).get('/v1/pets?after=100&limit=100').set(auth())).body;
    const before = await listed();
    for (const code of ['400', '401', '404', '409', '429', '500', '503']) {
      const res = await request(app).post('/v1/pets').set(auth()).set('Prefer', `code=${code}`).send({ name: 'Ghost', categoryId: 1 });
      expect([res.status, res.headers['preference-applied'], res.headers.location]).toEqual([Number(code), `code=${code}`, undefined]);
    }
    expect(await listed()).toEqual(before);
    // The next id is the one it would have been.
    const created = await request(app).post('/v1/pets').set(auth()).send({ name: 'Real', categoryId: 1 });
    expect(created.status).toBe(201);
    expect(created.body.id).toBe(121);
    const entries = await journal('?operationId=createPet');
    expect(entries.map((e) => e.change)).toEqual(['created pets/121', ...Array<undefined>(7).fill(undefined)]);
  });

  it('a forced 201 on createPet goes through the stateful path: it creates, and the record reads back', async () => {
    const res = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=201').send({ name: 'Zed', categoryId: 2 });
    expect(res.status).toBe(201);
    expect(res.headers['preference-applied']).toBe('code=201');
    expect(res.body).toEqual({ id: 121, name: 'Zed', categoryId: 2 });
    expect(res.headers.location).toBe('/v1/pets/121');
    const fetched = await request(app).get('/v1/pets/121').set(auth());
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it('a forced example on createPet shapes the body, and the create still creates', async () => {
    const res = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'example=created').send({ name: 'Zed', categoryId: 2 });
    expect(res.status).toBe(201);
    expect(res.headers['preference-applied']).toBe('example=created');
    expect(res.body).toEqual(CREATED_EXAMPLE);
    const fetched = await request(app).get('/v1/pets/121').set(auth());
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ id: 121, name: 'Zed', categoryId: 2 });
  });

  // A named example replaces the stored record in the body only: the create's Location stays.
  it('a forced example on createPet keeps the stateful answer’s Location', async () => {
    const res = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'example=created').send({ name: 'Zed', categoryId: 2 });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('/v1/pets/121');
  });

  // createPet declares no 404, so `code=404` falls to `default`, whose example was written for a 405:
  // the body names the status answered, as the Error shape does everywhere.
  it('a forced status answered from `default` carries its own status in the Error body', async () => {
    const res = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=404').send({ name: 'Zed', categoryId: 2 });
    expect(res.status).toBe(404);
    expect(res.body.status).toBe(404);
  });

  it('the journal records the preference applied and the store change', async () => {
    const forced = await request(app).get('/v1/pets/1').set(auth()).set('Prefer', 'code=404');
    const created = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=201').send({ name: 'Zed', categoryId: 2 });
    const plain = await request(app).post('/v1/pets').set(auth()).send({ name: 'Abe', categoryId: 2 });
    const refused = await request(app).post('/v1/pets').set(auth()).set('Prefer', 'code=404').send({ name: 'Zed', categoryId: 2 });
    const [r, p, c, f] = await journal('?limit=4');
    expect(f).toMatchObject({ id: forced.headers['x-request-id'], status: 404, applied: { preference: 'code=404' } });
    expect(f?.change).toBeUndefined();
    expect(c).toMatchObject({
      id: created.headers['x-request-id'],
      status: 201,
      applied: { preference: 'code=201' },
      change: 'created pets/121',
    });
    expect(p).toMatchObject({ id: plain.headers['x-request-id'], status: 201, change: 'created pets/122' });
    expect(p?.applied).toBeUndefined();
    expect(r).toMatchObject({ id: refused.headers['x-request-id'], status: 404, applied: { preference: 'code=404' } });
    expect(r?.change).toBeUndefined();
  });
});

describe.each(EDGES)('forced answers on a document with ranges, default, 204 and text, through the $name', ({ make }) => {
  let app: App;
  beforeEach(async () => {
    app = make(await testSandbox({ spec: FORCED, fixtures: null })) as App;
  });

  /** No forced answer may break the document (checkResponses turns one that does into a 500). */
  const send = async (test: request.Test): Promise<Response> => {
    const res = await test;
    expect(SANDBOX_FAILURES, res.text).not.toContain((res.body as { code?: unknown }).code);
    return res;
  };

  it('a named example, a range, default, a declared 204 and text examples', async () => {
    const dog = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'example=dog'));
    expect([dog.status, dog.headers['preference-applied'], dog.body]).toEqual([200, 'example=dog', { id: 2, name: 'Rex', kind: 'dog' }]);
    const missing = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'code=404, example=missing'));
    expect([missing.status, missing.body]).toEqual([404, { code: 'not_found', message: 'No animal 9' }]);
    // 418: no exact response, so the 4XX range, with its required X-Trace header.
    const teapot = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'code=418'));
    expect(teapot.status).toBe(418);
    expect(teapot.headers['x-trace']).toMatch(/^[a-f0-9]{8}$/);
    expect(teapot.body).toEqual({ code: 'forced_status', message: "I'm a Teapot", status: 418 });
    // 503: no 5XX, so default, with the 503's own error (default's example was not written for it).
    const down = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'code=503'));
    expect([down.status, down.headers['preference-applied'], down.body]).toEqual([
      503,
      'code=503',
      { code: 'forced_status', message: 'Service Unavailable', status: 503 },
    ]);
    const gone = await send(request(app).delete('/api/animals/3').set(auth()).set('Prefer', 'code=204'));
    expect([gone.status, gone.headers['preference-applied'], gone.text]).toEqual([204, 'code=204', '']);
    const csv = await send(request(app).get('/api/notes').set(auth()).set('Accept', 'text/csv').set('Prefer', 'example=table'));
    expect([csv.status, csv.headers['content-type'], csv.text]).toEqual([200, 'text/csv; charset=utf-8', 'a,b\n1,2\n']);
  });

  it('an example that breaks its schema is replaced by a generated body, and not named as applied', async () => {
    const res = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'example=broken'));
    expect(res.status).toBe(200);
    expect(res.headers['preference-applied']).toBeUndefined();
    expect(res.body).toEqual({ id: expect.any(Number), name: expect.any(String), kind: expect.stringMatching(/^(cat|dog|owl)$/) });
  });

  it('an undeclared status → 422 preference_unsatisfiable listing what is declared', async () => {
    const res = await send(request(app).delete('/api/animals/3').set(auth()).set('Prefer', 'code=500'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'preference_unsatisfiable', status: 422 });
    expect(res.body.details).toEqual([
      { location: 'responses.204', message: 'declared, with no named examples' },
      { location: 'responses.409', message: 'declared, with no named examples' },
    ]);
    const notes = await send(request(app).get('/api/notes').set(auth()).set('x-mock-response-code', '404'));
    expect(notes.status).toBe(422);
    expect(notes.body.details).toEqual([{ location: 'responses.200', message: 'declared, examples: short, table' }]);
  });

  // getAnimal declares a 4XX range that requires an X-Trace header: the sandbox's own errors answered
  // under it carry one, generated from its schema (they used to become a 500 contract violation).
  it('an undeclared example on an operation with a 4XX range that requires a header → 422 with the header', async () => {
    const res = await send(request(app).get('/api/animals/3').set(auth()).set('Prefer', 'example=nope'));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('preference_unsatisfiable');
    expect(res.headers['x-trace']).toMatch(/^[a-f0-9]{8}$/);
    const invalid = await send(request(app).get('/api/animals/abc').set(auth()));
    expect(invalid.status).toBe(400);
    expect(invalid.headers['x-trace']).toMatch(/^[a-f0-9]{8}$/);
  });

  it('dynamic=true with a seed: the same body for the same seed, another for another seed (text)', async () => {
    const get = (prefer: string): Promise<Response> => send(request(app).get('/api/notes').set(auth()).set('Prefer', prefer));
    const [one, again, two, plain] = [
      await get('dynamic=true, seed=1'),
      await get('dynamic=true, seed=1'),
      await get('dynamic=true, seed=2'),
      await get('seed=1'),
    ];
    expect(one.headers['preference-applied']).toBe('dynamic=true, seed=1');
    expect(one.text).toBe(again.text);
    expect(two.text).not.toBe(one.text);
    expect(two.headers['preference-applied']).toBe('dynamic=true, seed=2');
    // Without dynamic the example is served, and the seed shaped nothing.
    expect([plain.text, plain.headers['preference-applied']]).toEqual(['hello', undefined]);
  });
});

describe.each(EDGES)('dynamic and seed on a JSON operation with no state, through the $name', ({ make }) => {
  it('the same seed gives the same body, another seed another, each valid; the query fallbacks work too', async () => {
    const app = make(await testSandbox({ spec: FAULTS, fixtures: null })) as App;
    const get = async (url: string, prefer?: string): Promise<Response> => {
      const test = request(app).get(url).set(auth());
      const res = await (prefer === undefined ? test : test.set('Prefer', prefer));
      expect(res.status, res.text).toBe(200);
      return res;
    };
    const example = await get('/api/plain');
    expect(example.body).toEqual({ station: 'north', celsius: 12.5, note: 'a calm day, with a long enough body to cut in half' });
    const one = await get('/api/plain', 'dynamic=true, seed=7');
    const again = await get('/api/plain', 'dynamic=true, seed=7');
    const other = await get('/api/plain', 'dynamic=true, seed=8');
    const viaQuery = await get('/api/plain?__dynamic=true&__seed=7');
    expect(one.headers['preference-applied']).toBe('dynamic=true, seed=7');
    expect(one.body).toEqual(again.body);
    expect(viaQuery.body).toEqual(one.body);
    expect(viaQuery.headers['preference-applied']).toBe('dynamic=true, seed=7');
    expect(other.body).not.toEqual(one.body);
    for (const res of [one, other]) {
      expect(res.body).not.toEqual(example.body);
      expect(res.body).toMatchObject({ station: expect.any(String), celsius: expect.any(Number) });
    }
    // A named example wins over dynamic.
    const named = await get('/api/plain', 'dynamic=true, example=calm');
    expect([named.body, named.headers['preference-applied']]).toEqual([example.body, 'example=calm']);
  });
});
