import { compileSegment, compileTemplate, type Condition, type Declares, type SegmentMatcher } from './template.js';

/** What the router needs of a route: its method and its path template (`/pets/{petId}`). */
export interface Routable {
  readonly method: string;
  readonly pathTemplate: string;
}

/** A parameter an operation declares, as far as routing reads it (a key's `#Op=…` names one). */
export interface DeclaredParameter {
  readonly name: string;
  readonly in: string;
}

export type RouteMatch<T extends Routable> =
  | { readonly kind: 'found'; readonly operation: T; readonly pathParams: Readonly<Record<string, string>> }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'bad-encoding' };

/** One operation at a node: its own parameter names (siblings may name the same position differently). */
interface Entry<T> {
  readonly operation: T;
  readonly names: readonly string[];
  /** What a request must carry besides the path (from the key's `?`/`#` suffix); empty for most. */
  readonly conditions: readonly Condition[];
  /** The conditions as one text, order aside: two entries with the same text clash. */
  readonly signature: string;
}

interface Node<T> {
  readonly literals: Map<string, Node<T>>;
  /** Partly templated segments (`{name}.{ext}`), most literal text first. */
  readonly partials: { readonly matcher: SegmentMatcher; readonly node: Node<T> }[];
  /** A fully templated segment (`{id}`), whatever its name. */
  param: Node<T> | undefined;
  readonly operations: Map<string, Entry<T>[]>;
}

const newNode = <T>(): Node<T> => ({ literals: new Map(), partials: [], param: undefined, operations: new Map() });

type Headers = Readonly<Record<string, string | undefined>>;

/** Where the walk is when no segment is left. */
const NO_SEGMENT = -1;

/**
 * A segment trie built once from the operation model. At each segment a literal wins over a
 * partly templated segment, which wins over a fully templated one: OpenAPI 3.1 §4.8.8 ("concrete
 * paths are matched before their templated counterparts"), read segment by segment. Among partly
 * templated segments the one with more literal text is tried first. A path that a more concrete
 * branch does not serve falls back to the next. A trailing slash is part of the path (RFC 3986
 * §6.2.3 leaves `/pets` and `/pets/` distinct): each matches only as documented.
 */
export class Router<T extends Routable> {
  private readonly root = newNode<T>();
  private readonly hidden: { readonly operation: T; readonly by: T }[] = [];

  /**
   * @param parametersOf the parameters an operation declares, so that a key's `#Name=value` routes on
   *   the query parameter it names, when it declares one, rather than a header.
   */
  constructor(
    operations: readonly T[],
    private readonly basePath: string,
    parametersOf: (op: T) => readonly DeclaredParameter[] = () => [],
  ) {
    for (const op of operations) this.add(op, declaredIn(parametersOf(op)));
  }

  /** Operations no request can reach, each with the earlier one that has its method and path shape. */
  get unreachable(): readonly { readonly operation: T; readonly by: T }[] {
    return this.hidden;
  }

  private add(op: T, declares: Declares): void {
    const template = compileTemplate(op.pathTemplate, declares);
    let node = this.root;
    for (const segment of template.segments) {
      if (segment.kind === 'literal') {
        let next = node.literals.get(segment.text);
        if (!next) node.literals.set(segment.text, (next = newNode<T>()));
        node = next;
      } else if (segment.kind === 'param') {
        node = node.param ??= newNode<T>();
      } else {
        let partial = node.partials.find((p) => p.matcher.shape === segment.shape);
        if (!partial) {
          partial = { matcher: compileSegment(segment.shape), node: newNode<T>() };
          node.partials.push(partial);
          // Stable sort: equal literal weight keeps document order.
          node.partials.sort((a, b) => b.matcher.literalLength - a.matcher.literalLength);
        }
        node = partial.node;
      }
    }
    const entries = node.operations.get(op.method) ?? [];
    // Two routes clash when nothing tells them apart: the same conditions (or none). One with
    // conditions and one without coexist: the plain one serves what the other does not.
    const signature = signatureOf(template.conditions);
    const clash = entries.find((e) => e.signature === signature);
    if (clash) this.hidden.push({ operation: op, by: clash.operation });
    else node.operations.set(op.method, [...entries, { operation: op, names: template.names, conditions: template.conditions, signature }]);
  }

  /** Whether a request path is under the API's base path at all. */
  owns(path: string): boolean {
    const base = this.basePath;
    return base === '' || path === base || (path.startsWith(base) && path.charCodeAt(base.length) === 0x2f);
  }

