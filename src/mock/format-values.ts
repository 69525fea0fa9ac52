import type { Faker } from '@faker-js/faker';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/**
 * Values in a string `format` of a given length. A format's realistic value (realistic-values.ts)
 * has one length, and a schema may ask for another (`format: date-time, minLength: 25` for a
 * `+00:00` offset, `format: uuid, minLength: 45` for a URN): each format here has the variants its
 * definition allows (RFC 3339 offsets and fractional seconds, a `urn:uuid:` prefix, a longer path
 * or local part), reshaped to a length, and every variant is checked against the format as the
 * validator checks it (ajv-formats' full set, as validation/schema-compiler.ts registers it).
 */

type FormatCheck = RegExp | ((text: string) => boolean) | true | { readonly validate?: unknown; readonly type?: string };

/** Whether `text` is in `format` as the validator checks it; an unknown format is an annotation, so anything is. */
export function inFormat(format: unknown, text: string): boolean {
  const formats = fullFormats as unknown as Record<string, FormatCheck>;
  if (typeof format !== 'string' || !Object.hasOwn(formats, format)) return true;
  const check = formats[format];
  const test = typeof check === 'object' && !(check instanceof RegExp) ? check.validate : check;
  if (typeof check === 'object' && !(check instanceof RegExp) && check.type === 'number') return true;
  if (test instanceof RegExp) return test.test(text);
  return typeof test === 'function' ? Boolean((test as (s: string) => unknown)(text)) : true;
}

/** How many lengths past the shortest allowed are tried before giving up. */
const LENGTH_SPAN = 64;

/**
 * A string in `format` whose length (in code points, all ASCII here) lies in [min, max] and that
 * `accepts` (the pattern), reshaped from `natural`, the format's realistic value; undefined when
 * no variant fits. The natural length is tried first, so a value changes no more than it must.
 */
export function formatWithin(
  format: string,
  natural: string,
  faker: Faker,
  min: number,
  max: number,
  accepts: (text: string) => boolean,
): string | undefined {
  const preferred = Math.min(Math.max(natural.length, min), max);
  const last = Math.min(max, min + LENGTH_SPAN);
  const lengths = [preferred];
  for (let length = min; length <= last; length++) if (length !== preferred) lengths.push(length);
  for (const length of lengths) {
    for (const text of variants(format, natural, faker, length)) {
      if (text.length === length && inFormat(format, text) && accepts(text)) return text;
    }
  }
  return undefined;
}

const letters = (faker: Faker, n: number): string => (n > 0 ? faker.string.alpha({ length: n, casing: 'lower' }) : '');

/** Candidate strings of `length` characters in `format` (checked by the caller); none for a length it cannot take. */
function variants(format: string, natural: string, faker: Faker, length: number): readonly string[] {
  switch (format) {
    case 'date-time':
    case 'iso-date-time':
      return zoned(natural.slice(0, 19), faker, length);
    case 'time':
    case 'iso-time':
      return zoned(natural.slice(0, 8), faker, length);
    case 'uuid':
      return [natural, natural.toUpperCase(), `urn:uuid:${natural}`, `urn:uuid:${natural.toUpperCase()}`];
    case 'email':
    case 'idn-email':
      return emails(natural, faker, length);
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-template':
      return [`https://${natural.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '')}`, 'https://a.io', 'urn:a'].map((base) =>
        padded(base, faker, length),
      );
    case 'uri-reference':
    case 'iri-reference':
    case 'json-pointer':
      return [length === 0 ? '' : `/${letters(faker, length - 1)}`];
    case 'json-pointer-uri-fragment':
      return [length === 1 ? '#' : `#/${letters(faker, length - 2)}`];
    case 'relative-json-pointer':
      return [length === 1 ? '0' : `0/${letters(faker, length - 2)}`];
    case 'hostname':
    case 'idn-hostname':
      return [hostname(faker, length)];
    case 'ipv4':
      return [ipv4(faker, length)];
    case 'ipv6':
      return ipv6(faker, length);
    case 'byte':
      return length % 4 === 0 ? [Buffer.from(faker.string.alphanumeric((length / 4) * 3)).toString('base64')] : [];
    case 'duration':
      return length >= 3 ? [`P${faker.number.int({ min: 1, max: 9 })}${faker.string.numeric(length - 3)}D`] : [];
    case 'date':
      return [natural];
    default:
      // password, binary, regex and formats the validator does not check: any letters will do.
      return [letters(faker, length)];
  }
}

