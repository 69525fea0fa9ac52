/**
 * Requests generated from an OpenAPI document, operation by operation: nothing here names an
 * operation, a parameter or a field. For each operation of the compiled model (src/spec) it builds
 *
 * - `valid`: requests the document allows, which the sandbox must accept (2xx, or 404
 *   resource_not_found for an id that does not exist), sent in the many spellings the protocols
 *   allow for the same request: optional parameters and fields present or not, unknown query
 *   parameters and (where the schema allows them) unknown body properties, `+` or %XX for every
 *   byte in the query and path, query parameters in either order, numbers in the body as `7`, `7.0`
 *   or `7e0`, number parameters as `150` or `1.5e+2`, Content-Type with a charset or in capitals,
 *   `bearer` in any case, pretty-printed JSON;
 * - `nearValid`: a valid request with exactly one thing wrong, and the answer it must get:
 *   400 validation_failed naming that one location, for a parameter (a required one left out, of
 *   the wrong type, integer text that is not canonical decimal, out of range or past int32/2^53,
 *   not in its enum, too short or long, not of its format, a scalar query parameter given twice,
 *   an array with too many or too few items, an item of the wrong kind or not in the enum) or a
 *   body field (a required one left out, the wrong JSON type, out of range, not a multiple, not in
 *   its enum or const, too short or long, not of its format, too many or too few or repeated items,
 *   an unknown property where additionalProperties is false); the body-level code for the body as
 *   a whole (no body 400 body_required; an unaccepted or missing Content-Type or a non-UTF-8
 *   charset 415 unsupported_media_type; JSON cut short or bytes that are not UTF-8 400
 *   malformed_json); 401 for the credentials (none, a key never issued, not Bearer).
 *
 * Valid values follow the sandbox's deliberate strictness (docs/decisions/README.md, "Smaller
 * decisions"): integer text is canonical decimal, int64 stays within ±(2^53-1), no query value is
 * empty, no scalar parameter is repeated; unknown query parameters are ignored.
 */
import fc from 'fast-check';
import { isObject } from '../../src/openapi/json-pointer.js';
import type { ApiModel, OperationSpec, ParameterSpec, ValueKind } from '../../src/vocabulary/operation.js';
import { schemaAt } from '../../src/openapi/value-kind.js';
import { schemaFor, Unsupported, type JsonType, type Schema } from './schema.js';
import { bodyMistakes, outOfRange, valueArb, type BodyMistakeKind } from './values.js';

// ─── What a generated request is ───────────────────────────────────────────────────────────────

export type ParamMistakeKind =
  | 'param-missing-required'
  | 'param-wrong-type'
  | 'param-non-canonical-integer'
  | 'param-out-of-range'
  | 'param-not-in-enum'
  | 'param-string-length'
  | 'param-bad-format'
  | 'param-duplicate'
  | 'param-item-count';

export type MediaMistakeKind =
  'body-missing' | 'media-unsupported-type' | 'media-missing-type' | 'media-non-utf8-charset' | 'body-malformed-json' | 'body-invalid-utf8';

export type AuthMistakeKind = 'auth-missing' | 'auth-unknown-key' | 'auth-malformed';

export type MistakeKind = ParamMistakeKind | BodyMistakeKind | MediaMistakeKind | AuthMistakeKind;

export type Expectation =
  | { readonly kind: 'accepted'; readonly notFoundAllowed: boolean }
  | { readonly kind: 'validation_failed'; readonly location: string; readonly message?: string }
  | { readonly kind: 'error'; readonly status: number; readonly code: string }
  /** Where the document leaves the choice open: accepted, or refused naming `location`. */
  | { readonly kind: 'accepted-or-refused'; readonly location: string };

/** Follow-up checks on a 2xx that the sandbox's store promises (docs/state.md, "What the records do", "Pagination"). */
export interface StoreChecks {
  /**
   * create / replace: the record holds exactly `id` and the writable fields sent, as sent (and a
   * replace keeps the id of its path); a create's `Location` reads it back unchanged.
   */
  readonly echo?: { readonly sent: Readonly<Record<string, unknown>>; readonly id: number | undefined; readonly readBack: boolean };
  /**
   * list: at most `limit` records, ids ascending and past `after`, each matching the filters (query
   * parameters named like a record field; a list value matches any of its members).
   */
  readonly page?: { readonly limit: number; readonly after: number | undefined; readonly filters: readonly (readonly [string, unknown])[] };
}

export interface FuzzRequest {
  readonly document: string;
  readonly operationId: string;
  readonly method: string;
  /** Path and query, percent-encoded, as sent. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent: UTF-8 text (after one 0xFF byte when `invalidUtf8`). */
  readonly body: { readonly contentType: string | undefined; readonly text: string; readonly invalidUtf8: boolean } | undefined;
  readonly label: 'valid' | MistakeKind;
  /** The mistake planted, in words ('' for a valid request). */
  readonly what: string;
  readonly expect: Expectation;
  readonly checks: StoreChecks;
}

