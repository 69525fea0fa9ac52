import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const STYLES = fileURLToPath(new URL('../documents/styles.yaml', import.meta.url));

interface Row {
  readonly name: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly status: number;
  readonly code?: string;
  /** Locations the 400's details must name, exactly. */
  readonly locations?: readonly string[];
}

/** One row per request: every style of OpenAPI 3.1 §4.8.12.4, in every location it is allowed in. */
// prettier-ignore
const ROWS: readonly Row[] = [
  // path: matrix, label, simple
  { name: 'matrix exploded array', url: '/s/matrix/;ids=1;ids=2', status: 204 },
  { name: 'matrix item not an integer', url: '/s/matrix/;ids=1;ids=x', status: 400, code: 'validation_failed', locations: ['path.ids'] },
  { name: 'matrix without its ;name', url: '/s/matrix/1,2', status: 400, code: 'validation_failed', locations: ['path.ids'] },
  { name: 'label exploded object', url: '/s/label/.x=1.y=2', status: 204 },
  { name: 'label object with an unknown property', url: '/s/label/.x=1.y=2.z=3', status: 400, code: 'validation_failed', locations: ['path.point.z'] },
  { name: 'label object property not an integer', url: '/s/label/.x=1.y=a', status: 400, code: 'validation_failed', locations: ['path.point.y'] },
  { name: 'label without its dot', url: '/s/label/x=1.y=2', status: 400, code: 'validation_failed', locations: ['path.point'] },
  { name: 'simple object (names and values alternate)', url: '/s/simple/x,1,y,2', status: 204 },
  { name: 'simple object missing a property', url: '/s/simple/x,1', status: 400, code: 'validation_failed', locations: ['path.point.y'] },
  { name: 'simple object with an odd list', url: '/s/simple/x,1,y', status: 400, code: 'validation_failed', locations: ['path.point'] },
  // query: spaceDelimited, pipeDelimited, form objects, deepObject
  { name: 'spaceDelimited array', url: '/s/delimited?ids=1%202%203', status: 204 },
  { name: 'spaceDelimited array with + for spaces', url: '/s/delimited?ids=1+2', status: 204 },
  { name: 'spaceDelimited item not an integer', url: '/s/delimited?ids=1%20x', status: 400, code: 'validation_failed', locations: ['query.ids'] },
  { name: 'pipeDelimited array', url: '/s/delimited?tags=a|b|c', status: 204 },
  { name: 'pipeDelimited item not in the enum', url: '/s/delimited?tags=a|z', status: 400, code: 'validation_failed', locations: ['query.tags[1]'] },
  { name: 'form object, not exploded', url: '/s/delimited?rgb=R,100,G,200', status: 204 },
  { name: 'form object property above its maximum', url: '/s/delimited?rgb=R,100,G,300', status: 400, code: 'validation_failed', locations: ['query.rgb.G'] },
  { name: 'deepObject', url: '/s/deep?filter[min]=1&filter[max]=20&filter[name]=x', status: 204 },
  { name: 'deepObject with brackets percent-encoded', url: '/s/deep?filter%5Bmin%5D=1', status: 204 },
  { name: 'deepObject property not an integer', url: '/s/deep?filter[min]=one', status: 400, code: 'validation_failed', locations: ['query.filter.min'] },
  { name: 'deepObject property above its maximum', url: '/s/deep?filter[max]=200', status: 400, code: 'validation_failed', locations: ['query.filter.max'] },
  { name: 'deepObject unknown property', url: '/s/deep?filter[colour]=red', status: 400, code: 'validation_failed', locations: ['query.filter.colour'] },
  { name: 'deepObject property given twice', url: '/s/deep?filter[min]=1&filter[min]=2', status: 400, code: 'validation_failed', locations: ['query.filter.min'] },
  { name: 'deepObject nested deeper than defined', url: '/s/deep?filter[a][b]=1', status: 400, code: 'validation_failed', locations: ['query.filter'] },
  { name: 'every deepObject violation and another parameter at once', url: '/s/deep?filter[min]=x&limit=y', status: 400, code: 'validation_failed', locations: ['query.filter.min', 'query.limit'] },
  { name: 'form-exploded object: each property its own key', url: '/s/form-object?x=1&y=2&limit=3', status: 204 },
  { name: 'form-exploded object property not an integer', url: '/s/form-object?x=1&y=b', status: 400, code: 'validation_failed', locations: ['query.point.y'] },
  { name: 'form-exploded object missing its required property', url: '/s/form-object?y=2', status: 400, code: 'validation_failed', locations: ['query.point.x'] },
  { name: 'required form-exploded object not sent at all', url: '/s/form-object?limit=1', status: 400, code: 'validation_failed', locations: ['query.point'] },
  { name: 'free-form object takes the undeclared keys', url: '/s/free-form?q=x&a=1&b=2', status: 204 },
  { name: 'free-form object values typed by additionalProperties', url: '/s/free-form?q=x&a=one', status: 400, code: 'validation_failed', locations: ['query.counts.a'] },
  // cookie (RFC 6265 Cookie header, form style)
  { name: 'cookies', url: '/s/cookies', headers: { Cookie: 'session=0123abcd; page=2; prefs=theme,dark,size,3' }, status: 204 },
  { name: 'quoted and percent-encoded cookie values', url: '/s/cookies', headers: { Cookie: 'session="0123abcd"; prefs=theme%2Clight' }, status: 204 },
  { name: 'required cookie missing', url: '/s/cookies', headers: { Cookie: 'page=2' }, status: 400, code: 'validation_failed', locations: ['cookie.session'] },
  { name: 'no Cookie header at all', url: '/s/cookies', status: 400, code: 'validation_failed', locations: ['cookie.session'] },
  { name: 'every cookie violation at once', url: '/s/cookies', headers: { Cookie: 'session=XYZ; page=0; prefs=theme,pink' }, status: 400, code: 'validation_failed', locations: ['cookie.session', 'cookie.page', 'cookie.prefs.theme'] },
  { name: 'cookie integer not canonical', url: '/s/cookies', headers: { Cookie: 'session=0123abcd; page=02' }, status: 400, code: 'validation_failed', locations: ['cookie.page'] },
  // header
  { name: 'header array, blanks around commas', url: '/s/headers', headers: { 'X-Ids': '1, 2,3' }, status: 204 },
  { name: 'header array item not an integer', url: '/s/headers', headers: { 'X-Ids': '1,x' }, status: 400, code: 'validation_failed', locations: ['header.x-ids'] },
  { name: 'Accept, Content-Type and Authorization parameters are ignored', url: '/s/headers', status: 204 },
  // content-typed parameters
  { name: 'JSON parameter', url: `/s/content?where=${encodeURIComponent('{"age":3}')}`, status: 204 },
  { name: 'JSON parameter breaking its schema', url: `/s/content?where=${encodeURIComponent('{"age":"3"}')}`, status: 400, code: 'validation_failed', locations: ['query.where.age'] },
  { name: 'JSON parameter that is not JSON', url: '/s/content?where=age%3D3', status: 400, code: 'validation_failed', locations: ['query.where'] },
  // allowEmptyValue
  { name: 'allowEmptyValue: an empty value counts as sent', url: '/s/empty?flag=', status: 204 },
  { name: 'allowEmptyValue: a key without = counts as sent', url: '/s/empty?flag', status: 204 },
  { name: 'allowEmptyValue: a value is still validated', url: '/s/empty?flag=ab', status: 400, code: 'validation_failed', locations: ['query.flag'] },
  { name: 'without allowEmptyValue an empty value is validated', url: '/s/empty?flag=abc&name=', status: 400, code: 'validation_failed', locations: ['query.name'] },
  // allowReserved
  { name: 'allowReserved: reserved characters as they are, + a plus', url: '/s/reserved?expr=a+b:c/d?e@f', status: 204 },
  { name: 'allowReserved: a percent-encoded plus too', url: '/s/reserved?expr=a%2Bb', status: 204 },
  { name: 'allowReserved: a space is still a space', url: '/s/reserved?expr=a%20b', status: 400, code: 'validation_failed', locations: ['query.expr'] },
  { name: 'without allowReserved a + is a space', url: '/s/reserved?plain=a+b&expr=a+b', status: 400, code: 'validation_failed', locations: ['query.plain'] },
  // patterns in the document's dialect
  { name: 'a pattern unicode mode refuses, matched', url: '/s/patterns?slug=a-b.c_d', status: 204 },
  { name: 'a pattern unicode mode refuses, not matched', url: '/s/patterns?slug=a%20b', status: 400, code: 'validation_failed', locations: ['query.slug'] },
  { name: 'a pattern no JavaScript mode compiles constrains nothing', url: '/s/patterns?code=XYZ', status: 204 },
];

