import type { Faker } from '@faker-js/faker';
import type { JsonObject } from '../openapi/json-pointer.js';
import { fakerMethod } from './seeded-faker.js';

/**
 * Realistic values: names that look like names, emails like emails. The schema's `x-faker` first
 * (`internet.email`, or `{method, args}`), then its `format`, then the property's name. The caller
 * keeps a value only when it satisfies the schema (pattern, bounds, enum), else generates plainly.
 */

/** The value `x-faker` names, or undefined when the schema has none (or it names no generator). */
export function xFakerValue(schema: JsonObject, faker: Faker): { value: unknown } | undefined {
  const raw = schema['x-faker'];
  const method = typeof raw === 'string' ? raw : typeof raw === 'object' && raw !== null ? (raw as JsonObject).method : undefined;
  const args =
    typeof raw === 'object' && raw !== null && Array.isArray((raw as JsonObject).args) ? ((raw as JsonObject).args as unknown[]) : [];
  if (typeof method !== 'string') return undefined;
  const generator = fakerMethod(faker, method.replace(/^faker\./, ''));
  if (typeof generator !== 'function') return undefined;
  const value = (generator as (...a: unknown[]) => unknown)(...args);
  return { value: value instanceof Date ? isoSeconds(value) : value };
}

const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A string in the schema's `format` (JSON Schema 2020-12 §7.3, OpenAPI 3.0 §4.7.5.3): every string
 * format the validator checks (ajv-formats) has one, so a value in a known format is always valid
 * in it; undefined for other formats, which are annotations only.
 */
export function formatted(format: unknown, faker: Faker): string | undefined {
  switch (format) {
    case 'date-time':
    case 'iso-date-time':
      return isoSeconds(faker.date.recent({ days: 90 }));
    case 'date':
      return isoSeconds(faker.date.recent({ days: 90 })).slice(0, 10);
    case 'time':
    case 'iso-time':
      return isoSeconds(faker.date.recent({ days: 90 })).slice(11);
    case 'duration':
      return faker.helpers.arrayElement([`P${faker.number.int({ min: 1, max: 30 })}D`, `PT${faker.number.int({ min: 1, max: 59 })}M`]);
    case 'email':
    case 'idn-email':
      return faker.internet.email().toLowerCase();
    case 'uri':
    case 'url':
    case 'iri':
      return faker.internet.url();
    case 'uri-reference':
    case 'iri-reference':
      return `/${faker.lorem.slug(2)}`;
    case 'uri-template':
      return `${faker.internet.url({ appendSlash: true })}{id}`;
    case 'uuid':
      return faker.string.uuid();
    case 'hostname':
    case 'idn-hostname':
      return faker.internet.domainName();
    case 'ipv4':
      return faker.internet.ipv4();
    case 'ipv6':
      return faker.internet.ipv6();
    case 'regex':
      return '^[a-z]+$';
    case 'json-pointer':
      return `/${faker.lorem.word()}/${faker.number.int({ max: 9 })}`;
    case 'json-pointer-uri-fragment':
      return `#/${faker.lorem.word()}`;
    case 'relative-json-pointer':
      return `${faker.number.int({ max: 3 })}/${faker.lorem.word()}`;
    case 'byte':
      return Buffer.from(faker.lorem.word()).toString('base64');
    case 'binary':
      return faker.lorem.word();
    case 'password':
      return faker.internet.password({ length: 12 });
    default:
      return undefined;
  }
}

/**
 * The range a numeric `format` allows (OpenAPI 3.0 §4.7.5.3 data types), integral for `int32` and
 * `int64`: an int64 past 2^53 does not survive JSON in JavaScript clients, which the validator
 * checks too (validation/schema-compiler.ts).
 */
export function numericFormat(format: unknown): { readonly integral: boolean; readonly min: number; readonly max: number } | undefined {
  if (format === 'int32') return { integral: true, min: -(2 ** 31), max: 2 ** 31 - 1 };
  if (format === 'int64') return { integral: true, min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
  return undefined;
}

/** Generators by property name, lower-cased with `_` and `-` removed; the first match wins. */
const BY_NAME: readonly (readonly [RegExp, (faker: Faker) => string])[] = [
  [/email$/, (f) => f.internet.email().toLowerCase()],
  [/^(first|given)name$/, (f) => f.person.firstName()],
  [/^(last|family|sur)name$|^surname$/, (f) => f.person.lastName()],
  [/^user(name)?$|^login$|^handle$/, (f) => f.internet.username()],
  [/^(full|display)?name$|^(author|owner|customer|contact)(name)?$/, (f) => f.person.fullName()],
  [/(company|organization|organisation)(name)?$/, (f) => f.company.name()],
  [/(url|uri|website|homepage|link|href)$/, (f) => f.internet.url()],
  [/(avatar|image|photo|picture)(url)?$/, (f) => f.image.url()],
  [/(phone|telephone|mobile|fax)(number)?$/, (f) => f.phone.number({ style: 'international' })],
  [/^city$/, (f) => f.location.city()],
  [/^country$/, (f) => f.location.country()],
  [/^countrycode$/, (f) => f.location.countryCode()],
  [/^(street|address|addressline1?)$/, (f) => f.location.streetAddress()],
  [/^(zip|zipcode|postcode|postalcode)$/, (f) => f.location.zipCode()],
  [/^(state|region|province)$/, (f) => f.location.state()],
  [/(currency|currencycode)$/, (f) => f.finance.currencyCode()],
  [/(color|colour)$/, (f) => f.color.human()],
  [/(uuid|guid)$/, (f) => f.string.uuid()],
  [/^ip(address)?$/, (f) => f.internet.ipv4()],
  [
    /(created|updated|deleted|modified|expires|issued|started|ended|published)(at|on)$|date$|timestamp$/,
    (f) => isoSeconds(f.date.recent({ days: 90 })),
  ],
  [/^(title|subject|headline)$/, (f) => f.lorem.sentence({ min: 2, max: 5 }).replace(/\.$/, '')],
  [/^(description|summary|bio|comment|message|note|notes|text|body)$/, (f) => f.lorem.sentence()],
];

/** A realistic string for a property of that name, or undefined when its name says nothing. */
export function byName(name: string | undefined, faker: Faker): string | undefined {
  if (name === undefined) return undefined;
  const key = name.toLowerCase().replace(/[_-]/g, '');
  return BY_NAME.find(([pattern]) => pattern.test(key))?.[1](faker);
}
