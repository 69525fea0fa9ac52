import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import type { EventStream } from '../../src/journal/sse.js';
import type { SandboxRequest } from '../../src/vocabulary/exchange.js';
import { ADMIN_TOKEN, auth, EDGES, START, testSandbox, withoutNames } from '../support/sandbox.js';
import { securitySandbox } from '../support/security-sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const START_MS = Date.parse(START);

interface Entry {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly status: number;
  readonly code?: string;
  readonly keyId?: string;
  readonly keyName?: string;
  readonly operationId?: string;
  readonly request: { readonly headers: Record<string, string> };
  readonly response: { readonly headers: Record<string, string>; readonly body?: { readonly text: string } };
}

describe.each(EDGES)('the request journal through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox();
    app = make(sandbox);
  });

  const list = async (query = ''): Promise<Entry[]> => {
    const res = await request(app).get(`/__sandbox/requests${query}`).set(admin);
    expect(res.status).toBe(200);
    return res.body as Entry[];
  };
  const apiOnly = (entries: readonly Entry[]): Entry[] => entries.filter((e) => !e.path.startsWith('/__sandbox'));

  /** Four API requests from two keys: a listing, a miss, a creation and an invalid listing. */
  const traffic = async (): Promise<void> => {
    await request(app).get('/v1/pets?limit=2').set(auth('demo-pro')).set('X-Trace', 'trace-0001');
    await request(app).get('/v1/nope').set(auth('demo-pro'));
    await request(app).post('/v1/pets').set(auth('demo-free')).send({ name: 'Rex', categoryId: 1 });
    await request(app).get('/v1/pets?limit=abc').set(auth('demo-free'));
  };

  it("journals the admin API's changes but not its reads, which a polling console would flood it with", async () => {
    await request(app).get('/v1/pets?limit=1').set(auth('demo-pro'));
    for (let i = 0; i < 5; i++) await request(app).get('/__sandbox/keys').set(admin);
    await request(app).get('/__sandbox/clock').set(admin);
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 1 });
    const entries = await list();
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /__sandbox/clock', 'GET /v1/pets']);
  });

  it('records each request: id, method, path, query, operation, key id, status, code, headers and answer, credentials redacted', async () => {
    const listed = await request(app).get('/v1/pets?limit=2').set(auth('demo-pro'));
    const [entry] = await list('?limit=1');
    expect(entry).toMatchObject({
      id: listed.headers['x-request-id'],
      time: START_MS,
      wallTime: expect.any(Number),
      method: 'GET',
      path: '/v1/pets',
      query: 'limit=2',
      operationId: 'listPets',
      keyId: expect.stringMatching(/^key_/),
      status: 200,
      durationMs: expect.any(Number),
      request: { headers: { authorization: 'Bearer [redacted]' } },
      response: { headers: { 'x-ratelimit-limit': '300', 'content-type': 'application/json; charset=utf-8' } },
    });
    expect(JSON.parse(entry!.response.body!.text)).toEqual(listed.body);
    // Named after its published value, the demo key shows by name; its value nowhere else.
    expect(entry?.keyName).toBe('demo-pro');
    expect(JSON.stringify(await list(), withoutNames)).not.toContain('demo-pro');
  });

  it('keeps the violations of a 400 and never the admin token', async () => {
    await request(app).get('/v1/pets?limit=abc').set(auth('demo-free'));
    const [entry] = apiOnly(await list());
    expect(entry).toMatchObject({ status: 400, code: 'validation_failed', violations: [{ location: 'query.limit' }] });
    expect(JSON.stringify(await list())).not.toContain(ADMIN_TOKEN);
  });

  it('never shows an issued key, not even in the answer that issued it', async () => {
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' });
    await request(app)
      .get('/v1/pets')
      .set(auth(issued.body.key as string));
    const text = JSON.stringify(await list());
    expect(text).toContain(issued.body.id as string);
    expect(text).not.toContain(issued.body.key as string);
  });

  // One row per filter: the listing keeps the API requests it names, newest first.
  // prettier-ignore
  const filters: readonly (readonly [string, string, readonly string[]])[] = [
    ['no filter', '', ['GET /v1/pets?limit=abc', 'POST /v1/pets', 'GET /v1/nope', 'GET /v1/pets?limit=2']],
    ['an operation', '?operationId=listPets', ['GET /v1/pets?limit=abc', 'GET /v1/pets?limit=2']],
    ['a method, in any case', '?method=post', ['POST /v1/pets']],
    ['a path', '?path=/v1/nope', ['GET /v1/nope']],
    ['a status', '?status=404', ['GET /v1/nope']],
    ['a key by value', '?key=demo-free', ['GET /v1/pets?limit=abc', 'POST /v1/pets']],
    ['a limit', '?limit=1', ['GET /v1/pets?limit=abc']],
    ['two filters', '?key=demo-pro&status=200', ['GET /v1/pets?limit=2']],
  ];
  it.each(filters)('lists requests filtered by %s', async (_, query, expected) => {
    await traffic();
    const shown = apiOnly(await list(query)).map((e) => `${e.method} ${e.path}${e.query ? `?${e.query}` : ''}`);
    expect(shown).toEqual(expected);
  });

  it('filters by key id and by sandbox time (Unix ms or ISO 8601)', async () => {
    await request(app).get('/v1/pets').set(auth('demo-pro'));
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 60 });
    await request(app).get('/v1/nope').set(auth('demo-pro'));
    const id = (await list('?path=/v1/nope'))[0]!.keyId as string;
    expect(apiOnly(await list(`?key=${id}`)).map((e) => e.path)).toEqual(['/v1/nope', '/v1/pets']);
    const later = new Date(START_MS + 60_000).toISOString();
    expect(apiOnly(await list(`?since=${later}`)).map((e) => e.path)).toEqual(['/v1/nope']);
    expect(apiOnly(await list(`?since=${START_MS + 60_001}`))).toEqual([]);
    const bad = await request(app).get('/__sandbox/requests?since=yesterday').set(admin);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ location: 'query.since', message: expect.any(String) }]);
  });

  // prettier-ignore
  const patterns: readonly (readonly [string, Record<string, unknown>, number])[] = [
    ['everything', {}, 4],
    ['method and path', { method: 'GET', path: '/v1/pets' }, 2],
    ['a path pattern over the whole path', { pathPattern: '/v1/(pets|nope)' }, 4],
    ['a path pattern that matches only a part', { pathPattern: 'pets' }, 0],
    ['a query value equal to', { query: { limit: { equalTo: '2' } } }, 1],
    ['a query value matching', { query: { limit: { matches: '[a-z]+' } } }, 1],
    ['a header, any case, containing', { headers: { 'X-TRACE': { contains: '0001' } } }, 1],
    ['a redacted header, as redacted', { headers: { authorization: { equalTo: 'Bearer [redacted]' } } }, 4],
    ['a key and a status', { key: 'demo-free', status: 201 }, 1],
    ['an operation', { operationId: 'createPet' }, 1],
  ];
  it.each(patterns)('counts and finds requests by %s', async (_, pattern, expected) => {
    await traffic();
    const apiPattern = { pathPattern: '/v1/.*', ...pattern };
    const count = await request(app).post('/__sandbox/requests/count').set(admin).send(apiPattern);
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: expected });
    const found = await request(app).post('/__sandbox/requests/find').set(admin).send(apiPattern);
    expect(found.status).toBe(200);
    expect(found.body).toHaveLength(expected);
  });

  it('verifies a count: 200 with the count when it holds, 422 with the nearest misses when not', async () => {
    await traffic();
    const verify = (body: object) => request(app).post('/__sandbox/requests/verify').set(admin).send(body);
    const held = await verify({ pattern: { method: 'GET', key: 'demo-pro' }, count: { exactly: 2 } });
    expect(held.status).toBe(200);
    expect(held.body).toEqual({ count: 2 });
    expect((await verify({ pattern: { method: 'GET' }, count: { atLeast: 1, atMost: 3 } })).status).toBe(200);

    const failed = await verify({ pattern: { method: 'DELETE', path: '/v1/pets' }, count: { atLeast: 1 } });
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ code: 'verification_failed', status: 422, count: 0, expected: { atLeast: 1 } });
    const misses = failed.body.nearestMisses as { entry: Entry; differences: { field: string }[] }[];
    expect(misses).toHaveLength(3);
    // The POST to /v1/pets and the two GETs of /v1/pets differ in the method only; the miss at /v1/nope in both.
    expect(misses.map((m) => `${m.entry.method} ${m.entry.path}`)).toEqual(['GET /v1/pets', 'POST /v1/pets', 'GET /v1/pets']);
    expect(misses[0]!.differences).toEqual([{ field: 'method', expected: 'DELETE', actual: 'GET' }]);
  });

  it('waits up to withinMs for requests still on their way, and answers as soon as the count holds', async () => {
    const started = Date.now();
    const verifying = request(app)
      .post('/__sandbox/requests/verify')
      .set(admin)
      .send({ pattern: { operationId: 'createPet' }, count: { exactly: 1 }, withinMs: 10_000 })
      .then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await request(app).post('/v1/pets').set(auth()).send({ name: 'Late', categoryId: 1 });
    const res = await verifying;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 1 });
    expect(Date.now() - started).toBeLessThan(5_000);

    const timedOut = await request(app)
      .post('/__sandbox/requests/verify')
      .set(admin)
      .send({ pattern: { operationId: 'getPet' }, count: { atLeast: 1 }, withinMs: 100 });
    expect(timedOut.status).toBe(422);
    expect(timedOut.body).toMatchObject({ code: 'verification_failed', count: 0 });
  });

  it('counts by a documented path template as rules read it, with or without the base path', async () => {
    await request(app).get('/v1/pets/1').set(auth());
    await request(app).get('/v1/pets/2').set(auth());
    await request(app).get('/v1/pets').set(auth());
    const count = (pattern: object) => request(app).post('/__sandbox/requests/count').set(admin).send(pattern);
    expect((await count({ path: '/v1/pets/{petId}' })).body).toEqual({ count: 2 });
    expect((await count({ path: '/pets/{id}', method: 'GET' })).body).toEqual({ count: 2 });
    expect((await count({ path: '/v1/pets/1' })).body).toEqual({ count: 1 });
    const verified = await request(app)
      .post('/__sandbox/requests/verify')
      .set(admin)
      .send({ pattern: { path: '/v1/pets/{petId}' }, count: { exactly: 2 } });
    expect(verified.status).toBe(200);
    expect((await list('?path=/v1/pets/%7BpetId%7D')).map((e) => e.path)).toEqual(['/v1/pets/2', '/v1/pets/1']);
    // A template that can never match is refused, saying why, rather than counting nothing.
    const refused = await count({ path: '/v1/cats/{catId}' });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ location: 'body.path', message: expect.stringMatching(/no documented operation/) }]);
  });

  describe('with the window never closing (its timer faked, never advanced)', () => {
    const verify = (body: object) => request(app).post('/__sandbox/requests/verify').set(admin).send(body);
    afterEach(() => {
      vi.useRealTimers();
    });

    it('answers 422 at once when the count is already over exactly: counts only grow', async () => {
      await request(app).post('/v1/pets').set(auth()).send({ name: 'One', categoryId: 1 });
      await request(app).post('/v1/pets').set(auth()).send({ name: 'Two', categoryId: 1 });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const res = await verify({ pattern: { operationId: 'createPet' }, count: { exactly: 1 }, withinMs: 10_000 });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'verification_failed', count: 2, expected: { exactly: 1 } });
      const over = await verify({ pattern: { operationId: 'createPet' }, count: { atMost: 1 }, withinMs: 10_000 });
      expect(over.status).toBe(422);
    });
  });

  // prettier-ignore
  const refusals: readonly (readonly [string, string, unknown, string])[] = [
    ['a path pattern that is not a regular expression', 'count', { pathPattern: '(' }, 'body.pathPattern'],
    ['a header matcher that is not a regular expression', 'find', { headers: { 'x-a': { matches: '[' } } }, 'body.headers.x-a.matches'],
    ['a pointer without a leading slash', 'count', { body: { pointer: 'name', equalTo: 'Rex' } }, 'body.body.pointer'],
    ['a misspelt pattern field', 'count', { metod: 'GET' }, 'body.metod'],
    ['a matcher of no known kind', 'count', { query: { a: { startsWith: 'x' } } }, 'body.query.a'],
    ['exactly with atLeast', 'verify', { pattern: {}, count: { exactly: 1, atLeast: 1 } }, 'body.count'],
    ['an empty range', 'verify', { pattern: {}, count: { atLeast: 2, atMost: 1 } }, 'body.count'],
    ['a wait over 30 s', 'verify', { pattern: {}, count: { exactly: 1 }, withinMs: 60_000 }, 'body.withinMs'],
    ['a path template no operation has', 'count', { path: '/v1/cats/{id}' }, 'body.path'],
    ['a malformed path template', 'find', { path: '/v1/pets/{petId' }, 'body.path'],
    ['a path that is no path', 'count', { path: 'v1/pets' }, 'body.path'],
    ['an undocumented template in a verified pattern', 'verify', { pattern: { path: '/v1/pets/{id}/toys' }, count: { exactly: 1 } }, 'body.pattern.path'],
    ['a regular expression in a verified pattern', 'verify', { pattern: { pathPattern: '[' }, count: { exactly: 1 } }, 'body.pattern.pathPattern'],
  ];
  it.each(refusals)('refuses %s with 400 validation_failed', async (_, operation, body, location) => {
    const res = await request(app)
      .post(`/__sandbox/requests/${operation}`)
      .set(admin)
      .send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect((res.body.details as { location: string }[]).map((d) => d.location)).toContain(location);
  });

  it('clears the journal, or only one key’s requests', async () => {
    await traffic();
    const one = await request(app).delete('/__sandbox/requests?key=demo-free').set(admin);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ removed: 2 });
    expect(apiOnly(await list()).map((e) => e.path)).toEqual(['/v1/nope', '/v1/pets']);
    const all = await request(app).delete('/__sandbox/requests').set(admin);
    expect(all.status).toBe(200);
    expect(apiOnly(await list())).toEqual([]);
  });

  it('exports the journal as HAR 1.2, oldest first, with its own facts in _understudy', async () => {
    await traffic();
    const res = await request(app).get('/__sandbox/requests.har').set(admin);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="understudy.har"');
    const { log } = res.body as { log: { version: string; creator: { name: string }; entries: Record<string, unknown>[] } };
    expect(log.version).toBe('1.2');
    expect(log.creator.name).toBe('Understudy');
    expect(log.entries.map((e) => (e.request as { url: string }).url)).toEqual([
      expect.stringMatching(/^http:\/\/[^/]+\/v1\/pets\?limit=2$/),
      expect.stringMatching(/\/v1\/nope$/),
      expect.stringMatching(/\/v1\/pets$/),
      expect.stringMatching(/\/v1\/pets\?limit=abc$/),
    ]);
    expect(log.entries[0]).toMatchObject({
      request: { method: 'GET', queryString: [{ name: 'limit', value: '2' }] },
      response: { status: 200, statusText: 'OK' },
      _understudy: { operationId: 'listPets', keyId: expect.stringMatching(/^key_/) },
    });
    expect(log.entries[3]).toMatchObject({ _understudy: { code: 'validation_failed', violations: [{ location: 'query.limit' }] } });
    expect((log.entries[0]?._understudy as { keyName?: string } | undefined)?.keyName).toBe('demo-pro');
    expect(JSON.stringify(res.body, withoutNames)).not.toMatch(/demo-(pro|free)|test-admin-token/);
  });

  it('streams each finished request as a Server-Sent Event over a real socket, and stops when the client leaves', async () => {
    const server = createServer(app as (req: IncomingMessage, res: ServerResponse) => void);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      let received = '';
      let notify = (): void => undefined;
      const arrived = (text: string): Promise<void> =>
        new Promise((resolve) => {
          notify = () => {
            if (received.includes(text)) resolve();
          };
          notify();
        });
      const res = await new Promise<IncomingMessage>((resolve) =>
        get({ host: '127.0.0.1', port, path: '/__sandbox/requests/stream?key=demo-pro', headers: admin }, resolve),
      );
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        received += chunk;
        notify();
      });
      await arrived('retry: ');
      expect(received).toMatch(/^retry: \d+\n/);
      const sent = await request(server).get('/v1/pets?limit=1').set(auth('demo-pro'));
      await request(server).get('/v1/pets?limit=2').set(auth('demo-free'));
      await arrived(`id: ${String(sent.headers['x-request-id'])}`);
      const data = /data: (.*)\n/.exec(received.slice(received.indexOf(`id: ${String(sent.headers['x-request-id'])}`)))?.[1] ?? '{}';
      expect(JSON.parse(data)).toMatchObject({ method: 'GET', path: '/v1/pets', query: 'limit=1', status: 200, operationId: 'listPets' });
      expect(received).not.toContain('limit=2');
      res.destroy();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A request straight to the core, as an edge would hand it over. */
