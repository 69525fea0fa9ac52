import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildEntry, type JournalEntry } from '../../src/journal/entry.js';
import { toHar } from '../../src/journal/har.js';
import { toJournalEntry } from '../../src/journal/journal.js';
import { BASE_REDACTION } from '../../src/journal/redaction.js';
import type { Exchange, Fault } from '../../src/vocabulary/exchange.js';

/**
 * HAR 1.2 (the W3C Web Performance WG's "HTTP Archive (HAR) format", version 1.2), written down as a
 * JSON Schema from the spec's field lists: every field the spec marks required, the types it
 * gives, and its rule that custom fields start with `_` (so no other unknown field is allowed).
 */
const nameValue = {
  type: 'object',
  required: ['name', 'value'],
  properties: { name: { type: 'string' }, value: { type: 'string' }, comment: { type: 'string' } },
  patternProperties: { '^_': {} },
  additionalProperties: false,
};
const list = (items: object) => ({ type: 'array', items });
const closed = (required: string[], properties: Record<string, object>) => ({
  type: 'object',
  required,
  properties: { ...properties, comment: { type: 'string' } },
  patternProperties: { '^_': {} },
  additionalProperties: false,
});
const cookie = closed(['name', 'value'], {
  name: { type: 'string' },
  value: { type: 'string' },
  path: { type: 'string' },
  domain: { type: 'string' },
  expires: { type: 'string' },
  httpOnly: { type: 'boolean' },
  secure: { type: 'boolean' },
});
const HAR_1_2 = {
  type: 'object',
  required: ['log'],
  properties: {
    log: closed(['version', 'creator', 'entries'], {
      version: { const: '1.2' },
      creator: closed(['name', 'version'], { name: { type: 'string' }, version: { type: 'string' } }),
      browser: closed(['name', 'version'], { name: { type: 'string' }, version: { type: 'string' } }),
      pages: list({ type: 'object' }),
      entries: list(
        closed(['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'], {
          pageref: { type: 'string' },
          startedDateTime: { type: 'string', format: 'date-time' },
          time: { type: 'number', minimum: 0 },
          request: closed(['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'], {
            method: { type: 'string' },
            url: { type: 'string', format: 'uri' },
            httpVersion: { type: 'string' },
            cookies: list(cookie),
            headers: list(nameValue),
            queryString: list(nameValue),
            postData: closed(['mimeType', 'text'], {
              mimeType: { type: 'string' },
              text: { type: 'string' },
              params: list(
                closed(['name'], {
                  name: { type: 'string' },
                  value: { type: 'string' },
                  fileName: { type: 'string' },
                  contentType: { type: 'string' },
                }),
              ),
            }),
            headersSize: { type: 'integer', minimum: -1 },
            bodySize: { type: 'integer', minimum: -1 },
          }),
          response: closed(
            ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
            {
              status: { type: 'integer' },
              statusText: { type: 'string' },
              httpVersion: { type: 'string' },
              cookies: list(cookie),
              headers: list(nameValue),
              content: closed(['size', 'mimeType'], {
                size: { type: 'integer' },
                compression: { type: 'integer' },
                mimeType: { type: 'string' },
                text: { type: 'string' },
                encoding: { type: 'string' },
              }),
              redirectURL: { type: 'string' },
              headersSize: { type: 'integer', minimum: -1 },
              bodySize: { type: 'integer', minimum: -1 },
            },
          ),
          cache: closed([], { beforeRequest: { type: ['object', 'null'] }, afterRequest: { type: ['object', 'null'] } }),
          timings: closed(['send', 'wait', 'receive'], {
            blocked: { type: 'number', minimum: -1 },
            dns: { type: 'number', minimum: -1 },
            connect: { type: 'number', minimum: -1 },
            send: { type: 'number', minimum: 0 },
            wait: { type: 'number', minimum: 0 },
            receive: { type: 'number', minimum: 0 },
            ssl: { type: 'number', minimum: -1 },
          }),
          serverIPAddress: { type: 'string' },
          connection: { type: 'string' },
        }),
      ),
    }),
  },
  additionalProperties: false,
};

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validHar = ajv.compile(HAR_1_2);

