import { errorBody, type ErrorBody } from '../vocabulary/errors.js';

/**
 * What a request asks of its answer beyond the document: Prism's preferences (`Prefer: code=404`,
 * `example=name`, `dynamic=true`), a seed for generated bodies, and a delay or fault for another
 * step to judge. A field is absent when the request does not give it.
 */
export interface Preferences {
  /** The status to answer with (100–599). */
  readonly code?: number;
  /** The name of a document example (a key of a media type's `examples`). */
  readonly example?: string;
  /** `true`: a body generated from the schema, never an example. */
  readonly dynamic?: boolean;
  /** Seeds generated bodies: the same seed, the same body. */
  readonly seed?: number;
  /** Passed through as sent; validated by the latency step. */
  readonly delay?: string;
  /** Passed through as sent; validated by the fault step. */
  readonly fault?: string;
}

export type PreferenceName = keyof Preferences;

export type PreferencesRead = { readonly ok: true; readonly preferences: Preferences } | { readonly ok: false; readonly error: ErrorBody };

/** No preference at all: what almost every request has, shared so that reading it allocates nothing. */
export const NO_PREFERENCES: Preferences = Object.freeze({});
export const NOTHING_PREFERRED: PreferencesRead = Object.freeze({ ok: true, preferences: NO_PREFERENCES });

type Headers = Readonly<Record<string, string | undefined>>;

/** Where a preference was read, as a violation's location names it. */
const AT_PREFER = 'header.prefer';

/** Every preference the sandbox reads, in the order `Preference-Applied` names them. */
const NAMES: readonly PreferenceName[] = ['code', 'example', 'dynamic', 'seed', 'delay', 'fault'];
const QUERY_NAMES: ReadonlyMap<string, PreferenceName> = new Map(NAMES.map((name) => [`__${name}`, name]));

/**
 * The query parameters that carry preferences (`__code`…). Validation must not count them as
 * parameters the operation does not declare (`validation.unknownQueryParameters: reject`).
 */
export const PREFERENCE_QUERY_PARAMETERS: ReadonlySet<string> = new Set(QUERY_NAMES.keys());

/**
 * A request's preferences, from its lower-case headers and raw query string. Per preference, the
 * first source that gives it wins:
 *
 *   1. `Prefer` (RFC 7240): `Prefer: code=404, example="not found"`;
 *   2. Postman's mock headers: `x-mock-response-code: 404`, `x-mock-response-name: missing`;
 *   3. the query, `?__code=404&__example=missing`, only when the request has no `Prefer` header at all
 *      (Prism's fallback for clients that cannot set headers).
 *
 * A malformed value of a preference the sandbox reads is a 400 `invalid_preference` naming it; a
 * preference it does not read is ignored (RFC 7240 §2: "the server SHOULD ignore" what it does not
 * understand). A request with none of these costs a few property checks and allocates nothing.
 */
export function readPreferences(headers: Headers, rawQuery: string): PreferencesRead {
  const prefer = headers.prefer;
  const postmanCode = headers['x-mock-response-code'];
  const postmanName = headers['x-mock-response-name'];
  const fromQuery = prefer === undefined && rawQuery.includes('__');
  if (prefer === undefined && postmanCode === undefined && postmanName === undefined && !fromQuery) return NOTHING_PREFERRED;

  const raw = new Map<PreferenceName, RawValue>();
  if (prefer !== undefined) readPrefer(prefer, raw);
  if (postmanCode !== undefined && !raw.has('code')) raw.set('code', { text: postmanCode.trim(), at: 'header.x-mock-response-code' });
  if (postmanName !== undefined && !raw.has('example')) raw.set('example', { text: postmanName.trim(), at: 'header.x-mock-response-name' });
  if (fromQuery) readQuery(rawQuery, raw);
  if (raw.size === 0) return NOTHING_PREFERRED;

  const out: { -readonly [K in PreferenceName]?: Preferences[K] } = {};
  for (const name of NAMES) {
    const given = raw.get(name);
    if (given === undefined) continue;
    const problem = take(out, name, given.text);
    if (problem !== undefined) {
      const error = errorBody('invalid_preference', `Invalid preference: ${problem}`, [{ location: given.at, message: problem }]);
      return { ok: false, error };
    }
  }
  return { ok: true, preferences: Object.freeze(out) };
}

/** A preference's text as sent; `undefined` text: the syntax around it is broken. */
interface RawValue {
  readonly text: string | undefined;
  readonly at: string;
}

