/**
 * A path template (an OpenAPI `paths` key, §4.8.8) read once into what the router's trie needs:
 * its segments, its parameter names in order, and, for keys with a `?` or `#` suffix, the query
 * values or headers that tell operations on the same path apart.
 */

export type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param' }
  /** Template expressions among literal text (`{name}.{ext}`, `indexes('{name}')`), names erased (`{}.{}`). */
  | { readonly kind: 'partial'; readonly shape: string };

/** A header or query parameter a request must carry, with this value, to reach the operation. */
export interface Condition {
  readonly in: 'header' | 'query';
  /** Lower case for a header. */
  readonly name: string;
  readonly value: string;
}

export interface CompiledTemplate {
  readonly segments: readonly Segment[];
  /** Every template expression's name, left to right: the order the router captures values in. */
  readonly names: readonly string[];
  /** What the key's suffix (`?a=b`, `#Name=value`, `&`-joined) asks of a request; empty for most keys. */
  readonly conditions: readonly Condition[];
}

export interface SegmentMatcher {
  readonly shape: string;
  /** Characters of literal text: the more, the more concrete, the earlier it is tried. */
  readonly literalLength: number;
  /** The values of the segment's expressions, or undefined when the segment does not fit. */
  match(decoded: string): readonly string[] | undefined;
}

/** Where the operation declares a parameter of this name (`query` first), or undefined when it declares none. */
export type Declares = (name: string) => 'query' | 'header' | undefined;

const EXPRESSION = /\{([^{}]+)\}/g;
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const NONE: Declares = () => undefined;

/**
 * A key's suffix read as the request it names. A fragment never reaches a server (RFC 3986 §3.5),
 * nor does a query in a `paths` key (OpenAPI 3.1 §4.8.8), yet real documents key several operations
 * on one path this way: by a header (`/#X-Amz-Target=DynamoDB_20120810.PutItem`: clients send that
 * header), by a declared query parameter (`/#Op=ListThings`, `Op` declared `in: query`: clients send
 * `?Op=ListThings`), by a query value (`/users/{id}/expire?temp=true`). Each
 * `name=value` pair is a condition on whichever the operation declares, a query parameter first,
 * else a header; undeclared, a pair after `?` is a query and one after `#` a header. A suffix that
 * is not pairs (`/tables#listing`) asks nothing.
 */
function conditionsOf(suffix: string, declares: Declares): Condition[] {
  const conditions: Condition[] = [];
  // Pairs after `?` default to the query until a `#` starts the fragment.
  let place: 'query' | 'header' = suffix.startsWith('?') ? 'query' : 'header';
  for (const piece of suffix.slice(1).split(/([#&])/)) {
    if (piece === '#') place = 'header';
    if (piece === '#' || piece === '&' || piece === '') continue;
    const eq = piece.indexOf('=');
    if (eq <= 0) return [];
    const raw = piece.slice(0, eq);
    const name = decodedOr(raw);
    const where = declares(name) ?? place;
    if (where === 'header' && !TOKEN.test(raw)) return [];
    conditions.push(
      where === 'header'
        ? { in: 'header', name: raw.toLowerCase(), value: piece.slice(eq + 1) }
        : { in: 'query', name, value: decodedOr(piece.slice(eq + 1)) },
    );
  }
  return conditions;
}

/**
 * @param declares where the operation declares a parameter, so a key's `#Name=value` routes on the
 *   query parameter it declares rather than a header.
 */
export function compileTemplate(template: string, declares: Declares = NONE): CompiledTemplate {
  const cut = template.search(/[#?]/);
  const path = cut === -1 ? template : template.slice(0, cut);
  const conditions = cut === -1 ? [] : conditionsOf(template.slice(cut), declares);
  const names = [...path.matchAll(EXPRESSION)].map((m) => m[1] ?? '');
  const parts = path === '/' || path === '' ? [] : path.split('/');
  if (parts[0] === '') parts.shift();
  // Doubled slashes are read as one; a trailing slash stays, as an empty last segment.
  const segments = parts.filter((part, i) => part !== '' || i === parts.length - 1).map(toSegment);
  return { segments, names, conditions };
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