const exchange = (
  more: Partial<Exchange> & { headers?: Record<string, string>; query?: string; path?: string; method?: string },
): Exchange => {
  const { headers = {}, query = '', path = '/v1/pets', method = 'GET', ...rest } = more;
  return {
    request: {
      id: 'req-1',
      method,
      path,
      query,
      headers: { host: '127.0.0.1:4010', ...headers },
      clientAddress: '127.0.0.1',
      readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
    },
    response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: [] },
    operationId: 'listPets',
    keyId: 'key_pro',
    workspace: 'default',
    durationMs: 2.5,
    ...rest,
  };
};
const entryOf = (e: Exchange): JournalEntry =>
  buildEntry(toJournalEntry(e, Date.parse('2026-11-22T10:00:30Z'), Date.parse('2025-01-01T00:00:01Z')), BASE_REDACTION);
const CREATOR = { name: 'Understudy', version: '0.1.0' };

const ENTRIES: readonly JournalEntry[] = [
  entryOf(exchange({ query: 'limit=2&tag=good+boy', headers: { authorization: 'Bearer demo-pro', cookie: 'session=abc; theme=dark' } })),
  entryOf(
    exchange({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      requestBody: Buffer.from('{"name":"Rex","categoryId":1}'),
      response: {
        status: 201,
        headers: { location: '/v1/pets/17', 'set-cookie': 'id=x; Path=/', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '58' },
        body: { id: 17 },
      },
      operationId: 'createPet',
      applied: { preference: 'code=201', delayMs: 100 },
      change: { workspace: 'default', collection: 'pets', id: '17', kind: 'created', after: { id: 17 } },
    }),
  ),
  entryOf(
    exchange({
      method: 'POST',
      path: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      requestBody: Buffer.from('grant_type=client_credentials&client_secret=s3cr3t'),
      response: {
        status: 400,
        headers: {},
        body: { code: 'validation_failed', message: 'no', status: 400, details: [{ location: 'body.x', message: 'bad' }] },
      },
    }),
  ),
  entryOf(exchange({ requestBody: Buffer.from([0xff, 0x00]), headers: { 'content-type': 'application/octet-stream' }, method: 'PUT' })),
  entryOf(exchange({ response: { status: 204, headers: {} }, operationId: undefined, keyId: undefined })),
];

