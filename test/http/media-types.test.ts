import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { auth, EDGES, testSandbox } from '../support/sandbox.js';

const MEDIA = fileURLToPath(new URL('../documents/media.yaml', import.meta.url));
const FORM = 'application/x-www-form-urlencoded';
const BOUNDARY = 'b0undary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

interface Part {
  readonly name: string;
  readonly value: string | Buffer;
  readonly filename?: string;
  readonly type?: string;
}

/** A multipart/form-data body (RFC 7578), built by hand so every byte sent is known. */
function multipart(parts: readonly Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const head = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const file: Part = { name: 'file', value: PNG, filename: 'a.png', type: 'image/png' };
const XML_THING =
  '<?xml version="1.0"?><m:thing xmlns:m="https://media.example/ns" id="3"><name>Lamp</name><tags><tag>a</tag><tag>b</tag></tags></m:thing>';

const THING = { id: 7, name: 'Lamp', tags: ['red', 'a<b'] };

interface Row {
  readonly name: string;
  readonly url: string;
  readonly type: string;
  readonly body: string | Buffer;
  readonly status: number;
  readonly code?: string;
  /** Locations the 400's details must name, exactly. */
  readonly locations?: readonly string[];
}

/** One row per request body: what is sent, and the status, code and violated locations expected. */
// prettier-ignore
const ROWS: readonly Row[] = [
  { name: 'a form, typed by the schema', url: '/forms', type: FORM, body: 'name=Rex&count=3&ratio=0.5&active=true&tags=a&tags=b&ids=1,2', status: 200 },
  { name: 'a form with a charset', url: '/forms', type: `${FORM}; charset=utf-8`, body: 'name=R%C3%A9x+II&count=1', status: 200 },
  { name: 'a form: count not an integer', url: '/forms', type: FORM, body: 'name=Rex&count=three', status: 400, code: 'validation_failed', locations: ['body.count'] },
  { name: 'a form: every violation at once', url: '/forms', type: FORM, body: 'name=&count=0&active=yes&tags=a&tags=b&tags=c&tags=d&ids=1,x&extra=1', status: 400, code: 'validation_failed', locations: ['body.name', 'body.count', 'body.active', 'body.tags', 'body.ids', 'body.extra'] },
  { name: 'a form: a required field missing', url: '/forms', type: FORM, body: 'count=2', status: 400, code: 'validation_failed', locations: ['body.name'] },
  { name: 'a form: __proto__ is plain data', url: '/forms', type: FORM, body: 'name=a&count=1&__proto__=x', status: 400, code: 'validation_failed', locations: ['body.__proto__'] },
  { name: 'a form sent as JSON', url: '/forms', type: 'application/json', body: '{"name":"Rex","count":3}', status: 415, code: 'unsupported_media_type' },
  { name: 'multipart: fields and a file', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'Cat' }, { name: 'count', value: '2' }, file, { name: 'meta', value: '{"page":1}', type: 'application/json' }]), status: 200 },
  { name: 'multipart: a field of the wrong type', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'Cat' }, { name: 'count', value: 'two' }, file]), status: 400, code: 'validation_failed', locations: ['body.count'] },
  { name: 'multipart: a file of a type encoding does not allow', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'Cat' }, { ...file, type: 'image/gif' }]), status: 400, code: 'validation_failed', locations: ['body.file'] },
  { name: 'multipart: a file over maxLength (in bytes)', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'Cat' }, { ...file, value: Buffer.alloc(65) }]), status: 400, code: 'validation_failed', locations: ['body.file'] },
  { name: 'multipart: every violation at once', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'x'.repeat(21) }, { name: 'meta', value: '{"page":"one"}', type: 'application/json' }]), status: 400, code: 'validation_failed', locations: ['body.title', 'body.file', 'body.meta.page'] },
  { name: 'multipart: a JSON part that is not JSON', url: '/uploads', type: MULTIPART, body: multipart([{ name: 'title', value: 'Cat' }, file, { name: 'meta', value: '{', type: 'application/json' }]), status: 400, code: 'validation_failed', locations: ['body.meta'] },
  { name: 'multipart: no closing boundary', url: '/uploads', type: MULTIPART, body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nCat`, status: 400, code: 'malformed_request' },
  { name: 'multipart: no boundary parameter', url: '/uploads', type: 'multipart/form-data', body: 'x', status: 415, code: 'unsupported_media_type' },
  { name: 'text within maxLength', url: '/notes', type: 'text/plain', body: 'héllo', status: 200 },
  { name: 'text in Latin-1, as its charset says', url: '/notes', type: 'text/plain; charset=iso-8859-1', body: Buffer.from([0x68, 0xe9]), status: 200 },
  { name: 'text over maxLength', url: '/notes', type: 'text/plain', body: 'hello world', status: 400, code: 'validation_failed', locations: ['body'] },
  { name: 'text that is not UTF-8', url: '/notes', type: 'text/plain', body: Buffer.from([0xff, 0xfe]), status: 400, code: 'malformed_request' },
  { name: 'text in an unknown charset', url: '/notes', type: 'text/plain; charset=klingon', body: 'x', status: 415, code: 'unsupported_media_type' },
  { name: 'bytes within maxLength', url: '/blobs', type: 'application/octet-stream', body: PNG.subarray(0, 8), status: 200 },
  { name: 'bytes over maxLength', url: '/blobs', type: 'application/octet-stream', body: PNG, status: 400, code: 'validation_failed', locations: ['body'] },
  { name: 'JSON to a key with parameters (application/json;charset=utf-8)', url: '/things', type: 'application/json', body: '{"id":1,"name":"Lamp"}', status: 200 },
  { name: 'JSON to that key, invalid', url: '/things', type: 'application/json', body: '{"id":0}', status: 400, code: 'validation_failed', locations: ['body.id', 'body.name'] },
  { name: 'XML where declared, by its XML Objects', url: '/things', type: 'application/xml', body: XML_THING, status: 200 },
  { name: 'XML with the wrong types', url: '/things', type: 'application/xml', body: '<thing id="x"><name>far too long a name</name><tags><tag>a</tag></tags></thing>', status: 400, code: 'validation_failed', locations: ['body.id', 'body.name'] },
  { name: 'XML that is not well-formed', url: '/things', type: 'application/xml', body: '<thing><name>Lamp</thing>', status: 400, code: 'malformed_request' },
  { name: 'XML with a DOCTYPE', url: '/things', type: 'application/xml', body: '<!DOCTYPE thing [<!ENTITY a "aaaa">]><thing id="1"><name>&a;</name></thing>', status: 400, code: 'malformed_request' },
  { name: 'text where only JSON and XML are declared', url: '/things', type: 'text/plain', body: 'Lamp', status: 415, code: 'unsupported_media_type' },
];

describe.each(EDGES)('request media types through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    sandbox = await testSandbox({ spec: MEDIA, fixtures: null });
    app = make(sandbox);
  });

  it.each(ROWS)('$name → $status $code', async (row) => {
    const res = await request(app).post(`/media${row.url}`).set('Content-Type', row.type).send(row.body);
    expect(res.status).toBe(row.status);
    if (row.status === 200) expect(res.body).toEqual(row.url === '/things' ? THING : { ok: true });
    else if (res.headers['content-type']?.startsWith('application/problem+json')) {
      // Where the document declares problem+json, an RFC 9457 body with the code and the violations as extensions.
      expect(res.body).toMatchObject({ type: `tag:understudy.dev,2026:problem:${row.code}`, title: expect.any(String) });
      expect(res.body).toMatchObject({ code: row.code, status: row.status, detail: expect.any(String), instance: `/media${row.url}` });
    } else expect(res.body).toMatchObject({ code: row.code, status: row.status, message: expect.any(String) });
    expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
    if (row.locations) {
      const locations = (res.body.details ?? res.body.violations) as { location: string }[];
      expect([...new Set(locations.map((d) => d.location))].sort()).toEqual([...row.locations].sort());
    }
  });

  it('names the reason a form field does not read as its type, once', async () => {
    const res = await request(app).post('/media/forms').set('Content-Type', FORM).send('name=Rex&count=three');
    expect(res.body.violations).toEqual([{ location: 'body.count', message: 'must be an integer' }]);
  });

  it('counts every part of a multipart body against the body limit', async () => {
    const limited = make(await testSandbox({ spec: MEDIA, fixtures: null, bodyLimit: 100 }));
    const parts = [
      { name: 'title', value: 'Cat' },
      { ...file, value: Buffer.alloc(60) },
      { name: 'count', value: '1' },
    ];
    const res = await request(limited).post('/media/uploads').set('Content-Type', MULTIPART).send(multipart(parts));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});

const THING_XML =
  '<?xml version="1.0" encoding="UTF-8"?><m:thing xmlns:m="https://media.example/ns" id="7">' +
  '<name>Lamp</name><tags><tag>red</tag><tag>a&lt;b</tag></tags></m:thing>';
const VALID_THING = '{"id":1,"name":"Lamp"}';

interface AnswerRow {
  readonly name: string;
  readonly method: 'get' | 'post';
  readonly url: string;
  readonly accept?: string;
  readonly send?: { readonly type: string; readonly body: string };
  readonly status: number;
  readonly contentType: string;
  /** The body as text, exactly; or the error code. */
  readonly text?: string;
  readonly code?: string;
}

/** One row per answer: the Accept sent, and the status, Content-Type and body that come back. */
// prettier-ignore
const ANSWERS: readonly AnswerRow[] = [
  { name: 'no Accept: JSON, under the declared key', method: 'post', url: '/things', send: { type: 'application/json', body: VALID_THING }, status: 200, contentType: 'application/json; charset=utf-8', text: JSON.stringify(THING) },
  { name: 'Accept: application/xml gets XML by the XML Objects', method: 'post', url: '/things', accept: 'application/xml', send: { type: 'application/json', body: VALID_THING }, status: 200, contentType: 'application/xml; charset=utf-8', text: THING_XML },
  { name: 'the preferred of two by q', method: 'post', url: '/things', accept: 'application/json;q=0.4, application/xml;q=0.9', send: { type: 'application/xml', body: XML_THING }, status: 200, contentType: 'application/xml; charset=utf-8', text: THING_XML },
  { name: 'Accept: */* gets JSON', method: 'post', url: '/things', accept: '*/*', send: { type: 'application/json', body: VALID_THING }, status: 200, contentType: 'application/json; charset=utf-8', text: JSON.stringify(THING) },
  { name: 'Accept: image/png on a JSON and XML operation: 406', method: 'post', url: '/things', accept: 'image/png', send: { type: 'application/json', body: VALID_THING }, status: 406, contentType: 'application/json; charset=utf-8', code: 'not_acceptable' },
  { name: 'a broken request learns that first, whatever it accepts', method: 'post', url: '/things', accept: 'image/png', send: { type: 'application/json', body: '{}' }, status: 400, contentType: 'application/json; charset=utf-8', code: 'validation_failed' },
  { name: 'an error stays JSON when Accept asks for XML', method: 'post', url: '/things', accept: 'application/xml', send: { type: 'application/json', body: '{}' }, status: 400, contentType: 'application/json; charset=utf-8', code: 'validation_failed' },
  { name: 'an error in the JSON type the document declares for it', method: 'post', url: '/forms', send: { type: FORM, body: 'count=1' }, status: 400, contentType: 'application/problem+json', code: 'validation_failed' },
  { name: 'a +json operation answers in its own type', method: 'get', url: '/articles', status: 200, contentType: 'application/vnd.api+json', text: '{"data":[]}' },
  { name: 'a +json operation to Accept: application/json: 406', method: 'get', url: '/articles', accept: 'application/json', status: 406, contentType: 'application/json; charset=utf-8', code: 'not_acceptable' },
  { name: 'a text operation answers text', method: 'get', url: '/greeting', status: 200, contentType: 'text/plain; charset=utf-8', text: 'hello' },
  { name: 'a text operation to Accept: text/*', method: 'get', url: '/greeting', accept: 'text/*', status: 200, contentType: 'text/plain; charset=utf-8', text: 'hello' },
];

describe.each(EDGES)('answer media types and Accept through the $name', ({ make }) => {
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    app = make(await testSandbox({ spec: MEDIA, fixtures: null }));
  });

  it.each(ANSWERS)('$name → $status $contentType', async (row) => {
    let req = request(app)[row.method](`/media${row.url}`);
    if (row.accept !== undefined) req = req.set('Accept', row.accept);
    const res = await (row.send ? req.set('Content-Type', row.send.type).send(row.send.body) : req).buffer(true).parse((r, done) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => (text += chunk));
      r.on('end', () => done(null, text));
    });
    expect(res.status).toBe(row.status);
    expect(res.headers['content-type']).toBe(row.contentType);
    if (row.text !== undefined) expect(res.body).toBe(row.text);
    if (row.code !== undefined) expect(JSON.parse(res.body as string)).toMatchObject({ code: row.code, status: row.status });
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body as string)));
  });
});

describe('406 on the Pet Store', () => {
  it('refuses a create the client cannot take the answer of, before anything is stored', async () => {
    const sandbox = await testSandbox();
    const app = EDGES[0]!.make(sandbox);
    const before = await sandbox.store.digest();
    const res = await request(app).post('/v1/pets').set(auth()).set('Accept', 'text/html').send({ name: 'Rex', categoryId: 1 });
    expect(res.status).toBe(406);
    expect(res.body).toMatchObject({ code: 'not_acceptable', status: 406 });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(await sandbox.store.digest()).toBe(before);
    const ok = await request(app)
      .post('/v1/pets')
      .set(auth())
      .set('Accept', 'text/html, application/json;q=0.1')
      .send({ name: 'Rex', categoryId: 1 });
    expect(ok.status).toBe(201);
  });
});
