import { createHash } from 'node:crypto';
import { matchesPattern, stringMatching } from '../mock/pattern-values.js';
import { seededFaker } from '../mock/seeded-faker.js';
import type { IdKind } from '../vocabulary/operation.js';
import type { MintKey } from '../vocabulary/record.js';

/**
 * New records' keys, minted in the id's declared kind and deterministic: a key depends only on the
 * collection and a salt the store gives (the record's row number, or a counter's value), so the same
 * seed and the same requests give the same ids. The store tries the next salt while a key is taken.
 */

/** Characters of a minted key's random part: letters and digits, as most providers' ids use. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The random part's length when the document bounds nothing: 14 characters, about 83 bits. */
const DEFAULT_LENGTH = 14;

/** The minter of a collection's keys; undefined for whole-number ids (the store numbers those). */
export function minter(kind: IdKind | undefined, collection: string): MintKey | undefined {
  if (kind === undefined || kind.kind === 'integer') return undefined;
  if (kind.kind === 'uuid') return (salt) => uuidOf(digest(collection, salt));
  return (salt) => stringOf(kind, digest(collection, salt));
}

/** Whether a value (a seeded record's generated id) is one this kind could have minted: its shape, prefix, pattern and lengths. */
export function fitsKind(kind: IdKind, value: string): boolean {
  if (kind.kind === 'integer') return false;
  if (kind.kind === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
  if (value === '' || value.length < (kind.minLength ?? 0) || value.length > (kind.maxLength ?? Infinity)) return false;
  if (kind.prefix !== undefined && !value.startsWith(kind.prefix)) return false;
  return kind.pattern === undefined || matchesPattern(kind.pattern, value);
}

/**
 * A minter that tries a readable key first: `text` made a slug (`Hello world` → `hello-world`), then
 * the slug with the salt's number (`hello-world-21`) while that is taken; the plain minter where no
 * slug of the text fits the kind.
 */
export function slugMinter(kind: IdKind, text: string, fallback: MintKey): MintKey {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  let tries = 0;
  return (salt) => {
    const candidate = tries++ === 0 ? slug : `${slug}-${salt.replace(/\D/g, '')}`;
    return slug !== '' && fitsKind(kind, candidate) ? candidate : fallback(salt);
  };
}

const digest = (collection: string, salt: string): Buffer => createHash('sha256').update(`${collection}\u0000${salt}`).digest();

/** A UUID from 16 bytes of a digest, shaped as version 4 (RFC 9562 §5.4): the version and variant bits set. */
function uuidOf(bytes: Buffer): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `length` letters and digits drawn from a digest (stretched when it runs out). */
function randomPart(bytes: Buffer, length: number): string {
  let out = '';
  let source = bytes;
  for (let i = 0; out.length < length; i++) {
    if (i === source.length) [source, i] = [createHash('sha256').update(source).digest(), 0];
    out += ALPHABET.charAt((source[i] ?? 0) % ALPHABET.length);
  }
  return out;
}

type StringKind = Extract<IdKind, { kind: 'string' }>;

/** A string id: to its pattern, else its format, else its prefix and a random part, within its lengths. */
function stringOf(kind: StringKind, bytes: Buffer): string {
  const min = kind.minLength ?? 0;
  const max = kind.maxLength ?? Infinity;
  const fits = (text: string): boolean =>
    text.length >= min && text.length <= max && (kind.pattern === undefined || matchesPattern(kind.pattern, text));
  if (kind.pattern !== undefined) {
    // A pattern the plain form below does not already fit is drawn from, seeded by the digest.
    const plain = plainString(kind, bytes, min, max);
    if (fits(plain)) return plain;
    const drawn = stringMatching(kind.pattern, seededFaker(bytes.readUInt32BE(0), new Date(0)), min, max);
    if (drawn !== undefined) return drawn;
  }
  return plainString(kind, bytes, min, max);
}

/** By format, else a prefix and a random part sized to the lengths. */
function plainString(kind: StringKind, bytes: Buffer, min: number, max: number): string {
  const word = randomPart(bytes, DEFAULT_LENGTH).toLowerCase();
  if (kind.format === 'email' || kind.format === 'idn-email') return `user-${word}@example.com`;
  if (kind.format === 'uri' || kind.format === 'url' || kind.format === 'iri') return `https://example.com/${word}`;
  if (kind.format === 'hostname' || kind.format === 'idn-hostname') return `${word}.example.com`;
  const prefix = kind.prefix ?? '';
  const wanted = Math.min(Math.max(DEFAULT_LENGTH, min - prefix.length), Math.max(1, max - prefix.length));
  return prefix + randomPart(bytes, wanted);
}
