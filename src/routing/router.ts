/** What the router needs of a route: its method and its path template (`/pets/{petId}`). */
export interface Routable {
  readonly method: string;
  readonly pathTemplate: string;
}

export type RouteMatch<T extends Routable> =
  | { readonly kind: 'found'; readonly operation: T; readonly pathParams: Readonly<Record<string, string>> }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'bad-encoding' };

interface Node<T> {
  readonly literals: Map<string, Node<T>>;
  param: { readonly name: string; readonly node: Node<T> } | undefined;
  readonly operations: Map<string, T>;
}

const newNode = <T>(): Node<T> => ({ literals: new Map(), param: undefined, operations: new Map() });

/**
 * A segment trie built once from the operation model. Literal segments win over templated ones, as
 * OpenAPI 3.1 §4.8.8 requires ("concrete paths are matched before their templated counterparts").
 */
export class Router<T extends Routable> {
  private readonly root = newNode<T>();

  constructor(
    operations: readonly T[],
    private readonly basePath: string,
  ) {
    for (const op of operations) this.add(op);
  }

  private add(op: T): void {
    let node = this.root;
    for (const segment of op.pathTemplate.split('/').filter(Boolean)) {
      const param = /^\{([^}]+)\}$/.exec(segment);
      if (param) {
        const name = param[1] ?? '';
        node.param ??= { name, node: newNode<T>() };
        node = node.param.node;
      } else {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode<T>()));
        node = next;
      }
    }
    node.operations.set(op.method, op);
  }

  /** Whether a request path is under the API's base path at all. */
  owns(path: string): boolean {
    return path === this.basePath || path.startsWith(`${this.basePath}/`) || this.basePath === '';
  }

  match(method: string, rawPath: string): RouteMatch<T> {
    if (!this.owns(rawPath)) return { kind: 'not-found' };
    const rest = rawPath.slice(this.basePath.length);
    // The root (`/` in the document) is the base path itself, with or without its slash.
    const segments = rest === '' || rest === '/' ? [] : rest.split('/').slice(1);
    if (segments.some((s) => s === '')) return { kind: 'not-found' };
    const params: Record<string, string> = {};
    const node = this.walk(this.root, segments, 0, params);
    if (node === 'bad-encoding') return { kind: 'bad-encoding' };
    if (!node || node.operations.size === 0) return { kind: 'not-found' };
    const operation = node.operations.get(method);
    if (!operation) return { kind: 'method-not-allowed', allow: [...node.operations.keys()].sort() };
    return { kind: 'found', operation, pathParams: params };
  }

  /** Every method served on a path, for CORS preflights; empty when no path matches. */
  methodsAt(rawPath: string): readonly string[] {
    const match = this.match('\u0000', rawPath);
    return match.kind === 'method-not-allowed' ? match.allow : [];
  }

  private walk(
    node: Node<T>,
    segments: readonly string[],
    index: number,
    params: Record<string, string>,
  ): Node<T> | undefined | 'bad-encoding' {
    const segment = segments[index];
    if (segment === undefined) return node;
    const literal = node.literals.get(segment);
    if (literal) {
      const found = this.walk(literal, segments, index + 1, params);
      if (found === 'bad-encoding' || (found && found.operations.size > 0)) return found;
    }
    if (!node.param) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'bad-encoding';
    }
    const found = this.walk(node.param.node, segments, index + 1, params);
    if (found && found !== 'bad-encoding') params[node.param.name] = decoded;
    return found;
  }
}
