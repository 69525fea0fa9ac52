import contentType from 'content-type';
import type { MediaSpec } from '../vocabulary/operation.js';
import { remembered } from '../vocabulary/remembered.js';

/** How a body of a media type is read and written. */
export type MediaKind = 'json' | 'form' | 'multipart' | 'xml' | 'text' | 'binary';

export type MediaMatch =
  | {
      readonly ok: true;
      readonly media: MediaSpec;
      /** The kind of the request's own Content-Type (a `*\/*` key takes any kind). */
      readonly kind: MediaKind;
      /** The request's parameters (`charset`, `boundary`), names in lower case. */
      readonly parameters: Readonly<Record<string, string>>;
    }
  | { readonly ok: false; readonly message: string };

/**
 * A media type without its parameters, in lower case: `application/json;charset=utf-8` → `application/json`.
 * Read on every request with a body or an Accept header, a few times over: worked out once per type.
 */
export const essence = remembered(256, (mediaType) => (mediaType.split(';')[0] ?? '').trim().toLowerCase());

/** JSON, and every structured-syntax `+json` type (RFC 6839 §3.1): `application/vnd.api+json`, `application/problem+json`. */
export const isJsonType = (type: string): boolean => {
  const e = essence(type);
  return e === 'application/json' || /^[a-z0-9.!#$&^_-]+\/[a-z0-9.!#$&^_+-]*\+json$/.test(e);
};

/** The kind of a media type, by its essence and structured-syntax suffix (RFC 6839). */
export function mediaKind(type: string): MediaKind {
  const e = essence(type);
  if (isJsonType(e)) return 'json';
  if (e === 'application/x-www-form-urlencoded') return 'form';
  if (e === 'multipart/form-data') return 'multipart';
  if (e === 'application/xml' || e === 'text/xml' || e.endsWith('+xml')) return 'xml';
  if (e.startsWith('text/')) return 'text';
  return 'binary';
}

/** The declared types, for a refusal's message. */
const listed = (content: readonly MediaSpec[]): string => content.map((m) => m.mediaType).join(', ');

/**
 * A `Content-Type` header parsed, or undefined when it is malformed: clients send the same few over
 * and over. Frozen, as every request with that header shares it.
 */
const parsedContentType = remembered(256, (header): Readonly<contentType.ParsedMediaType> | undefined => {
  try {
    const parsed = contentType.parse(header);
    Object.freeze(parsed.parameters);
    return Object.freeze(parsed);
  } catch {
    return undefined;
  }
});

/**
 * Finds which of the operation's request media types a `Content-Type` header selects: an exact
 * match first, then `type/*`, then `*\/*` (OpenAPI 3.1 §4.8.14.1: the most specific key wins).
 * Keys are compared without their parameters, so a key `application/json;charset=utf-8` takes a
 * request's `application/json`. JSON bodies must be UTF-8 (RFC 8259 §8.1), so another charset is
 * refused; a text charset the runtime cannot decode is refused too.
 */
export function matchMediaType(header: string | undefined, content: readonly MediaSpec[]): MediaMatch {
  if (header === undefined || header.trim() === '') return { ok: false, message: `Content-Type is missing; send ${listed(content)}` };
  const parsed = parsedContentType(header);
  if (parsed === undefined) return { ok: false, message: `Content-Type "${header.slice(0, 100)}" is malformed; send ${listed(content)}` };
  const type = parsed.type;
  const media =
    content.find((m) => essence(m.mediaType) === type) ??
    content.find((m) => essence(m.mediaType) === `${type.split('/')[0] ?? ''}/*`) ??
    content.find((m) => essence(m.mediaType) === '*/*');
  if (!media) return { ok: false, message: `Content-Type ${type} is not accepted; send ${listed(content)}` };
  const kind = mediaKind(type);
  const charset = parsed.parameters.charset?.toLowerCase();
  if (kind === 'json' && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return { ok: false, message: `charset ${charset} is not accepted; JSON must be UTF-8` };
  }
  if (charset !== undefined && !decodable(charset)) return { ok: false, message: `charset ${charset} is not supported` };
  if (kind === 'multipart' && !parsed.parameters.boundary) return { ok: false, message: 'multipart/form-data needs a boundary parameter' };
  return { ok: true, media, kind, parameters: parsed.parameters };
}

function decodable(charset: string): boolean {
  try {
    new TextDecoder(charset);
    return true;
  } catch {
    return false;
  }
}
