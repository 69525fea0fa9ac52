import { remembered } from '../vocabulary/remembered.js';
import { essence, isJsonType } from './media-type.js';

/** One media range of an `Accept` header (RFC 9110 §12.5.1). */
interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const ANY: readonly MediaRange[] = [{ type: '*', subtype: '*', q: 1 }];
const TOKEN = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
const QVALUE = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/;

/**
 * The media ranges of an `Accept` header. A missing or empty header, or one with no range that
 * parses, accepts anything (RFC 9110 §12.5.1: "A request without any Accept header field implies
 * that the user agent will accept any media type"); a malformed range is skipped, not fatal.
 */
export function parseAccept(header: string | undefined): readonly MediaRange[] {
  if (header === undefined || header.trim() === '') return ANY;
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type = '', subtype = '', extra] = range.trim().toLowerCase().split('/');
    if (extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    for (const param of params) {
      const [name = '', value = ''] = param.split('=').map((s) => s.trim());
      if (name.toLowerCase() === 'q') q = QVALUE.test(value) ? Number(value) : -1;
    }
    if (q >= 0) ranges.push({ type, subtype, q });
  }
  return ranges.length > 0 ? ranges : ANY;
}

/** 3 for `type/subtype`, 2 for `type/*`, 1 for `*\/*`, 0 when the range does not cover the type. */
function specificity(range: MediaRange, type: string, subtype: string): number {
  if (range.type === '*') return 1;
  if (range.type !== type && type !== '*') return 0;
  if (range.subtype === '*') return 2;
  return range.subtype === subtype || subtype === '*' ? 3 : 0;
}

/** How much the client wants a media type: the q of the most specific range covering it (RFC 9110 §12.5.1). */
function quality(ranges: readonly MediaRange[], mediaType: string): { q: number; specificity: number } {
  const [type = '', subtype = ''] = essence(mediaType).split('/');
  let best = { q: 0, specificity: 0 };
  for (const range of ranges) {
    const s = specificity(range, type, subtype);
    if (s > best.specificity) best = { q: range.q, specificity: s };
  }
  return best;
}

/** A concrete type to send for a declared key that is a wildcard (`*\/*`, `image/*`). */
function concrete(declared: string, ranges: readonly MediaRange[]): string {
  const [type = '', subtype = ''] = essence(declared).split('/');
  if (type !== '*' && subtype !== '*') return declared;
  const named = ranges.find((r) => r.q > 0 && r.type !== '*' && r.subtype !== '*' && (type === '*' || r.type === type));
  if (named) return `${named.type}/${named.subtype}`;
  return type === '*' ? 'application/json' : 'application/octet-stream';
}

/**
 * The media type to answer in, among those the document declares for the answer's status: the
 * one `Accept` prefers most (highest q, then the most specific range naming it), then a JSON one,
 * then the first declared. Undefined when `Accept` rules out every declared type (a 406).
 * The declared key is returned as written (`application/json;charset=utf-8`), except that a
 * wildcard key is made concrete from `Accept` (or JSON for `*\/*`).
 */
export function chooseMediaType(declared: readonly string[], accept: string | undefined): string | undefined {
  // Asked on every request, of the same few lists and Accept values: worked out once per pair
  // (64 Accept values per list; a list is an operation's, read once: the same array every time).
  let chosen = choices.get(declared);
  if (chosen === undefined) choices.set(declared, (chosen = remembered(64, (header) => choose(declared, header))));
  return chosen(accept ?? '');
}

const choices = new WeakMap<readonly string[], (accept: string) => string | undefined>();

function choose(declared: readonly string[], accept: string | undefined): string | undefined {
  const ranges = parseAccept(accept);
  let best: { key: string; q: number; specificity: number; json: boolean } | undefined;
  for (const key of declared) {
    const { q, specificity: s } = quality(ranges, key);
    if (q <= 0) continue;
    const json = isJsonType(key);
    if (!best || q > best.q || (q === best.q && (s > best.specificity || (s === best.specificity && json && !best.json)))) {
      best = { key, q, specificity: s, json };
    }
  }
  return best && concrete(best.key, ranges);
}