export function describeRequest(r: FuzzRequest): string {
  const headers = Object.entries(r.headers)
    .map(([k, v]) => ` -H '${k}: ${v}'`)
    .join('');
  const type = r.body?.contentType === undefined ? '' : ` -H 'Content-Type: ${r.body.contentType}'`;
  const body = r.body === undefined ? '' : ` --data '${r.body.invalidUtf8 ? '<byte FF>' : ''}${r.body.text}'`;
  const expected =
    r.expect.kind === 'accepted'
      ? `2xx${r.expect.notFoundAllowed ? ' or 404 resource_not_found' : ''}`
      : r.expect.kind === 'validation_failed'
        ? `400 validation_failed at ${r.expect.location}${r.expect.message ? ` (${r.expect.message})` : ''}`
        : r.expect.kind === 'error'
          ? `${r.expect.status} ${r.expect.code}`
          : `2xx, or 400 validation_failed at ${r.expect.location}`;
  return `[${r.document} ${r.operationId}, ${r.label}${r.what ? `: ${r.what}` : ''}] ${r.method} ${r.target}${headers}${type}${body}  => expected ${expected}`;
}

// ─── Drafts: a request before it is rendered ───────────────────────────────────────────────────

interface ParamValue {
  /** One text for a scalar; the items (each as text) for an array. */
  readonly texts: readonly string[];
  /** A scalar query parameter sent twice. */
  readonly twice?: boolean;
}

interface Draft {
  /** By `in:name`; a parameter not here is not sent. */
  readonly params: ReadonlyMap<string, ParamValue>;
  readonly body: BodyDraft | undefined;
  /** Undeclared query parameters, which must be ignored. */
  readonly extraQuery: readonly (readonly [string, string])[];
  /** How path and query text is percent-encoded; all three spell the same values. */
  readonly encoding: Encoding;
  /** Query parameters in reverse order. */
  readonly reversed: boolean;
  /** How the credentials are sent: a spelling of the right ones, or one thing wrong with them. */
  readonly auth: AuthDraft;
}

interface AuthDraft {
  /** Index into the accepted spellings of `Bearer <key>` (the scheme name is case-insensitive). */
  readonly spelling: number;
  readonly mistake?: 'missing' | 'unknown' | 'malformed';
}

/**
 * `minimal`: encodeURIComponent; `plus`: a space in the query as `+` (form encoding, which the
 * sandbox decodes); `every-byte`: every UTF-8 byte as %XX, unreserved characters included
 * (equivalent under RFC 3986 §6.2.2.2).
 */
type Encoding = 'minimal' | 'plus' | 'every-byte';

interface BodyDraft {
  readonly contentType: string | undefined;
  readonly value: unknown;
  readonly pretty: boolean;
  /** How whole numbers are written: `7`, `7.0` or `7e0` (the same JSON number). */
  readonly numbers: NumberSpelling;
  readonly corrupt?: 'truncate' | 'invalid-utf8';
}

interface ParamRecipe {
  readonly spec: ParameterSpec;
  readonly key: string;
  readonly location: string;
  readonly schema: Schema;
  /** For arrays: the items' schema. */
  readonly items: Schema | undefined;
  readonly valid: fc.Arbitrary<ParamValue>;
}

interface BodyRecipe {
  readonly required: boolean;
  readonly mediaType: string;
  readonly schema: Schema;
  readonly value: fc.Arbitrary<unknown>;
  /** Content types that select no media type of the operation. */
  readonly refusedTypes: readonly string[];
}

export interface OperationRecipe {
  readonly op: OperationSpec;
  readonly valid: fc.Arbitrary<FuzzRequest>;
  /** Undefined when the operation has nothing that can be got wrong (no parameters, no body). */
  readonly nearValid: fc.Arbitrary<FuzzRequest> | undefined;
}

export type Prepared =
  { readonly ok: true; readonly recipe: OperationRecipe } | { readonly ok: false; readonly op: OperationSpec; readonly reason: string };

export interface RecipeOptions {
  /** For reports. */
  readonly document: string;
  /** The base path requests go to (the sandbox's: `sandbox.basePath`). */
  readonly basePath: string;
  /** The API key sent with every scheme the operation asks for. */
  readonly apiKey: string;
}

// ─── Parameters ────────────────────────────────────────────────────────────────────────────────

const SCALAR_KINDS: readonly ValueKind[] = ['integer', 'number', 'boolean', 'string', 'any'];

