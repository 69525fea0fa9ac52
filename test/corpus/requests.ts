import { isObject, type Json } from './document.js';
import type { Media, Operation, Parameter, SecurityScheme } from './operations.js';

/** A request as parts (what the generator chose) and as bytes (what is sent). */

export interface RequestParts {
  readonly operation: Operation;
  readonly values: ReadonlyMap<Parameter, Json>;
  readonly body: { readonly media: Media; readonly value: Json } | undefined;
  /** The credentials' requirement chosen (undefined: none could be satisfied). */
  readonly credentials: readonly SecurityScheme[] | undefined;
}

export interface WireRequest {
  readonly method: string;
  /** Path and query, percent-encoded. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

export const CORPUS_KEY = 'corpus-key-0123456789';

const enc = encodeURIComponent;
const scalar = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Simple style (RFC 6570 `{x}`): path and header values (OpenAPI 3.0 §4.7.12.4). */
function simple(value: Json, explode: boolean, escape: (s: string) => string): string {
  if (Array.isArray(value)) return value.map((v) => escape(scalar(v))).join(',');
  if (isObject(value))
    return Object.entries(value)
      .map(([k, v]) => (explode ? `${escape(k)}=${escape(scalar(v))}` : `${escape(k)},${escape(scalar(v))}`))
      .join(',');
  return escape(scalar(value));
}

function pathValue(p: Parameter, value: Json): string {
  const explode = p.explode ?? false;
  if (p.contentType !== undefined) return enc(JSON.stringify(value));
  if (p.style === 'label') return '.' + simple(value, explode, enc).replace(/,/g, explode ? '.' : ',');
  if (p.style === 'matrix') {
    if (Array.isArray(value) && explode) return value.map((v) => `;${p.name}=${enc(scalar(v))}`).join('');
    return `;${p.name}=${simple(value, false, enc)}`;
  }
  return simple(value, explode, enc);
}

function queryPairs(p: Parameter, value: Json): string[] {
  const name = enc(p.name);
  if (p.contentType !== undefined) return [`${name}=${enc(JSON.stringify(value))}`];
  const explode = p.explode ?? (p.style === undefined || p.style === 'form');
  if (p.style === 'deepObject' && isObject(value)) return Object.entries(value).map(([k, v]) => `${name}%5B${enc(k)}%5D=${enc(scalar(v))}`);
  if (Array.isArray(value)) {
    const separator = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return explode ? value.map((v) => `${name}=${enc(scalar(v))}`) : [`${name}=${value.map((v) => enc(scalar(v))).join(separator)}`];
  }
  if (isObject(value)) {
    if (explode) return Object.entries(value).map(([k, v]) => `${enc(k)}=${enc(scalar(v))}`);
    return [`${name}=${simple(value, false, enc)}`];
  }
  return [`${name}=${enc(scalar(value))}`];
}

function credentials(schemes: readonly SecurityScheme[], headers: Record<string, string>, query: string[], cookies: string[]): void {
  for (const s of schemes) {
    if (s.type === 'apiKey' && s.name !== undefined) {
      if (s.in === 'header') headers[s.name.toLowerCase()] = CORPUS_KEY;
      else if (s.in === 'query') query.push(`${enc(s.name)}=${enc(CORPUS_KEY)}`);
      else if (s.in === 'cookie') cookies.push(`${s.name}=${CORPUS_KEY}`);
    } else if (s.type === 'http' && s.scheme === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${CORPUS_KEY}:`).toString('base64')}`;
    } else {
      // http bearer, oauth2, openIdConnect: the token travels as a bearer token (RFC 6750 §2.1).
      headers.authorization = `Bearer ${CORPUS_KEY}`;
    }
  }
}

/** The body's bytes in its media type; undefined when the harness cannot write that type. */
function bodyBytes(media: Media, value: Json): { bytes: Buffer; type: string } | undefined {
  const type = media.type.toLowerCase();
  if (/^application\/([\w.-]+\+)?json\b/.test(type) || type === '*/*' || type === 'application/*')
    return { bytes: Buffer.from(JSON.stringify(value)), type: type.includes('*') ? 'application/json' : media.type };
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const fields = isObject(value) ? Object.entries(value) : [];
    return { bytes: Buffer.from(fields.map(([k, v]) => `${enc(k)}=${enc(scalar(v))}`).join('&')), type: media.type };
  }
  if (type.startsWith('multipart/form-data')) {
    const boundary = 'corpus-boundary-7MA4YWxk';
    const fields = isObject(value) ? Object.entries(value) : [];
    const parts = fields.map(
      ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${k}.txt"\r\n\r\n${scalar(v)}\r\n`,
    );
    return { bytes: Buffer.from(parts.join('') + `--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
  }
  if (type.startsWith('text/')) return { bytes: Buffer.from(scalar(value)), type: media.type };
  if (type === 'application/octet-stream' || type.startsWith('image/') || type.startsWith('application/pdf'))
    return { bytes: Buffer.from('corpus'), type: media.type };
  return undefined;
}

export function toWire(parts: RequestParts, basePath: string): WireRequest | undefined {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  const cookies: string[] = [];
  let path = parts.operation.path;
  for (const [p, value] of parts.values) {
    if (p.in === 'path') path = path.split(`{${p.name}}`).join(pathValue(p, value));
    else if (p.in === 'query') query.push(...queryPairs(p, value));
    else if (p.in === 'header') headers[p.name.toLowerCase()] = simple(value, p.explode ?? false, (s) => s);
    else cookies.push(`${p.name}=${enc(scalar(value))}`);
  }
  if (parts.credentials) credentials(parts.credentials, headers, query, cookies);
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  let body: Buffer | undefined;
  if (parts.body) {
    const written = bodyBytes(parts.body.media, parts.body.value);
    if (!written) return undefined;
    body = written.bytes;
    headers['content-type'] = written.type;
  }
  const target = basePath.replace(/\/$/, '') + path + (query.length > 0 ? `?${query.join('&')}` : '');
  return { method: parts.operation.method, target, headers, body };
}

/** The first alternative of the operation's security whose every scheme the harness can present. */
export function chooseCredentials(op: Operation): readonly SecurityScheme[] | undefined {
  if (op.security.length === 0) return [];
  return op.security.find((alternative) => alternative.every((s) => s.type !== 'mutualTLS' && s.type !== 'unknown'));
}
