import { describe, expect, it } from 'vitest';
import { chooseMediaType, parseAccept } from '../../src/validation/accept.js';
import { essence, isJsonType, mediaKind } from '../../src/validation/media-type.js';

const JSON_XML = ['application/json', 'application/xml'];

// prettier-ignore
const ROWS: readonly [string, readonly string[], string | undefined, string | undefined][] = [
  ['no Accept: JSON first', ['application/xml', 'application/json'], undefined, 'application/json'],
  ['no Accept, no JSON: the first declared', ['text/plain', 'application/xml'], undefined, 'text/plain'],
  ['*/*: JSON first', ['application/xml', 'application/vnd.api+json'], '*/*', 'application/vnd.api+json'],
  ['an exact type', JSON_XML, 'application/xml', 'application/xml'],
  ['the most preferred by q', JSON_XML, 'application/json;q=0.5, application/xml', 'application/xml'],
  ['a named type over */* at the same q', JSON_XML, 'application/xml, */*', 'application/xml'],
  ['type/* covers the type', ['image/png', 'application/json'], 'image/*', 'image/png'],
  ['q=0 refuses a type', JSON_XML, 'application/json;q=0, */*', 'application/xml'],
  ['nothing fits', ['application/json'], 'image/png', undefined],
  ['nothing fits, q=0 everywhere', ['application/json'], '*/*;q=0', undefined],
  ['a key with parameters keeps them', ['application/json;charset=utf-8'], 'application/json', 'application/json;charset=utf-8'],
  ['a declared */* answers the named type', ['*/*'], 'text/csv', 'text/csv'],
  ['a declared */* answers JSON to */*', ['*/*'], undefined, 'application/json'],
  ['a malformed Accept accepts anything', ['application/xml'], 'nonsense;;', 'application/xml'],
  ['case does not matter', ['application/xml'], 'Application/XML', 'application/xml'],
  ['an invalid q skips the range', ['application/xml'], 'application/xml;q=2', 'application/xml'],
];

describe('chooseMediaType (RFC 9110 §12.5.1)', () => {
  it.each(ROWS)('%s', (_name, declared, accept, expected) => {
    expect(chooseMediaType(declared, accept)).toBe(expected);
  });

  it('answers the same for a list and an Accept asked again, past the values it remembers', () => {
    // The choice is remembered per list and Accept value (a bounded number of them): asking again,
    // after a flood of other values, gives the same answers as the first time.
    const declared = ['application/json', 'application/xml'];
    const first = ROWS.map(([, , accept]) => chooseMediaType(declared, accept));
    for (let i = 0; i < 300; i++) expect(chooseMediaType(declared, `application/x-${i}`)).toBeUndefined();
    expect(ROWS.map(([, , accept]) => chooseMediaType(declared, accept))).toEqual(first);
    expect(chooseMediaType(declared, 'image/png')).toBeUndefined();
    expect(chooseMediaType(declared, 'image/png')).toBeUndefined();
  });

  it('reads q-values and skips malformed ranges', () => {
    expect(parseAccept('text/html;q=0.8, bad, application/json')).toEqual([
      { type: 'text', subtype: 'html', q: 0.8 },
      { type: 'application', subtype: 'json', q: 1 },
    ]);
  });
});

describe('media kinds', () => {
  it.each([
    ['application/json', 'json'],
    ['application/vnd.api+json', 'json'],
    ['application/problem+json; charset=utf-8', 'json'],
    ['application/x-www-form-urlencoded', 'form'],
    ['multipart/form-data; boundary=x', 'multipart'],
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['application/atom+xml', 'xml'],
    ['text/plain', 'text'],
    ['text/csv', 'text'],
    ['application/octet-stream', 'binary'],
    ['image/png', 'binary'],
  ])('%s is %s', (type, kind) => {
    expect(mediaKind(type)).toBe(kind);
  });
  it('strips parameters from a key', () => {
    expect(essence('Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(isJsonType('application/jsonx')).toBe(false);
  });
});