describe.each(EDGES)('parameter styles through the $name', ({ make }) => {
  let app: ReturnType<typeof make>;
  beforeEach(async () => {
    const sandbox: Sandbox = await testSandbox({ spec: STYLES, fixtures: null });
    app = make(sandbox);
  });

  it.each(ROWS)('$name → $status $code', async (row) => {
    const res = await request(app)
      .get(row.url)
      .set(row.headers ?? {});
    expect(res.status).toBe(row.status);
    if (row.status >= 400) expect(res.body).toMatchObject({ code: row.code, status: row.status, message: expect.any(String) });
    if (row.locations) {
      const locations = (res.body.details as { location: string }[]).map((d) => d.location);
      expect([...new Set(locations)].sort()).toEqual([...row.locations].sort());
    }
  });
});

describe.each(EDGES)('form-exploded objects and validation.unknownQueryParameters: reject, through the $name', ({ make }) => {
  // prettier-ignore
  const REJECT: readonly Row[] = [
    { name: 'declared properties of a form-exploded object are not unknown', url: '/s/form-object?x=1&y=2', status: 204 },
    { name: 'a key neither a parameter nor a declared property is', url: '/s/form-object?x=1&z=2', status: 400, code: 'validation_failed', locations: ['query.z'] },
    { name: 'a free-form object claims every other key', url: '/s/free-form?a=1&b=2', status: 204 },
    { name: 'deepObject keys belong to their parameter', url: '/s/deep?filter[min]=1&filter[max]=2', status: 204 },
    { name: 'a key that only looks like a deepObject key is unknown', url: '/s/deep?filters[min]=1', status: 400, code: 'validation_failed', locations: ['query.filters[min]'] },
  ];
  it.each(REJECT)('$name → $status', async (row) => {
    const sandbox = await testSandbox({ spec: STYLES, fixtures: null, validation: { unknownQueryParameters: 'reject' } });
    const res = await request(make(sandbox)).get(row.url);
    expect(res.status).toBe(row.status);
    if (row.locations)
      expect((res.body.details as { location: string }[]).map((d) => d.location).sort()).toEqual([...row.locations].sort());
  });
});
