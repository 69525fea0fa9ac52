import { describe, expect, it } from 'vitest';
import { BODY_CAP, buildEntry } from '../../src/journal/entry.js';
import { toJournalEntry } from '../../src/journal/journal.js';
import { BASE_REDACTION, redactHeaders, redactionFor } from '../../src/journal/redaction.js';
import type { Exchange, SandboxResponse } from '../../src/vocabulary/exchange.js';
import type { SecurityScheme } from '../../src/vocabulary/operation.js';

const SCHEMES = new Map<string, SecurityScheme>([
  ['headerKey', { kind: 'apiKey', name: 'headerKey', in: 'header', parameter: 'X-API-Key' }],
  ['queryKey', { kind: 'apiKey', name: 'queryKey', in: 'query', parameter: 'api_key' }],
  ['cookieKey', { kind: 'apiKey', name: 'cookieKey', in: 'cookie', parameter: 'session' }],
  ['bearer', { kind: 'bearer', name: 'bearer' }],
]);
const ADMIN_TOKEN = 'the-admin-token';
const redaction = redactionFor(SCHEMES, [ADMIN_TOKEN, 'demo-pro']);

const exchange = (
  headers: Record<string, string>,
  more: { query?: string; path?: string; body?: string | Buffer; response?: SandboxResponse } = {},
): Exchange => ({
  request: {
    id: 'r1',
    method: 'POST',
    path: more.path ?? '/v1/pets',
    query: more.query ?? '',
    headers,
    clientAddress: '127.0.0.1',
    readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
  },
  response: more.response ?? { status: 204, headers: {} },
  operationId: undefined,
  keyId: 'key_abc',
  workspace: 'default',
  durationMs: 0.5,
  ...(more.body === undefined ? {} : { requestBody: Buffer.from(more.body) }),
});
const entryOf = (e: Exchange, r = redaction) => buildEntry(toJournalEntry(e, 0, 0), r);

// prettier-ignore
const headerRows: readonly (readonly [string, string, string, string])[] = [
  ['a bearer token keeps its scheme', 'authorization', 'Bearer demo-pro', 'Bearer [redacted]'],
  ['basic credentials keep their scheme', 'authorization', 'Basic YWxpY2U6d29uZGVy', 'Basic [redacted]'],
  ['a value with no scheme', 'authorization', 'demo-pro', '[redacted]'],
  ['a proxy credential', 'proxy-authorization', 'Basic Zm9vOmJhcg==', 'Basic [redacted]'],
  ['every cookie’s value', 'cookie', 'session=demo-pro; theme=dark', 'session=[redacted]; theme=[redacted]'],
  ['the apiKey header, by its name in any case', 'x-api-key', 'demo-pro', '[redacted]'],
  ['the admin token anywhere', 'x-forwarded-note', `token ${ADMIN_TOKEN} here`, 'token [redacted] here'],
  ['an issued key anywhere', 'x-note', 'sk_pro_Qm9vZ2xlLWlzLW5vdC1hLWtleQ', '[redacted]'],
  ['nothing else', 'x-trace', 'abc-123', 'abc-123'],
];
describe('redaction', () => {
  it.each(headerRows)('redacts %s', (_, name, value, shown) => {
    expect(entryOf(exchange({ [name]: value })).request.headers[name]).toBe(shown);
  });

  it('redacts a Set-Cookie value and keeps its attributes', () => {
    expect(redactHeaders({ 'set-cookie': 'id=abc; Path=/; HttpOnly' }, BASE_REDACTION)).toEqual({
      'set-cookie': 'id=[redacted]; Path=/; HttpOnly',
    });
  });

  it('redacts the apiKey query parameter and access_token, as received otherwise', () => {
    const entry = entryOf(exchange({}, { query: 'api_key=demo-pro&limit=2&access_token=abc&tag=a%20b' }));
    expect(entry.query).toBe('api_key=[redacted]&limit=2&access_token=[redacted]&tag=a%20b');
  });

  it('redacts secrets in the path (a key inspected by value)', () => {
    expect(entryOf(exchange({}, { path: '/__sandbox/keys/demo-pro' })).path).toBe('/__sandbox/keys/[redacted]');
  });

  it('redacts OAuth secrets in JSON and form bodies, both ways', () => {
    const json = entryOf(
      exchange(
        { 'content-type': 'application/json' },
        {
          body: '{"user":{"name":"a","password":"p4ss"},"n":1}',
          response: { status: 200, headers: { 'content-type': 'application/json' }, body: { access_token: 'tok', token_type: 'Bearer' } },
        },
      ),
    );
    expect(JSON.parse(json.request.body!.text)).toEqual({ user: { name: 'a', password: '[redacted]' }, n: 1 });
    expect(JSON.parse(json.response.body!.text)).toEqual({ access_token: '[redacted]', token_type: 'Bearer' });
    const form = entryOf(
      exchange({ 'content-type': 'application/x-www-form-urlencoded' }, { body: 'grant_type=client_credentials&client_secret=s3cr3t' }),
    );
    expect(form.request.body!.text).toBe('grant_type=client_credentials&client_secret=[redacted]');
  });

  it('shows a JSON body without secrets as it was sent', () => {
    const text = '{ "name": "Rex",  "categoryId": 1 }';
    expect(entryOf(exchange({ 'content-type': 'application/json' }, { body: text })).request.body).toEqual({
      mimeType: 'application/json',
      size: Buffer.byteLength(text),
      text,
      truncated: false,
    });
  });

  it('caps bodies at 64 KiB on a whole character, and marks them truncated', () => {
    const text = `"${'é'.repeat(BODY_CAP)}"`;
    const body = entryOf(exchange({ 'content-type': 'application/json' }, { body: text })).request.body!;
    expect(body.truncated).toBe(true);
    expect(body.size).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(body.text)).toBeLessThanOrEqual(BODY_CAP);
    expect(body.text).toMatch(/^"é+$/);
    const answer = entryOf(exchange({}, { response: { status: 200, headers: {}, body: 'x'.repeat(BODY_CAP * 2) } })).response.body!;
    expect(answer).toMatchObject({ mimeType: 'application/json', size: BODY_CAP * 2 + 2, truncated: true });
  });

  it('shows a body that is not UTF-8 in base64', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x01]);
    expect(entryOf(exchange({ 'content-type': 'application/octet-stream' }, { body: bytes })).request.body).toEqual({
      mimeType: 'application/octet-stream',
      size: 4,
      text: bytes.toString('base64'),
      encoding: 'base64',
      truncated: false,
    });
  });
});

