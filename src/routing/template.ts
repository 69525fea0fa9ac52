/**
 * A path template (an OpenAPI `paths` key, §4.8.8) read once into what the router's trie needs:
 * its segments, its parameter names in order, and, for keys that carry a fragment, the header
 * that tells operations on the same path apart.
 */

export type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param' }
  /** Template expressions among literal text (`{name}.{ext}`, `indexes('{name}')`), names erased (`{}.{}`). */
  | { readonly kind: 'partial'; readonly shape: string };

/** A header or query parameter a request must carry, with this value, to reach the operation. */
export interface Discriminator {
  readonly in: 'header' | 'query';
  /** Lower case for a header. */
  readonly name: string;
  readonly value: string;
}

export interface CompiledTemplate {
  readonly segments: readonly Segment[];
  /** Every template expression's name, left to right: the order the router captures values in. */
  readonly names: readonly string[];
  readonly discriminator: Discriminator | undefined;
}

export interface SegmentMatcher {
  readonly shape: string;
  /** Characters of literal text: the more, the more concrete, the earlier it is tried. */
  readonly literalLength: number;
  /** The values of the segment's expressions, or undefined when the segment does not fit. */
  match(decoded: string): readonly string[] | undefined;
}

const EXPRESSION = /\{([^{}]+)\}/g;
// AWS documents (JSON protocol) key operations as `/#X-Amz-Target=DynamoDB_20120810.PutItem`. A
// fragment never reaches a server (RFC 3986 §3.5): real clients send the path before `#` and the
// operation in the named header, so that header routes the request.
const HEADER_TARGET = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)=(.+)$/;
// Some documents key operations on a query parameter's value (`/users/{id}/expire?temp=true` and
// `?temp=false`): clients send that query, so it routes the request the same way.
const QUERY_TARGET = /^([^=&]+)=([^&]*)$/;

export function compileTemplate(template: string): CompiledTemplate {
  const hash = template.indexOf('#');
  const question = template.indexOf('?');
  const cut = [hash, question].filter((i) => i !== -1).reduce((a, b) => Math.min(a, b), template.length);
  const path = template.slice(0, cut);
  const header = hash === -1 ? null : HEADER_TARGET.exec(template.slice(hash + 1));
  const query =
    question === -1 || (hash !== -1 && hash < question) ? null : QUERY_TARGET.exec(template.slice(question + 1).split('#')[0] ?? '');
  const names = [...path.matchAll(EXPRESSION)].map((m) => m[1] ?? '');
  const parts = path === '/' || path === '' ? [] : path.split('/');
  if (parts[0] === '') parts.shift();
  // Doubled slashes are read as one; a trailing slash stays, as an empty last segment.
  const segments = parts.filter((part, i) => part !== '' || i === parts.length - 1).map(toSegment);
  const discriminator: Discriminator | undefined = header
    ? { in: 'header', name: (header[1] ?? '').toLowerCase(), value: header[2] ?? '' }
    : query
      ? { in: 'query', name: decodedOr(query[1] ?? ''), value: decodedOr(query[2] ?? '') }
      : undefined;
  return { segments, names, discriminator };
}

function toSegment(part: string): Segment {
  if (!part.includes('{')) return { kind: 'literal', text: part };
  if (/^\{[^{}]+\}$/.test(part)) return { kind: 'param' };
  return { kind: 'partial', shape: part.replace(EXPRESSION, '{}') };
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A partly templated segment as a regular expression over the decoded segment. Each value is at
 * least one character and greedy, so with `{name}.{ext}` the text `a.tar.gz` is `a.tar` and `gz`
 * (the last dot splits, as file names are read).
 */
export function compileSegment(shape: string): SegmentMatcher {
  const pieces = shape.split('{}');
  const pattern = new RegExp(`^${pieces.map(escape).join('(.+)')}$`, 's');
  return {
    shape,
    literalLength: pieces.reduce((n, piece) => n + piece.length, 0),
    match: (decoded) => pattern.exec(decoded)?.slice(1),
  };
}

/** The text percent-decoded, or as written when its encoding is broken. */
function decodedOr(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