/**
 * A date-time or time (RFC 3339 §5.6) after `base`: `Z`, an offset in any of the forms the
 * validator accepts (`+00`, `+0000`, `+00:00`), fractional seconds; none without a zone for
 * `iso-` formats, which the format check lets through.
 */
function zoned(base: string, faker: Faker, length: number): readonly string[] {
  const rest = length - base.length;
  const out = [`${base}${['', 'Z', '', '+00', '', '+0000', '+00:00'][rest] ?? '#'}`];
  if (rest >= 3) out.push(`${base}.${faker.string.numeric(rest - 2)}Z`);
  if (rest >= 8) out.push(`${base}.${faker.string.numeric(rest - 7)}+00:00`);
  return out;
}

/** `local@domain` of `length` characters: the natural address's parts, lengthened or shortened. */
function emails(natural: string, faker: Faker, length: number): readonly string[] {
  const [local = 'a', domain = 'example.com'] = natural.split('@');
  return [domain, 'example.com', 'a.io', 'a.b'].flatMap((host) => {
    const size = length - host.length - 1;
    if (size < 1) return [];
    const part = `${local.replace(/[^a-z0-9]/g, '')}${letters(faker, size)}`.slice(0, size);
    return [`${part}@${host}`];
  });
}

/** `base` lengthened by a path (a URN by its name); shortening is left to the shorter bases. */
function padded(base: string, faker: Faker, length: number): string {
  const pad = length - base.length;
  if (pad <= 0) return base;
  if (base.startsWith('urn:')) return `${base}${letters(faker, pad)}`;
  return pad === 1 ? `${base}/` : `${base}/${letters(faker, pad - 1)}`;
}

/** Labels of at most 63 letters (RFC 1123 §2.1) joined by dots. */
function hostname(faker: Faker, length: number): string {
  let out = '';
  while (length - out.length > 63) out += `${letters(faker, 62)}.`;
  return out + letters(faker, length - out.length);
}

/** Four octets whose digits add up to `length` less the dots, none with a leading zero. */
function ipv4(faker: Faker, length: number): string {
  let digits = length - 3;
  const octets: string[] = [];
  for (let i = 0; i < 4; i++) {
    const size = Math.max(1, Math.min(3, digits - (3 - i)));
    digits -= size;
    octets.push(String(faker.number.int({ min: size === 1 ? 0 : 10 ** (size - 1), max: size === 3 ? 199 : 10 ** size - 1 })));
  }
  return octets.join('.');
}

/** Eight groups of one to four hex digits, or fewer after a `::` (RFC 4291 §2.2). */
function ipv6(faker: Faker, length: number): readonly string[] {
  const groups = (count: number, chars: number): string | undefined => {
    const digits = chars - (count - 1);
    if (count < 1 || digits < count || digits > 4 * count) return undefined;
    const sizes = Array.from({ length: count }, (_, i) => Math.floor(digits / count) + (i < digits % count ? 1 : 0));
    return sizes.map((size) => faker.string.hexadecimal({ length: size, casing: 'lower', prefix: '' })).join(':');
  };
  const full = groups(8, length);
  if (full !== undefined) return [full];
  if (length === 2) return ['::'];
  const after = groups(Math.min(7, Math.max(1, Math.ceil((length - 1) / 5))), length - 2);
  return after === undefined ? [] : [`::${after}`];
}