  /**
   * @param headers the request's headers (lower-case names), for operations told apart by one
   *   (`/#X-Amz-Target=…` keys); without them such operations are not found.
   * @param query the raw query string, for operations told apart by a query value (`/x?temp=true`,
   *   `/#Op=…` with `Op` a query parameter). Values are compared exactly, case included.
   *   Among the operations whose conditions the request meets, the one with the most wins; none
   *   met (and no plain key at the path): not found.
   */
  match(method: string, rawPath: string, headers: Headers = {}, query = ''): RouteMatch<T> {
    if (!this.owns(rawPath)) return { kind: 'not-found' };
    const rest = rawPath.slice(this.basePath.length);
    // The root (`/` in the document) is the base path itself, with or without its slash. The
    // segments follow the first slash (before it is nothing, or what is not a path); only the last
    // may be empty: that is a trailing slash, matched as a literal.
    if (rest.includes('//')) return { kind: 'not-found' };
    const slash = rest === '/' ? -1 : rest.indexOf('/');
    const captures: string[] = [];
    const node = this.walk(this.root, rest, slash === -1 ? NO_SEGMENT : slash + 1, captures);
    if (node === 'bad-encoding') return { kind: 'bad-encoding' };
    if (!node) return { kind: 'not-found' };
    // HEAD is allowed wherever GET is, and answered as GET without a body (RFC 9110 §9.3.2).
    const entries = node.operations.get(method) ?? (method === 'HEAD' ? node.operations.get('GET') : undefined);
    if (!entries) return { kind: 'method-not-allowed', allow: withHead(node.operations.keys()) };
    const entry = chosen(entries, headers, query);
    if (!entry) {
      // Another method's key asks for what was sent (`POST /#Op=Create` for `GET /?Op=Create`): 405.
      const allow = [...node.operations].filter(([, others]) => chosen(others, headers, query)).map(([m]) => m);
      return allow.length > 0 ? { kind: 'method-not-allowed', allow: withHead(allow) } : { kind: 'not-found' };
    }
    const pathParams: Record<string, string> = {};
    entry.names.forEach((name, i) => (pathParams[name] = captures[i] ?? ''));
    return { kind: 'found', operation: entry.operation, pathParams };
  }

  /** Every method served on a path (HEAD wherever GET is), for CORS preflights; empty when no path matches. */
  methodsAt(rawPath: string): readonly string[] {
    const match = this.match('\u0000', rawPath);
    return match.kind === 'method-not-allowed' ? match.allow : [];
  }

  /**
   * The node serving the path's segments from `start` on (`NO_SEGMENT`: none left), with the
   * template values pushed onto `captures`. Segments are cut from the path as the walk reaches them.
   */
  private walk(node: Node<T>, path: string, start: number, captures: string[]): Node<T> | undefined | 'bad-encoding' {
    if (start === NO_SEGMENT) return node.operations.size > 0 ? node : undefined;
    const slash = path.indexOf('/', start);
    const segment = slash === -1 ? path.slice(start) : path.slice(start, slash);
    const after = slash === -1 ? NO_SEGMENT : slash + 1;
    const literal = node.literals.get(segment);
    if (literal) {
      const found = this.walk(literal, path, after, captures);
      if (found) return found;
    }
    if (segment === '' || (node.partials.length === 0 && !node.param)) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'bad-encoding';
    }
    const depth = captures.length;
    for (const { matcher, node: next } of node.partials) {
      const values = matcher.match(decoded);
      if (!values) continue;
      captures.push(...values);
      const found = this.walk(next, path, after, captures);
      if (found) return found;
      captures.length = depth;
    }
    if (!node.param) return undefined;
    captures.push(decoded);
    const found = this.walk(node.param, path, after, captures);
    if (!found) captures.length = depth;
    return found;
  }
}

const signatureOf = (conditions: readonly Condition[]): string =>
  JSON.stringify(conditions.map((c) => [c.in, c.name, c.value]).sort((a, b) => (a.join('\u0000') < b.join('\u0000') ? -1 : 1)));

/** A query parameter declared wins over a header of the same name: the query is what clients send. */
function declaredIn(parameters: readonly DeclaredParameter[]): Declares {
  return (name) =>
    parameters.some((p) => p.in === 'query' && p.name === name)
      ? 'query'
      : parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === name.toLowerCase())
        ? 'header'
        : undefined;
}

/** The entry whose conditions the request meets, the most conditions first (document order among equals). */
function chosen<T>(entries: readonly Entry<T>[], headers: Headers, query: string): Entry<T> | undefined {
  if (entries.length === 1 && entries[0]?.conditions.length === 0) return entries[0];
  let params: URLSearchParams | undefined;
  const meets = (c: Condition): boolean =>
    c.in === 'header' ? headers[c.name]?.trim() === c.value : (params ??= new URLSearchParams(query)).getAll(c.name).includes(c.value);
  let best: Entry<T> | undefined;
  for (const entry of entries) {
    if ((best === undefined || entry.conditions.length > best.conditions.length) && entry.conditions.every(meets)) best = entry;
  }
  return best;
}

/** The methods allowed, sorted, with HEAD wherever GET is. */
function withHead(methods: Iterable<string>): string[] {
  const allowed = new Set(methods);
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort();
}