/** The schema narrowed to what the parameter's text is parsed into (a text can never be null). */
function asKind(schema: Schema, kind: ValueKind, where: string): Schema {
  if (kind === 'any' || kind === 'string') {
    if (schema.types && !schema.types.has('string'))
      throw new Unsupported(`${where}: text is passed as a string the schema does not allow`);
    return { ...schema, types: new Set<JsonType>(['string']) };
  }
  if (kind === 'array' || kind === 'object') throw new Unsupported(`${where}: ${kind} where a scalar was expected`);
  const types = new Set<JsonType>(kind === 'number' ? ['number'] : [kind]);
  if (schema.types && ![...types].some((t) => schema.types?.has(t)))
    throw new Unsupported(`${where}: kind ${kind} not in the schema's types`);
  return { ...schema, types };
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : String(value));

function parameterRecipe(model: ApiModel, spec: ParameterSpec): ParamRecipe {
  const where = `parameter ${spec.in}.${spec.name}`;
  if (spec.in === 'querystring') throw new Unsupported(`${where}: the whole query string as one value`);
  const raw = schemaFor(model.document, model.dialect, spec.schemaPointer);
  const carrier = spec.in === 'cookie' ? 'header' : spec.in;
  const location = `${spec.in}.${spec.name}`;
  const key = `${spec.in}:${spec.name}`;
  if (spec.kind === 'array') {
    if (!SCALAR_KINDS.includes(spec.itemKind)) throw new Unsupported(`${where}: items of kind ${spec.itemKind}`);
    const items = asKind(raw.items ?? schemaFor(model.document, model.dialect, undefined), spec.itemKind, `${where} items`);
    // Items travel as text between commas (unless exploded in a query): none may hold a comma,
    // and none is empty (the empty list would be an empty value).
    const exploded = spec.in === 'query' && spec.explode;
    const itemArb = valueArb(items, { carrier, request: true })
      .map(textOf)
      .filter((t) => t !== '' && (exploded || !t.includes(',')));
    const minLength = Math.max(1, raw.minItems);
    const maxLength = Math.min(raw.maxItems ?? minLength + 3, minLength + 3);
    if (maxLength < minLength) throw new Unsupported(`${where}: maxItems below 1`);
    const list = raw.uniqueItems ? fc.uniqueArray(itemArb, { minLength, maxLength }) : fc.array(itemArb, { minLength, maxLength });
    return { spec, key, location, schema: raw, items, valid: list.map((texts) => ({ texts })) };
  }
  const schema = asKind(raw, spec.kind, where);
  const values = valueArb(schema, { carrier, request: true });
  // A number's text may be spelled any way the grammar allows (`150`, `1.5e+2`, `150.0`); integer
  // text must be canonical (docs/decisions/README.md), so integers keep the one spelling.
  const valid =
    spec.kind === 'number'
      ? fc.tuple(values, fc.constantFrom('plain', 'plain', 'exponent', 'fraction')).map(([v, how]) => {
          const n = v as number;
          const text =
            how === 'exponent' ? n.toExponential() : how === 'fraction' && Number.isInteger(n) && Math.abs(n) < 1e21 ? `${n}.0` : String(n);
          return { texts: [text] };
        })
      : values.map((v) => ({ texts: [textOf(v)] }));
  return { spec, key, location, schema, items: undefined, valid };
}

interface Mistake {
  readonly kind: MistakeKind;
  readonly what: string;
  readonly expect: Expectation;
  readonly apply: (draft: Draft) => Draft;
}

const withParam = (draft: Draft, key: string, value: ParamValue | undefined): Draft => {
  const params = new Map(draft.params);
  if (value === undefined) params.delete(key);
  else params.set(key, value);
  return { ...draft, params };
};

/** Integer text that is not canonical decimal, made from a valid integer (docs/decisions/README.md: refused on purpose). */
function nonCanonical(v: number, carrier: 'path' | 'query' | 'header'): string[] {
  const out =
    v === 0
      ? ['-0', '00', '+0', '0.0', '0e0', '0x0']
      : v > 0
        ? [`+${v}`, `0${v}`, `${v}.0`, `${v}e0`, `0x${v.toString(16)}`, `${v}.`]
        : [`-0${-v}`, `${v}.0`, `${v}e0`, `-0x${(-v).toString(16)}`];
  // HTTP drops blanks around a header value: " 5" arrives as "5". Elsewhere they are sent.
  if (carrier !== 'header') out.push(` ${v}`, `${v} `);
  return out;
}

const BAD_TEXT: Readonly<Record<string, readonly string[]>> = {
  integer: ['abc', '1.5', 'true', 'Infinity', 'NaN', '1,2'],
  number: ['abc', '1,5', '0x10', 'Infinity', 'NaN', '.5', '1.', '1e', '--1'],
  boolean: ['yes', '1', '0', 'TRUE', 'True', 'on', 'false!'],
};