const coreRequest = (path: string, query = ''): SandboxRequest => ({
  id: `core-${path}`,
  method: 'GET',
  path,
  query,
  headers: { host: 'sandbox.test', authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/event-stream' },
  clientAddress: '127.0.0.1',
  readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
});

describe('the journal stream, as the core hands it to an edge', () => {
  it('sends one event per finished request, filtered, until it is closed', async () => {
    const sandbox = await testSandbox();
    const app = EDGES[0]!.make(sandbox);
    const response = (await sandbox.handle(coreRequest('/__sandbox/requests/stream', 'key=demo-pro'))) as { stream?: EventStream };
    expect(response.stream).toBeDefined();
    const chunks: string[] = [];
    const close = response.stream!.open((chunk) => chunks.push(chunk));
    const seen = await request(app).get('/v1/pets?limit=1').set(auth('demo-pro'));
    await request(app).get('/v1/pets?limit=1').set(auth('demo-free'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(1);
    const [event] = chunks;
    expect(event).toMatch(new RegExp(`^id: ${seen.headers['x-request-id'] as string}\ndata: \\{.*\\}\n\n$`));
    const data = JSON.parse(event!.split('\n')[1]!.slice('data: '.length)) as Entry;
    expect(data).toMatchObject({
      path: '/v1/pets',
      query: 'limit=1',
      status: 200,
      request: { headers: { authorization: 'Bearer [redacted]' } },
    });
    close();
    await request(app).get('/v1/pets').set(auth('demo-pro'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(1);
  });
});

describe('a journal of size 0', () => {
  it('keeps nothing, and still streams each finished request to a client that listens', async () => {
    const sandbox = await testSandbox({ journalSize: 0 });
    const app = EDGES[0]!.make(sandbox);
    await request(app).get('/v1/pets?limit=1').set(auth('demo-pro'));
    expect((await request(app).get('/__sandbox/requests').set(admin)).body).toEqual([]);
    const response = (await sandbox.handle(coreRequest('/__sandbox/requests/stream'))) as { stream?: EventStream };
    const chunks: string[] = [];
    const close = response.stream!.open((chunk) => chunks.push(chunk));
    const seen = await request(app).get('/v1/pets?limit=2').set(auth('demo-pro'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatch(new RegExp(`^id: ${seen.headers['x-request-id'] as string}\n`));
    close();
    expect((await request(app).get('/__sandbox/requests').set(admin)).body).toEqual([]);
  });
});

describe('redaction of the credentials a document’s apiKey schemes name', () => {
  it('never shows a key sent as an apiKey query parameter', async () => {
    const app = EDGES[0]!.make(await securitySandbox());
    const res = await request(app).get('/api/query?api_key=all-key&other=1');
    expect(res.status).toBe(200);
    const journal = await request(app).get('/__sandbox/requests?path=/api/query').set(admin);
    const [entry] = journal.body as Entry[];
    expect(entry?.keyId).toMatch(/^key_/);
    // The core replaces the value before the journal sees it (`REDACTED`); with the document's
    // schemes handed to the journal it shows `[redacted]`.
    expect(entry?.query).toMatch(/^api_key=(REDACTED|\[redacted\])&other=1$/);
    const har = await request(app).get('/__sandbox/requests.har').set(admin);
    expect(JSON.stringify(journal.body) + JSON.stringify(har.body)).not.toContain('all-key');
  });
});