describe('journal entries', () => {
  it('carry the error code, the violations, the limit decision, what was applied and the store change', () => {
    const body = {
      code: 'validation_failed',
      message: 'Invalid request: body.name',
      status: 400,
      details: [{ location: 'body.name', message: 'must be string' }],
    };
    const entry = entryOf({
      ...exchange({}, { response: { status: 400, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' }, body } }),
      applied: { preference: 'code=400', rule: 'rule_1', delayMs: 250, fault: 'dribble' },
      change: { workspace: 'default', collection: 'pets', id: '17', kind: 'created', after: { id: 17 } },
    });
    expect(entry).toMatchObject({
      status: 400,
      code: 'validation_failed',
      violations: [{ location: 'body.name', message: 'must be string' }],
      limit: { limit: 60, remaining: 59, banned: false },
      applied: { preference: 'code=400', rule: 'rule_1', delayMs: 250, fault: 'dribble' },
      change: 'created pets/17',
    });
  });

  it('read the code of an error sent without a body from X-Sandbox-Error, and leave out what does not apply', () => {
    const entry = entryOf(exchange({}, { response: { status: 404, headers: { 'x-sandbox-error': 'resource_not_found: No pet 9' } } }));
    expect(entry.code).toBe('resource_not_found');
    expect(entry.response.body).toBeUndefined();
    expect(Object.keys(entry)).not.toEqual(expect.arrayContaining(['operationId', 'violations', 'limit', 'applied', 'change']));
    expect(JSON.stringify(entry)).not.toContain('null');
  });

  it('show an answer encoded as text or bytes as it was sent', () => {
    const xml = entryOf(
      exchange({}, { response: { status: 200, headers: { 'content-type': 'application/xml' }, body: {}, encoded: '<pet/>' } }),
    );
    expect(xml.response.body).toEqual({ mimeType: 'application/xml', size: 6, text: '<pet/>', truncated: false });
  });
});

describe('literal secrets', () => {
  it('are scrubbed longest first, and not when too short to tell from ordinary text', () => {
    const r = redactionFor(new Map(), ['abc', 'secret-one', 'secret-one-longer']);
    const entry = buildEntry(toJournalEntry(exchange({ 'x-a': 'secret-one-longer secret-one abc' }), 0, 0), r);
    expect(entry.request.headers['x-a']).toBe('[redacted] [redacted] abc');
  });
});