const BAD_FORMAT_TEXT: Readonly<Record<string, string>> = {
  'date-time': '2026-02-30T10:00:00Z',
  date: '2026-13-01',
  time: '25:00:00Z',
  uuid: 'not-a-uuid',
  email: 'not-an-email',
  uri: 'no-scheme-here',
  url: 'no-scheme-here',
  hostname: '-bad-.example',
  ipv4: '256.1.1.1',
  byte: '***',
};

function paramMistakes(p: ParamRecipe, value: ParamValue | undefined): Mistake[] {
  const out: Mistake[] = [];
  const { spec, key, location } = p;
  if (spec.in === 'querystring') return out;
  const invalid = (kind: ParamMistakeKind, next: ParamValue | undefined, what: string, message?: string, at = location) =>
    out.push({
      kind,
      what,
      expect: { kind: 'validation_failed', location: at, ...(message ? { message } : {}) },
      apply: (d) => withParam(d, key, next),
    });
  const carrier = spec.in === 'cookie' ? 'header' : spec.in;
  if (spec.in === 'cookie') return out; // the sandbox does not read cookies
  if (value === undefined) {
    // An absent parameter can be got wrong only by being required.
    return out;
  }
  if (spec.required && spec.in !== 'path') invalid('param-missing-required', undefined, `${location} left out`, 'is required');
  const usable = (t: string) => t !== '' || spec.in === 'query';
  if (spec.kind !== 'array') {
    const text = value.texts[0] ?? '';
    const s = p.schema;
    if (spec.in === 'query') invalid('param-duplicate', { texts: [text], twice: true }, `${location} given twice`, 'must be given once');
    const bad = BAD_TEXT[spec.kind];
    if (bad) for (const t of bad) invalid('param-wrong-type', { texts: [t] }, `${location}=${JSON.stringify(t)}`);
    if (spec.kind === 'integer') {
      for (const t of nonCanonical(Number(text), carrier))
        invalid('param-non-canonical-integer', { texts: [t] }, `${location}=${JSON.stringify(t)} for ${text}`);
      invalid('param-out-of-range', { texts: ['9007199254740992'] }, `${location}=2^53, past the safe integers`);
    }
    if (spec.kind === 'integer' || spec.kind === 'number') {
      for (const { value: n, what } of outOfRange(s, spec.kind === 'integer'))
        invalid('param-out-of-range', { texts: [String(n)] }, `${location}=${n} (${what})`);
    }
    if (s.enumValues) {
      const outside = s.enumValues.flatMap((v) =>
        typeof v === 'string' ? [`${v}_x`, v.toUpperCase(), `${v}s`] : typeof v === 'number' ? [String(v + 1)] : [],
      );
      const t = outside.find((c) => !s.enumValues?.some((v) => textOf(v) === c));
      if (t !== undefined) invalid('param-not-in-enum', { texts: [t] }, `${location}=${JSON.stringify(t)}, not in the enum`);
    } else if (spec.kind === 'string' || spec.kind === 'any') {
      const chars = [...text];
      const shorter = chars.slice(0, Math.max(0, s.minLength - 1)).join('');
      if (s.minLength > 0 && usable(shorter))
        invalid('param-string-length', { texts: [shorter] }, `${location} shorter than minLength ${s.minLength}`);
      if (s.maxLength !== undefined)
        invalid(
          'param-string-length',
          { texts: [text + 'x'.repeat(s.maxLength + 1 - chars.length)] },
          `${location} longer than maxLength ${s.maxLength}`,
        );
      const badFormat = s.format ? BAD_FORMAT_TEXT[s.format] : undefined;
      if (badFormat !== undefined)
        invalid('param-bad-format', { texts: [badFormat] }, `${location}=${JSON.stringify(badFormat)}, not a ${s.format}`);
    }
    return out;
  }
  // Arrays: an item that does not parse as the items' kind names the parameter; one the items'
  // schema refuses names the item.
  const items = p.items;
  const bad = BAD_TEXT[spec.itemKind];
  if (bad) {
    const t = bad[0] as string;
    invalid('param-wrong-type', { texts: [...value.texts.slice(0, -1), t] }, `${location} item ${JSON.stringify(t)}`);
  }
  if (spec.itemKind === 'integer') {
    const first = value.texts[0] as string;
    const exploded = spec.in === 'query' && spec.explode;
    for (const t of nonCanonical(Number(first), carrier).filter((c) => exploded || !c.includes(','))) {
      invalid('param-non-canonical-integer', { texts: [t, ...value.texts.slice(1)] }, `${location} item ${JSON.stringify(t)} for ${first}`);
    }
  }
  if (items?.enumValues && typeof items.enumValues[0] === 'string') {
    const t = `${String(items.enumValues[0])}_x`;
    invalid(
      'param-not-in-enum',
      { texts: [t, ...value.texts.slice(1)] },
      `${location}[0]=${JSON.stringify(t)}, not in the enum`,
      undefined,
      `${location}[0]`,
    );
  }
  if (p.schema.maxItems !== undefined && !p.schema.uniqueItems) {
    const more = [...value.texts, ...Array.from({ length: p.schema.maxItems + 1 - value.texts.length }, () => value.texts[0] as string)];
    invalid('param-item-count', { texts: more }, `${location} with ${more.length} items, over maxItems ${p.schema.maxItems}`);
  }
  if (p.schema.minItems > 1)
    invalid('param-item-count', { texts: value.texts.slice(0, p.schema.minItems - 1) }, `${location} under minItems ${p.schema.minItems}`);
  return out;
}

