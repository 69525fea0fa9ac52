import type { ParameterSpec, ValueKind } from '../vocabulary/operation.js';
import { splitText, type Pieces } from './parameter-styles.js';

export type Parsed =
  | { readonly ok: true; readonly value: unknown }
  /** `at`: the property the message is about (`R` for `query.color.R`), when it is about one. */
  | { readonly ok: false; readonly message: string; readonly at?: string };

// Canonical decimal text only: no sign on zero, no leading zeros, no exponent, no hex, no blanks.
// Deliberately stricter than type coercion, which takes `1e3`, ` 1` or `0x10` for numbers.
const INTEGER = /^(0|-?[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
// RFC 6838 §4.2.8: `application/json` and every `+json` suffix are JSON text.
const JSON_MEDIA = /^[a-z0-9!#$&^_.+-]+\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;

/** Whether a `content`-typed parameter's value is JSON text (parsed, then validated by schema). */
export const isJsonMedia = (mediaType: string): boolean => JSON_MEDIA.test(mediaType.split(';')[0]?.trim() ?? '');

/** One text read as one JSON type (`any` and `string`: as it is). */
export function parseScalar(text: string, kind: ValueKind): Parsed {
  switch (kind) {
    case 'integer': {
      if (!INTEGER.test(text)) return { ok: false, message: 'must be an integer' };
      const value = Number(text);
      if (!Number.isSafeInteger(value)) return { ok: false, message: 'must be an integer between -(2^53-1) and 2^53-1' };
      return { ok: true, value };
    }
    case 'number': {
      if (!NUMBER.test(text)) return { ok: false, message: 'must be a number' };
      const value = Number(text);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'must be a finite number' };
    }
    case 'boolean':
      if (text === 'true') return { ok: true, value: true };
      if (text === 'false') return { ok: true, value: false };
      return { ok: false, message: 'must be true or false' };
    default:
      return { ok: true, value: text };
  }
}

/**
 * Turns a parameter's text into the JSON value its schema describes, by the serialization rules
 * of OpenAPI 3.1 §4.8.12.4 (the style table is in parameter-styles.ts).
 *
 * @param values every value received under the parameter's name, in order: one for path and
 *   header parameters, each repetition of the key for query and cookie parameters.
 */
export function parseParameter(spec: ParameterSpec, values: readonly string[]): Parsed {
  if (spec.mediaType !== undefined) return parseContent(spec.mediaType, values);
  if (spec.kind === 'array' && (spec.in === 'query' || spec.in === 'cookie')) {
    // Exploded: each repetition of the key is one item. Not exploded: each value is a delimited
    // list; repetitions are joined (as before styles were read), rather than refused.
    if (spec.explode) return fromPieces(spec, { ok: true, shape: 'items', texts: values });
    const texts: string[] = [];
    for (const value of values) {
      const pieces = splitText(spec, value);
      if (!pieces.ok) return pieces;
      if (pieces.shape === 'items') texts.push(...pieces.texts);
    }
    return fromPieces(spec, { ok: true, shape: 'items', texts });
  }
  if (values.length > 1) return { ok: false, message: 'must be given once' };
  return fromPieces(spec, splitText(spec, values[0] ?? ''));
}

/** The spec read each way its schema allows (`variants`), first branch first; the spec alone when it has one way. */
export const readingsOf = (spec: ParameterSpec): readonly ParameterSpec[] =>
  spec.variants === undefined ? [spec] : spec.variants.map((shape) => ({ ...spec, ...shape, variants: undefined }));

/**
 * The first reading the schema accepts; else the first that parses (its schema errors tell the
 * client why), else the first failure. A path segment `1` for `oneOf: [{type: integer, enum: [1]},
 * {type: string, enum: [a]}]` is the integer 1, and `a` the string.
 */
export function firstAccepted(
  readings: readonly ParameterSpec[],
  parse: (spec: ParameterSpec) => Parsed,
  accepts: ((value: unknown) => boolean) | undefined,
): Parsed {
  let parsed: Parsed | undefined;
  let failed: Parsed | undefined;
  for (const reading of readings) {
    const attempt = parse(reading);
    if (!attempt.ok) failed ??= attempt;
    else if (readings.length === 1 || !accepts || accepts(attempt.value)) return attempt;
    else parsed ??= attempt;
  }
  return parsed ?? failed ?? { ok: false, message: 'is invalid' };
}

/** An object sent as several keys (form exploded: `R=100&G=200`; deepObject: `color[R]=100`). */
export function parseMembers(spec: ParameterSpec, pairs: readonly (readonly [string, string])[]): Parsed {
  return fromPieces(spec, { ok: true, shape: 'pairs', pairs });
}

function fromPieces(spec: ParameterSpec, pieces: Pieces): Parsed {
  if (!pieces.ok) return pieces;
  switch (pieces.shape) {
    case 'scalar':
      return parseScalar(pieces.text, spec.kind);
    case 'items': {
      const items: unknown[] = [];
      for (const text of pieces.texts) {
        const item = parseScalar(text, spec.itemKind);
        if (!item.ok) return { ok: false, message: `item ${items.length} ${item.message}` };
        items.push(item.value);
      }
      return { ok: true, value: items };
    }
    case 'pairs': {
      const entries: [string, unknown][] = [];
      const seen = new Set<string>();
      for (const [name, text] of pieces.pairs) {
        if (seen.has(name)) return { ok: false, message: 'is given twice', at: name };
        seen.add(name);
        // Undeclared properties stay text: the schema decides whether they are allowed.
        const member = parseScalar(text, spec.propertyKinds?.get(name) ?? spec.additionalKind ?? 'any');
        if (!member.ok) return { ...member, at: name };
        entries.push([name, member.value]);
      }
      // fromEntries defines own properties, so `__proto__` is just a name here.
      return { ok: true, value: Object.fromEntries(entries) };
    }
  }
}

/** `content`-typed parameters (OpenAPI 3.1 §4.8.12.2.2): the value is the media type's text. */
function parseContent(mediaType: string, values: readonly string[]): Parsed {
  if (values.length > 1) return { ok: false, message: 'must be given once' };
  const text = values[0] ?? '';
  if (!isJsonMedia(mediaType)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, message: `must be ${mediaType} text` };
  }
}
