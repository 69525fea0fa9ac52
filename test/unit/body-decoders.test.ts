import { beforeAll, describe, expect, it } from 'vitest';
import type { BodyField } from '../../src/validation/body-fields.js';
import { decodeForm } from '../../src/validation/form-body.js';
import { parseMultipart } from '../../src/validation/multipart-body.js';
import { buildXml } from '../../src/validation/xml-answer.js';
import { readXml } from '../../src/validation/xml-body.js';
import { loadXml } from '../../src/validation/xml-library.js';

// A sandbox loads the XML library for a document that declares XML; these call it directly.
beforeAll(loadXml);

const field = (name: string, kind: BodyField['parameter']['kind'], extra: Partial<BodyField['parameter']> = {}): BodyField => ({
  name,
  parameter: {
    name,
    in: 'query',
    required: false,
    schemaPointer: undefined,
    kind,
    itemKind: 'integer',
    style: 'form',
    explode: true,
    ...extra,
  },
  binary: false,
  contentTypes: undefined,
  json: false,
});

describe('parseMultipart (RFC 2046 §5.1.1, RFC 7578)', () => {
  const crlf = (...lines: string[]) => Buffer.from(lines.join('\r\n'));
  it('reads fields and files, skipping a preamble, up to the close delimiter', () => {
    const body = crlf(
      'preamble',
      '--b',
      'Content-Disposition: form-data; name="a"',
      '',
      '1',
      '--b  ',
      'Content-Disposition: form-data; name="f"; filename="x \\"y\\".txt"',
      'Content-Type: text/csv',
      '',
      'p,q',
      '--b--',
      'epilogue',
    );
    const read = parseMultipart(body, 'b');
    expect(read).toEqual({
      ok: true,
      parts: [
        { name: 'a', filename: undefined, contentType: 'text/plain', data: Buffer.from('1') },
        { name: 'f', filename: 'x "y".txt', contentType: 'text/csv', data: Buffer.from('p,q') },
      ],
    });
  });
  it('keeps a part body that contains line breaks and dashes', () => {
    const read = parseMultipart(crlf('--b', 'Content-Disposition: form-data; name="a"', '', 'x', '--', 'y', '--b--'), 'b');
    expect(read.ok && read.parts[0]?.data.toString()).toBe('x\r\n--\r\ny');
  });
  it.each([
    ['no boundary at all', 'hello'],
    ['no closing boundary', '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1'],
    ['a part without form-data', '--b\r\nContent-Type: text/plain\r\n\r\n1\r\n--b--'],
    ['a part without a name', '--b\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b--'],
    ['a part without a blank line', '--b\r\nContent-Disposition: form-data; name="a"\r\n--b--'],
  ])('refuses %s', (_name, body) => {
    expect(parseMultipart(Buffer.from(body), 'b').ok).toBe(false);
  });
});

describe('decodeForm', () => {
  const fields = new Map([
    ['n', field('n', 'integer')],
    ['ids', field('ids', 'array', { explode: false })],
  ]);
  it('types fields by the schema and honours explode', () => {
    expect(decodeForm('n=3&ids=1,2&s=a+b%21', fields)).toEqual({ value: { n: 3, ids: [1, 2], s: 'a b!' }, violations: [] });
  });
  it('keeps unreadable text and says why', () => {
    expect(decodeForm('n=x', fields)).toEqual({ value: { n: 'x' }, violations: [{ location: 'body.n', message: 'must be an integer' }] });
  });
  it('keeps __proto__ as plain data', () => {
    const { value } = decodeForm('__proto__=1', fields);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
  });
});

describe('XML by the schema (OpenAPI 3.1 §4.8.26)', () => {
  const document = {
    components: {
      schemas: {
        Pet: {
          type: 'object',
          xml: { name: 'pet' },
          properties: {
            id: { type: 'integer', xml: { attribute: true } },
            name: { type: 'string', xml: { name: 'Name' } },
            alive: { type: 'boolean' },
            tags: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'tag' } } },
            photos: { type: 'array', items: { type: 'string', xml: { name: 'photo' } } },
          },
        },
        Pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
      },
    },
  };
  const pet = { id: 1, name: 'Rex', alive: true, tags: ['a', 'b'], photos: ['p1'] };
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?><pet id="1"><Name>Rex</Name><alive>true</alive><tags><tag>a</tag><tag>b</tag></tags><photo>p1</photo></pet>';

  it('builds XML from a JSON value', () => {
    expect(buildXml(document, '#/components/schemas/Pet', pet)).toBe(xml);
  });
  it('reads the same XML back into the same value', () => {
    expect(readXml(document, '#/components/schemas/Pet', xml)).toEqual({ ok: true, value: pet });
  });
  it('names an array root and its items', () => {
    expect(buildXml(document, '#/components/schemas/Pets', [{ id: 2 }])).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Pets><pet id="2"></pet></Pets>',
    );
  });
  it('keeps text that is not of its type, for the validator to name', () => {
    expect(readXml(document, '#/components/schemas/Pet', '<pet id="x"><alive>maybe</alive></pet>')).toEqual({
      ok: true,
      value: { id: 'x', alive: 'maybe' },
    });
  });
});
