import contentType from 'content-type';
import type { MediaSpec } from '../vocabulary/operation.js';

export type MediaMatch =
  { readonly ok: true; readonly media: MediaSpec; readonly json: boolean } | { readonly ok: false; readonly message: string };

const isJson = (type: string): boolean => type === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.+-]*\+json$/.test(type);

/**
 * Finds which of the operation's request media types a `Content-Type` header selects: an exact
 * match first, then `type/*`, then `*\/*` (OpenAPI 3.1 §4.8.14.1: the most specific key wins).
 * JSON bodies must be UTF-8 (RFC 8259 §8.1), so another charset is refused.
 */
export function matchMediaType(header: string | undefined, content: readonly MediaSpec[]): MediaMatch {
  const accepted = content.map((m) => m.mediaType).join(', ');
  if (header === undefined || header.trim() === '') return { ok: false, message: `Content-Type is missing; send ${accepted}` };
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header);
  } catch {
    return { ok: false, message: `Content-Type "${header.slice(0, 100)}" is malformed; send ${accepted}` };
  }
  const type = parsed.type;
  const media =
    content.find((m) => m.mediaType === type) ??
    content.find((m) => m.mediaType === `${type.split('/')[0]}/*`) ??
    content.find((m) => m.mediaType === '*/*');
  if (!media) return { ok: false, message: `Content-Type ${type} is not accepted; send ${accepted}` };
  const json = isJson(type);
  const charset = parsed.parameters.charset?.toLowerCase();
  if (json && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return { ok: false, message: `charset ${charset} is not accepted; JSON must be UTF-8` };
  }
  return { ok: true, media, json };
}
