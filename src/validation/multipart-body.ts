import type { Violation } from '../vocabulary/errors.js';
import type { BodyField } from './body-fields.js';
import { readField, type Decoded } from './form-body.js';
import { essence } from './media-type.js';

/** One part of a `multipart/form-data` body (RFC 7578). */
export interface FormPart {
  readonly name: string;
  readonly filename: string | undefined;
  /** The part's Content-Type, `text/plain` when it names none (RFC 7578 §4.4). */
  readonly contentType: string;
  readonly data: Buffer;
}

export type PartsRead = { readonly ok: true; readonly parts: readonly FormPart[] } | { readonly ok: false; readonly message: string };

const CRLF = Buffer.from('\r\n');
const PARAM = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;

/**
 * Splits a whole multipart body into its parts (RFC 2046 §5.1.1). The body is already in memory
 * and within the body limit (which so covers every part together), so it is read in one pass,
 * synchronously: no part is streamed anywhere.
 */
export function parseMultipart(bytes: Buffer, boundary: string): PartsRead {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let at = bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? 0 : bytes.indexOf(delimiter);
  if (at === -1) return { ok: false, message: 'the body has no boundary line' };
  if (at > 0) at += 2; // past the CRLF that belongs to the delimiter
  const parts: FormPart[] = [];
  for (;;) {
    let next = at + delimiter.length - 2;
    if (bytes[next] === 0x2d && bytes[next + 1] === 0x2d) return { ok: true, parts }; // the close delimiter `--boundary--`
    while (bytes[next] === 0x20 || bytes[next] === 0x09) next++; // transport padding
    if (!bytes.subarray(next, next + 2).equals(CRLF)) return { ok: false, message: 'a boundary line is not followed by a line break' };
    const start = next + 2;
    const end = bytes.indexOf(delimiter, start);
    if (end === -1) return { ok: false, message: 'the closing boundary is missing' };
    const part = readPart(bytes.subarray(start, end));
    if (!part.ok) return part;
    parts.push(part.part);
    at = end + 2;
  }
}

function readPart(raw: Buffer): { ok: true; part: FormPart } | { ok: false; message: string } {
  const split = raw.subarray(0, 2).equals(CRLF) ? 0 : raw.indexOf('\r\n\r\n');
  if (split === -1) return { ok: false, message: 'a part has no blank line after its headers' };
  const headers = new Map<string, string>();
  for (const line of raw.subarray(0, split).toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  if (!/^form-data\s*(;|$)/i.test(disposition)) return { ok: false, message: 'a part has no Content-Disposition: form-data' };
  const params = new Map<string, string>();
  for (const m of disposition.matchAll(PARAM)) params.set((m[1] ?? '').toLowerCase(), m[2]?.replace(/\\(.)/g, '$1') ?? m[3] ?? '');
  const name = params.get('name');
  if (name === undefined) return { ok: false, message: 'a part has no name' };
  const data = raw.subarray(split === 0 ? 2 : split + 4);
  return { ok: true, part: { name, filename: params.get('filename'), contentType: headers.get('content-type') ?? 'text/plain', data } };
}

/** Whether a part's type is one of the declared media ranges (`image/png`, `image/*`, `*\/*`). */
function allowed(contentType: string, ranges: readonly string[]): boolean {
  const type = essence(contentType);
  return ranges.some((range) => {
    const r = essence(range);
    return r === '*/*' || r === type || (r.endsWith('/*') && type.startsWith(r.slice(0, -1)));
  });
}

/**
 * The parts as one object typed by the schema: a file part (a binary property, or any part sent
 * with a filename) is its bytes as a string (Latin-1: one character per byte, so `maxLength`
 * counts bytes), checked against `encoding.contentType` when the document declares one; other
 * parts are UTF-8 text (or their charset) read like form fields.
 */
export function decodeMultipart(parts: readonly FormPart[], fields: ReadonlyMap<string, BodyField>): Decoded {
  const violations: Violation[] = [];
  const byName = new Map<string, FormPart[]>();
  for (const part of parts) byName.set(part.name, [...(byName.get(part.name) ?? []), part]);
  const entries: [string, unknown][] = [];
  for (const [name, group] of byName) {
    const field = fields.get(name);
    const location = `body.${name}`;
    if (field?.contentTypes) {
      const wrong = group.find((p) => !allowed(p.contentType, field.contentTypes ?? []));
      if (wrong) violations.push({ location, message: `must be ${field.contentTypes.join(' or ')}, not ${essence(wrong.contentType)}` });
    }
    if (field?.binary || (!field && group.every((p) => p.filename !== undefined))) {
      const files = group.map((p) => p.data.toString('latin1'));
      entries.push([name, field?.parameter.kind === 'array' || files.length > 1 ? files : files[0]]);
      continue;
    }
    const texts: string[] = [];
    for (const part of group) {
      const charset = /;\s*charset="?([^";\s]+)/i.exec(part.contentType)?.[1] ?? 'utf-8';
      try {
        texts.push(new TextDecoder(charset, { fatal: true }).decode(part.data));
      } catch {
        violations.push({ location, message: `is not text in ${charset}` });
        texts.push(part.data.toString('latin1'));
      }
    }
    entries.push([name, readField(field, texts, location, violations)]);
  }
  return { value: Object.fromEntries(entries), violations };
}