describe('HAR 1.2 export', () => {
  const har = toHar(ENTRIES, CREATOR) as { log: { entries: Record<string, Record<string, unknown>>[] } };
  const [listing, created, token, binary, empty] = har.log.entries;

  it('is valid against the HAR 1.2 required fields, custom data only in _ fields', () => {
    expect(validHar(har), ajv.errorsText(validHar.errors)).toBe(true);
    expect(har).toMatchObject({ log: { version: '1.2', creator: CREATOR } });
    expect(har.log.entries).toHaveLength(ENTRIES.length);
  });

  it('gives what Chrome-style consumers read: an absolute URL, {name, value} lists, the query string, timings', () => {
    expect(listing!.startedDateTime).toBe('2025-01-01T00:00:00.998Z');
    expect(listing!.time).toBe(2.5);
    expect(listing!.request).toMatchObject({
      method: 'GET',
      url: 'http://127.0.0.1:4010/v1/pets?limit=2&tag=good+boy',
      httpVersion: 'HTTP/1.1',
      headers: expect.arrayContaining([{ name: 'authorization', value: 'Bearer [redacted]' }]),
      queryString: [
        { name: 'limit', value: '2' },
        { name: 'tag', value: 'good boy' },
      ],
      cookies: [
        { name: 'session', value: '[redacted]' },
        { name: 'theme', value: '[redacted]' },
      ],
    });
    expect(listing!.response).toMatchObject({
      status: 200,
      statusText: 'OK',
      content: { size: 2, mimeType: 'application/json; charset=utf-8', text: '[]' },
    });
    expect(listing!.timings).toEqual({ send: 0, wait: 2.5, receive: 0 });
  });

  it('carries request bodies as postData with mimeType and text, form fields as params', () => {
    expect(created!.request).toMatchObject({
      postData: { mimeType: 'application/json', text: '{"name":"Rex","categoryId":1}' },
      bodySize: 29,
    });
    expect(token!.request).toMatchObject({
      postData: {
        mimeType: 'application/x-www-form-urlencoded',
        text: 'grant_type=client_credentials&client_secret=[redacted]',
        params: [
          { name: 'grant_type', value: 'client_credentials' },
          { name: 'client_secret', value: '[redacted]' },
        ],
      },
    });
    expect(binary!.request).toMatchObject({ postData: { mimeType: 'application/octet-stream', text: '/wA=', _encoding: 'base64' } });
  });

  it('names redirects and cookies set, and puts the sandbox’s own facts in _understudy', () => {
    expect(created!.response).toMatchObject({
      status: 201,
      statusText: 'Created',
      redirectURL: '/v1/pets/17',
      cookies: [{ name: 'id', value: '[redacted]' }],
    });
    expect(created!._understudy).toEqual({
      id: 'req-1',
      sandboxTime: '2026-11-22T10:00:30.000Z',
      operationId: 'createPet',
      keyId: 'key_pro',
      limit: { limit: 60, remaining: 58, banned: false },
      applied: { preference: 'code=201', delayMs: 100 },
      change: 'created pets/17',
    });
    expect(token!._understudy).toMatchObject({ code: 'validation_failed', violations: [{ location: 'body.x', message: 'bad' }] });
    expect(empty!.response).toMatchObject({ status: 204, content: { size: 0, mimeType: 'x-unknown' }, bodySize: 0 });
    expect(JSON.stringify(har)).not.toMatch(/demo-pro|s3cr3t|abc/);
  });
});

describe('HAR 1.2 export of faulted answers: what the client received', () => {
  const faulted = (fault: Fault, more: Partial<Exchange> & { method?: string } = {}): JournalEntry =>
    entryOf(
      exchange({
        response: { status: 200, headers: {}, encoded: Buffer.from([0xff, 1, 2, 3, 4, 5]), delivery: { delayMs: 40, fault } },
        applied: { delayMs: 40, fault: fault.kind },
        ...more,
      }),
    );
  const entries = [
    faulted({ kind: 'connection_reset' }),
    faulted({ kind: 'truncated_body' }),
    faulted({ kind: 'truncated_body' }, { method: 'HEAD' }),
    faulted({ kind: 'dribble', chunks: 3, durationMs: 90 }),
  ];
  const har = toHar(entries, CREATOR) as { log: { entries: Record<string, Record<string, unknown>>[] } };
  const [reset, cut, head, dribbled] = har.log.entries;

  it('stays valid HAR 1.2', () => expect(validHar(har), ajv.errorsText(validHar.errors)).toBe(true));

  it('a withheld answer: status 0, no headers or body, the failure in _error, the status meant in _understudy', () => {
    expect(reset!.response).toMatchObject({ status: 0, headers: [], bodySize: -1, _error: expect.stringMatching(/reset/) });
    expect(reset!._understudy).toMatchObject({ status: 200 });
    expect(reset!.timings).toEqual({ send: 0, wait: 42.5, receive: 0 });
  });

  it('a cut answer: the bytes the edge sent of it (none for HEAD), binary ones in base64', () => {
    expect(cut!.response).toMatchObject({
      status: 200,
      bodySize: 3,
      content: { size: 3, text: Buffer.from([0xff, 1, 2]).toString('base64') },
    });
    expect(head!.response).toMatchObject({ bodySize: 0, content: { size: 0, text: '' } });
  });

  it('a dribble: the whole answer, its spread in timings.receive and in the entry time', () => {
    expect(dribbled!.timings).toEqual({ send: 0, wait: 42.5, receive: 90 });
    expect(dribbled!.time).toBe(132.5);
  });
});