/** Sets the value a preference's text stands for on `out`, or says why the text stands for none. */
function take(
  out: { -readonly [K in PreferenceName]?: Preferences[K] },
  name: PreferenceName,
  text: string | undefined,
): string | undefined {
  if (text === undefined) return `${name} is not written as RFC 7240 allows (${name}=token or ${name}="quoted text")`;
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const lower = text.toLowerCase();
  switch (name) {
    case 'code':
      if (!/^[1-5][0-9]{2}$/.test(text)) return `code ${shown} must be a status from 100 to 599`;
      out.code = Number(text);
      return undefined;
    case 'example':
      if (text === '') return 'example needs the name of an example';
      out.example = text;
      return undefined;
    case 'dynamic':
      if (lower !== 'true' && lower !== 'false') return `dynamic ${shown} must be true or false`;
      out.dynamic = lower === 'true';
      return undefined;
    case 'seed':
      if (!/^[0-9]{1,15}$/.test(text)) return `seed ${shown} must be a whole number from 0 to 999999999999999`;
      out.seed = Number(text);
      return undefined;
    default:
      out[name] = text;
      return undefined;
  }
}

const isPreferenceName = (name: string): name is PreferenceName => (NAMES as readonly string[]).includes(name);

// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;
const isTchar = (code: number): boolean => code < 128 && TCHAR[code] === 1;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const isSpace = (code: number): boolean => code === 0x20 || code === 0x09;

/**
 * Reads `Prefer` (RFC 7240 §2) into `into`, first occurrence first:
 *
 *   Prefer     = 1#preference
 *   preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )
 *   word       = token / quoted-string
 *
 * Several header lines arrive joined with `, `, which the list syntax reads as one list; empty list
 * elements are skipped (RFC 9110 §5.6.1). Names are case-insensitive; parameters after `;` are
 * ignored (none of the sandbox's preferences takes one). A preference given twice counts once, as
 * first given (RFC 7240 §2). An element whose syntax is broken is ignored, unless it names a
 * preference the sandbox reads: that one's value is then malformed.
 */
function readPrefer(text: string, into: Map<PreferenceName, RawValue>): void {
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 0x2c)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && isTchar(text.charCodeAt(i))) i++;
    const name = text.slice(start, i).toLowerCase();
    let value: string | undefined = '';
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 0x3d /* = */) {
      i++;
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      const word = readWord(text, i);
      value = word.value;
      i = word.end;
      while (i < n && isSpace(text.charCodeAt(i))) i++;
    }
    const next = text.charCodeAt(i);
    // After the value: the end, the next element, or parameters (skipped); anything else is broken.
    if (name === '' || (i < n && next !== 0x2c && next !== 0x3b)) value = undefined;
    i = elementEnd(text, i);
    if (isPreferenceName(name) && !into.has(name)) into.set(name, { text: value, at: AT_PREFER });
  }
}

/** A token or a quoted-string (RFC 9110 §5.6.4, `\` quoting one character) at `start`; undefined value when neither. */
function readWord(text: string, start: number): { readonly value: string | undefined; readonly end: number } {
  if (text.charCodeAt(start) !== 0x22 /* " */) {
    let i = start;
    while (i < text.length && isTchar(text.charCodeAt(i))) i++;
    return { value: i === start ? undefined : text.slice(start, i), end: i };
  }
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return { value, end: i + 1 };
    if (c === 0x5c /* \ */) i++;
    if (i < text.length) value += text.charAt(i);
  }
  return { value: undefined, end: text.length };
}

/** Where the list element that `from` is in ends: the next comma outside a quoted-string, or the end. */
function elementEnd(text: string, from: number): number {
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quoted && c === 0x5c) i++;
    else if (c === 0x22) quoted = !quoted;
    else if (c === 0x2c && !quoted) return i;
  }
  return text.length;
}

/** `__code=404&__example=not%20found`: the first value of each preference parameter, decoded as a form value. */
function readQuery(rawQuery: string, into: Map<PreferenceName, RawValue>): void {
  for (const pair of rawQuery.split('&')) {
    if (!pair.startsWith('__')) continue;
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    const name = QUERY_NAMES.get(formDecoded(key));
    if (name !== undefined && !into.has(name))
      into.set(name, { text: eq === -1 ? '' : formDecoded(pair.slice(eq + 1)), at: `query.__${name}` });
  }
}

/** A query component decoded (`+` is a space); broken percent-encoding is kept as sent. */
function formDecoded(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * The `Preference-Applied` value (RFC 7240 §3) for the preferences that shaped the answer, in a fixed
 * order (`code=404, example=missing`), or undefined when none did. Hand it only what was applied: a
 * named example that was not served, or a seed that generated nothing, is not named. Values are
 * tokens where they can be, else quoted-strings; characters a header cannot carry become `?`.
 */
export function preferenceApplied(applied: Preferences): string | undefined {
  let out: string | undefined;
  for (const name of NAMES) {
    const value = applied[name];
    if (value === undefined) continue;
    const item = `${name}=${word(String(value))}`;
    out = out === undefined ? item : `${out}, ${item}`;
  }
  return out;
}

/** A value as an RFC 7240 word: the token itself, else a quoted-string. */
function word(value: string): string {
  if (TOKEN.test(value)) return value;
  // Header fields carry visible ASCII, spaces, tabs and obs-text (RFC 9110 §5.5); nothing else.
  const safe = value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
  return `"${safe.replace(/["\\]/g, '\\$&')}"`;
}