// ─── Bodies ────────────────────────────────────────────────────────────────────────────────────

const isJsonType = (type: string): boolean => type === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.+-]*\+json$/.test(type);

function selects(mediaTypes: readonly string[], type: string): boolean {
  return mediaTypes.some((m) => m === type || m === `${type.split('/')[0]}/*` || m === '*/*');
}

function bodyRecipe(model: ApiModel, op: OperationSpec): BodyRecipe | undefined {
  const requestBody = op.requestBody;
  if (!requestBody) return undefined;
  const media = requestBody.content.find((m) => isJsonType(m.mediaType));
  if (!media) {
    if (requestBody.required) throw new Unsupported('a required body with no JSON media type');
    return undefined;
  }
  const schema = schemaFor(model.document, model.dialect, media.schemaPointer);
  const types = requestBody.content.map((m) => m.mediaType);
  // prettier-ignore
  const refusedTypes = ['text/plain', 'application/xml', 'application/octet-stream', 'image/png'].filter((t) => !selects(types, t));
  return {
    required: requestBody.required,
    mediaType: media.mediaType,
    schema,
    value: valueArb(schema, { carrier: 'body', request: true }),
    refusedTypes,
  };
}

function bodyLevelMistakes(body: BodyRecipe, draft: Draft): Mistake[] {
  const current = draft.body;
  if (!current) return [];
  const out: Mistake[] = [];
  const error = (kind: MediaMistakeKind, status: number, code: string, what: string, next: BodyDraft | undefined) =>
    out.push({ kind, what, expect: { kind: 'error', status, code }, apply: (d) => ({ ...d, body: next }) });
  if (body.required) error('body-missing', 400, 'body_required', 'no body', undefined);
  const refused = body.refusedTypes[0];
  if (refused)
    error('media-unsupported-type', 415, 'unsupported_media_type', `Content-Type ${refused}`, { ...current, contentType: refused });
  error('media-missing-type', 415, 'unsupported_media_type', 'no Content-Type', { ...current, contentType: undefined });
  error('media-non-utf8-charset', 415, 'unsupported_media_type', 'JSON in iso-8859-1', {
    ...current,
    contentType: `${body.mediaType}; charset=iso-8859-1`,
  });
  const text = JSON.stringify(current.value);
  if (/^[[{"]/.test(text))
    error('body-malformed-json', 400, 'malformed_json', 'the JSON cut short by one character', { ...current, corrupt: 'truncate' });
  error('body-invalid-utf8', 400, 'malformed_json', 'a byte FF before the JSON', { ...current, corrupt: 'invalid-utf8' });
  return out;
}

function fieldMistakes(body: BodyRecipe, draft: Draft): Mistake[] {
  const current = draft.body;
  if (!current) return [];
  return bodyMistakes(body.schema, current.value, { carrier: 'body', request: true }).map((m) => ({
    kind: m.kind,
    what: m.what,
    expect: { kind: 'validation_failed', location: m.location, ...(m.message ? { message: m.message } : {}) },
    apply: (d: Draft) => ({ ...d, body: d.body && { ...d.body, value: m.apply(d.body.value) } }),
  }));
}

// ─── Operations ────────────────────────────────────────────────────────────────────────────────

interface Credentials {
  readonly headers: Readonly<Record<string, string>>;
  readonly query: readonly (readonly [string, string])[];
}

/** `Bearer <key>` as it may be written (RFC 9110 §11.1: the scheme is case-insensitive; RFC 7235: one or more spaces). */
const BEARER_SPELLINGS = ['Bearer ', 'bearer ', 'BEARER ', 'Bearer  '];

type Schemes = readonly (
  { readonly kind: 'bearer' } | { readonly kind: 'apiKey'; readonly in: 'header' | 'query'; readonly parameter: string }
)[];

/** The schemes of the operation's first security requirement (none: a public operation). */
function schemesFor(model: ApiModel, op: OperationSpec): Schemes {
  const requirement = op.security.find(() => true);
  if (!requirement) return [];
  return requirement.map(({ scheme: name }) => {
    const scheme = model.securitySchemes.get(name);
    if (!scheme) throw new Unsupported(`security scheme ${name}`);
    if (scheme.kind === 'bearer') return { kind: 'bearer' as const };
    if (scheme.kind === 'apiKey' && scheme.in !== 'cookie') return { kind: 'apiKey' as const, in: scheme.in, parameter: scheme.parameter };
    throw new Unsupported(`security scheme ${name} (${scheme.kind})`);
  });
}

function credentialsFor(schemes: Schemes, apiKey: string, auth: AuthDraft): Credentials {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  if (auth.mistake === 'missing') return { headers, query };
  const key = auth.mistake === 'unknown' ? `${apiKey}-not-issued` : apiKey;
  for (const scheme of schemes) {
    if (scheme.kind === 'bearer') {
      headers.Authorization =
        auth.mistake === 'malformed'
          ? `Basic ${Buffer.from(`user:${key}`).toString('base64')}`
          : `${BEARER_SPELLINGS[auth.spelling % BEARER_SPELLINGS.length]}${key}`;
    } else if (scheme.in === 'header') headers[scheme.parameter] = key;
    else query.push([scheme.parameter, key]);
  }
  return { headers, query };
}

function authMistakes(schemes: Schemes): Mistake[] {
  if (schemes.length === 0) return [];
  const error = (kind: AuthMistakeKind, code: string, what: string, mistake: AuthDraft['mistake']): Mistake => ({
    kind,
    what,
    expect: { kind: 'error', status: 401, code },
    apply: (d) => ({ ...d, auth: { ...d.auth, mistake } }),
  });
  // prettier-ignore
  const out = [error('auth-missing', 'missing_credentials', 'no credentials', 'missing'), error('auth-unknown-key', 'invalid_api_key', 'a key never issued', 'unknown')];
  if (schemes.some((s) => s.kind === 'bearer'))
    out.push(error('auth-malformed', 'malformed_credentials', 'Basic instead of Bearer', 'malformed'));
  return out;
}

type NumberSpelling = 'plain' | 'fraction' | 'exponent';

const everyByte = (text: string): string =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

function encoder(encoding: Encoding, inQuery: boolean): (text: string) => string {
  if (encoding === 'every-byte') return everyByte;
  if (encoding === 'plus' && inQuery) return (text) => encodeURIComponent(text).replace(/%20/g, '+');
  return encodeURIComponent;
}

/** JSON text for a value, whole numbers spelled as asked. */
function jsonText(value: unknown, pretty: boolean, numbers: NumberSpelling): string {
  if (numbers === 'plain') return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  const write = (v: unknown): string => {
    if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e21) return numbers === 'fraction' ? `${v}.0` : `${v}e0`;
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    if (typeof v === 'object' && v !== null) {
      return `{${Object.keys(v)
        .map((k) => `${JSON.stringify(k)}:${write((v as Record<string, unknown>)[k])}`)
        .join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return write(value);
}

const CONTENT_TYPE_SPELLINGS = (mediaType: string): string[] => [
  mediaType,
  `${mediaType}; charset=utf-8`,
  `${mediaType};charset=UTF-8`,
  `${mediaType}; charset="utf-8"`,
  `${mediaType}; foo=bar`,
  mediaType.toUpperCase(),
];

/** Every operation of the model with its recipe, or the reason it cannot be fuzzed without guessing. */
export function operationRecipes(model: ApiModel, options: RecipeOptions): Prepared[] {
  return model.operations.map((op) => {
    try {
      return { ok: true, recipe: operationRecipe(model, op, options) };
    } catch (error) {
      if (error instanceof Unsupported) return { ok: false, op, reason: error.message };
      throw error;
    }
  });
}

function operationRecipe(model: ApiModel, op: OperationSpec, options: RecipeOptions): OperationRecipe {
  const params = op.parameters.filter((p) => p.in !== 'cookie').map((p) => parameterRecipe(model, p));
  const body = bodyRecipe(model, op);
  const schemes = schemesFor(model, op);
  const declaredQuery = new Set([
    ...op.parameters.filter((p) => p.in === 'query').map((p) => p.name),
    ...schemes.flatMap((s) => (s.kind === 'apiKey' && s.in === 'query' ? [s.parameter] : [])),
  ]);
  const hasPathParams = params.some((p) => p.spec.in === 'path');
  const writable = body ? [...body.schema.properties].filter(([name, s]) => !s.readOnly && name !== 'id').map(([name]) => name) : [];
  const pagination = op.binding.action === 'list' ? paginationOf(model, op) : undefined;

  const paramsArb: fc.Arbitrary<Map<string, ParamValue>> = fc
    .tuple(...params.map((p) => (p.spec.required ? p.valid : fc.option(p.valid, { nil: undefined, freq: 2 }))))
    .map((values) => {
      const map = new Map<string, ParamValue>();
      values.forEach((v, i) => {
        const p = params[i] as ParamRecipe;
        if (v !== undefined) map.set(p.key, v);
      });
      return map;
    });
  const bodyArb: fc.Arbitrary<BodyDraft | undefined> = body
    ? fc
        .record({
          value: body.value,
          contentType: fc.constantFrom(...CONTENT_TYPE_SPELLINGS(body.mediaType)),
          pretty: fc.boolean(),
          numbers: fc.constantFrom<NumberSpelling>('plain', 'plain', 'fraction', 'exponent'),
        })
        .chain((b) =>
          body.required ? fc.constant<BodyDraft | undefined>(b) : fc.option(fc.constant<BodyDraft>(b), { nil: undefined, freq: 4 }),
        )
    : fc.constant(undefined);
  const extraName = fc
    .oneof(
      fc.constantFrom('utm_source', 'debug', 'callback', '_', 'a[b]', ...[...declaredQuery].map((n) => n.toUpperCase())),
      fc.string({ minLength: 1, maxLength: 6 }),
    )
    .filter((n) => !declaredQuery.has(n));
  const extraQueryArb = fc.oneof(
    { weight: 4, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(extraName, fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 2 }) },
  );
  const encodingArb = fc.constantFrom<Encoding>('minimal', 'minimal', 'minimal', 'plus', 'every-byte');
  const authArb: fc.Arbitrary<AuthDraft> = fc.record({ spelling: fc.nat(BEARER_SPELLINGS.length - 1) });
  const draftArb: fc.Arbitrary<Draft> = fc.record({
    params: paramsArb,
    body: bodyArb,
    extraQuery: extraQueryArb,
    encoding: encodingArb,
    reversed: fc.boolean(),
    auth: authArb,
  });

  const render = (draft: Draft, label: FuzzRequest['label'], what: string, expect: Expectation): FuzzRequest => {
    let path = options.basePath + op.pathTemplate;
    // One group of pairs per parameter: reordering moves parameters, never the items of one.
    const groups: (readonly (readonly [string, string])[])[] = [];
    const credentials = credentialsFor(schemes, options.apiKey, draft.auth);
    const headers: Record<string, string> = { ...credentials.headers };
    for (const p of params) {
      const value = draft.params.get(p.key);
      if (!value) continue;
      if (p.spec.in === 'path') path = path.replace(`{${p.spec.name}}`, value.texts.map(encoder(draft.encoding, false)).join(','));
      else if (p.spec.in === 'query') {
        if (p.spec.kind === 'array' && p.spec.explode) groups.push(value.texts.map((t) => [p.spec.name, t] as const));
        else groups.push(Array.from({ length: value.twice ? 2 : 1 }, () => [p.spec.name, value.texts.join(',')] as const));
      } else headers[p.spec.name] = value.texts.join(',');
    }
    groups.push(...credentials.query.map((pair) => [pair]), ...draft.extraQuery.map((pair) => [pair]));
    if (draft.reversed) groups.reverse();
    const query = groups.flat();
    const encode = encoder(draft.encoding, true);
    const target = query.length === 0 ? path : `${path}?${query.map(([n, v]) => `${encode(n)}=${encode(v)}`).join('&')}`;
    let sentBody: FuzzRequest['body'];
    if (draft.body) {
      let text = jsonText(draft.body.value, draft.body.pretty, draft.body.numbers);
      if (draft.body.corrupt === 'truncate') text = text.slice(0, -1);
      sentBody = { contentType: draft.body.contentType, text, invalidUtf8: draft.body.corrupt === 'invalid-utf8' };
    }
    const checks: { echo?: StoreChecks['echo']; page?: StoreChecks['page'] } = {};
    if (expect.kind === 'accepted') {
      if ((op.binding.action === 'create' || op.binding.action === 'replace') && draft.body && isObject(draft.body.value)) {
        const sent: Record<string, unknown> = {};
        const value = JSON.parse(JSON.stringify(draft.body.value)) as Record<string, unknown>;
        for (const name of writable) if (Object.hasOwn(value, name)) sent[name] = value[name];
        const idParam = params.filter((p) => p.spec.in === 'path').at(-1);
        const idText = idParam && draft.params.get(idParam.key)?.texts[0];
        checks.echo = {
          sent,
          id: op.binding.action === 'replace' && idText !== undefined ? Number(idText) : undefined,
          readBack: op.binding.action === 'create',
        };
      }
      if (pagination) {
        const limitText = pagination.limit && draft.params.get(`query:${pagination.limit}`)?.texts[0];
        const afterText = pagination.after && draft.params.get(`query:${pagination.after}`)?.texts[0];
        const filters: (readonly [string, unknown])[] = [];
        for (const p of params) {
          const value = draft.params.get(p.key);
          if (
            p.spec.in !== 'query' ||
            !value ||
            !pagination.fields.has(p.spec.name) ||
            p.spec.name === pagination.limit ||
            p.spec.name === pagination.after
          )
            continue;
          const parse = (kind: ValueKind, text: string): unknown =>
            kind === 'integer' || kind === 'number' ? Number(text) : kind === 'boolean' ? text === 'true' : text;
          filters.push([
            p.spec.name,
            p.spec.kind === 'array' ? value.texts.map((t) => parse(p.spec.itemKind, t)) : parse(p.spec.kind, value.texts[0] as string),
          ]);
        }
        checks.page = {
          limit: limitText ? Number(limitText) : pagination.defaultLimit,
          after: afterText ? Number(afterText) : undefined,
          filters,
        };
      }
    }
    return {
      document: options.document,
      operationId: op.id,
      method: op.method,
      target,
      headers,
      body: sentBody,
      label,
      what,
      expect,
      checks,
    };
  };

  const valid = draftArb.map((d) => render(d, 'valid', '', { kind: 'accepted', notFoundAllowed: hasPathParams }));

  /**
   * Every mistake that can be planted in a draft, by category (parameters, body fields, the body
   * as a whole, credentials) and then by kind, so that a kind with many sites (a body's fields)
   * does not drown the others.
   */
  const mistakesOf = (draft: Draft): Mistake[][][] => {
    const categories: Mistake[][] = [[], [], [], authMistakes(schemes)];
    for (const p of params) categories[0]?.push(...paramMistakes(p, draft.params.get(p.key)));
    if (body) {
      categories[1]?.push(...fieldMistakes(body, draft));
      categories[2]?.push(...bodyLevelMistakes(body, draft));
    }
    // Weighted by repetition: parameters and fields 4, the body as a whole 2, credentials 1.
    const weights = [4, 4, 2, 1];
    return categories
      .flatMap((c, i) => (c.length > 0 ? Array.from({ length: weights[i] ?? 1 }, () => c) : []))
      .map((category) => {
        const kinds = new Map<MistakeKind, Mistake[]>();
        for (const m of category) kinds.set(m.kind, [...(kinds.get(m.kind) ?? []), m]);
        return [...kinds.values()];
      });
  };
  const canGoWrong = params.length > 0 || body !== undefined || schemes.length > 0;
  // Required parameters absent from a valid draft never are; optional ones are then sent, so
  // that the mistakes planted in them are tried as often as the others.
  const fullDraftArb: fc.Arbitrary<Draft> = fc.record({
    params: fc.tuple(...params.map((p) => p.valid)).map((values) => new Map(values.map((v, i) => [(params[i] as ParamRecipe).key, v]))),
    body: body
      ? fc.record({
          value: body.value,
          contentType: fc.constant(body.mediaType),
          pretty: fc.constant(false),
          numbers: fc.constant<NumberSpelling>('plain'),
        })
      : fc.constant(undefined),
    extraQuery: fc.constant([]),
    encoding: fc.constant<Encoding>('minimal'),
    reversed: fc.constant(false),
    auth: fc.constant<AuthDraft>({ spelling: 0 }),
  });
  const nearValid = canGoWrong
    ? fc
        .tuple(fc.oneof(fullDraftArb, draftArb), fc.nat(), fc.nat(), fc.nat())
        .map(([draft, c, k, i]) => {
          const categories = mistakesOf(draft);
          if (categories.length === 0) return undefined;
          const kinds = categories[c % categories.length] as Mistake[][];
          const sites = kinds[k % kinds.length] as Mistake[];
          const mistake = sites[i % sites.length] as Mistake;
          return render(mistake.apply(draft), mistake.kind, mistake.what, mistake.expect);
        })
        .filter((r): r is FuzzRequest => r !== undefined)
    : undefined;
  return { op, valid, nearValid };
}

/** The page-size and cursor parameters a list operation declares, as src/dispatch/resolve-binding.ts reads them. */
function paginationOf(
  model: ApiModel,
  op: OperationSpec,
): { limit: string | undefined; after: string | undefined; defaultLimit: number; fields: ReadonlySet<string> } {
  const names = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const pick = (name: string | undefined, fallback: string) => (names.has(name ?? fallback) ? (name ?? fallback) : undefined);
  const limit = pick(op.binding.pagination?.limit, 'limit');
  const after = pick(op.binding.pagination?.after, 'after');
  const limitSpec = op.parameters.find((p) => p.in === 'query' && p.name === limit);
  // The schema's `default` fills in an absent limit; without one the sandbox pages by 20 (docs/state.md, "Pagination").
  const declaredDefault = schemaAt(model.document, limitSpec?.schemaPointer)?.default;
  // The record's fields: the properties of the success answer's items.
  const success = op.responses.find((r) => /^2/.test(r.status))?.content[0]?.schemaPointer;
  const items = success === undefined ? undefined : schemaFor(model.document, model.dialect, success).items;
  return {
    limit,
    after,
    defaultLimit: typeof declaredDefault === 'number' ? declaredDefault : 20,
    fields: new Set(items?.properties.keys() ?? []),
  };
}
