import type { Faker } from '@faker-js/faker';
import type { JsonObject } from '../openapi/json-pointer.js';
import { formatWithin, inFormat } from './format-values.js';
import { codePoints, matchesPattern, stringMatching } from './pattern-values.js';
import { byName, formatted, numericFormat } from './realistic-values.js';

/** Numbers and strings that keep every keyword the validator checks on them. */

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * A number within `minimum`/`maximum`, the exclusive bounds and the format's range (integral for
 * `integer`, `int32` and `int64`), a multiple of `multipleOf` when there is one. Unbounded
 * integers fall in 1–1000, so they read as ids and counts.
 */
export function fakeNumber(schema: JsonObject, faker: Faker, integer: boolean): number {
  const format = numericFormat(schema.format);
  const integral = integer || format?.integral === true;
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  const gap = integral ? 1 : 0.01;
  let low = Math.max(num(schema.minimum) ?? -Infinity, exclusiveMin === undefined ? -Infinity : exclusiveMin + gap);
  let high = Math.min(num(schema.maximum) ?? Infinity, exclusiveMax === undefined ? Infinity : exclusiveMax - gap);
  const floor = integral ? 1 : 0;
  if (low === -Infinity) low = high >= floor ? floor : high - 1000;
  if (high === Infinity) high = low + 1000;
  // The format's range last: it narrows what the schema allows, never widens a default.
  if (format) [low, high] = [Math.max(low, format.min), Math.min(high, format.max)];
  if (integral) [low, high] = [Math.ceil(low), Math.floor(high)];
  const step = num(schema.multipleOf);
  if (step !== undefined && step > 0) return multiple(faker, step, low, high);
  // A range narrower than two hundredths (`exclusiveMinimum: 0, maximum: 0.005`): its midpoint.
  if (low > high && !integral) {
    const below = Math.max(num(schema.minimum) ?? -Infinity, exclusiveMin ?? -Infinity);
    return (below + Math.min(num(schema.maximum) ?? Infinity, exclusiveMax ?? Infinity)) / 2;
  }
  if (low > high) return low;
  return integral ? faker.number.int({ min: low, max: high }) : faker.number.float({ min: low, max: high, fractionDigits: 2 });
}

/**
 * A multiple of `step` in the bounds that the validator accepts: Ajv tests `value / step` for an
 * integer, which floating point misses for many products (0.3 / 0.1), so candidates are checked.
 */
function multiple(faker: Faker, step: number, low: number, high: number): number {
  const first = Math.ceil(low / step);
  const last = Math.max(first, Math.floor(high / step));
  const digits = Math.min(12, Math.max(0, -Math.floor(Math.log10(step)) + 2));
  for (let attempt = 0; attempt < 8; attempt++) {
    const value = Number((faker.number.int({ min: first, max: last }) * step).toFixed(digits));
    if (Number.isInteger(value / step)) return value;
  }
  return low <= 0 && high >= 0 ? 0 : first * step;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

/**
 * A string for the schema: a realistic value first (its `format`, else the property's name) when it
 * keeps the length bounds and the `pattern`; else the format's value reshaped to fit them
 * (format-values.ts); else one drawn from the pattern that is in the format too; else words. A
 * format the validator checks is never replaced by a name's value, which would break it.
 */
export function fakeString(schema: JsonObject, faker: Faker, name: string | undefined): string {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? Infinity;
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const fits = (text: string): boolean =>
    codePoints(text) >= min && codePoints(text) <= max && (pattern === undefined || matchesPattern(pattern, text));
  const inItsFormat = formatted(schema.format, faker);
  const realistic = inItsFormat ?? (schema.format === undefined ? byName(name, faker) : undefined);
  if (realistic !== undefined && fits(realistic)) return realistic;
  if (inItsFormat !== undefined) {
    const reshaped = formatWithin(String(schema.format), inItsFormat, faker, min, max, fits);
    if (reshaped !== undefined) return reshaped;
  }
  // A date-time by name where the pattern asks for a date alone (`estimatedDeliveryDate: ^\d{4}-\d{2}-\d{2}$`).
  if (realistic !== undefined && ISO_DATE_TIME.test(realistic) && fits(realistic.slice(0, 10))) return realistic.slice(0, 10);
  if (pattern !== undefined) {
    let first: string | undefined;
    for (let attempt = 0; attempt < PATTERN_TRIES; attempt++) {
      const text = stringMatching(pattern, faker, min, max);
      if (text === undefined) break;
      if (inFormat(schema.format, text)) return text;
      first ??= text;
    }
    if (first !== undefined) return first;
  }
  return words(faker, min, max);
}

/** How many strings are drawn from a pattern for one that is also in the schema's format. */
const PATTERN_TRIES = 8;

function words(faker: Faker, min: number, max: number): string {
  let text = faker.lorem.words({ min: 1, max: 3 });
  while (codePoints(text) < Math.max(min, 1)) text += ` ${faker.lorem.word()}`;
  return codePoints(text) > max ? Array.from(text).slice(0, max).join('') : text;
}
