import type { ParameterSpec } from '../vocabulary/operation.js';

/**
 * Where one parameter's text is found in a request, decided once at start-up. Most parameters are
 * one name; an object in a query or cookie may be several (OpenAPI 3.1 §4.8.12.4): form exploded
 * puts each property under its own name (`R=100&G=200`), deepObject under `name[property]`.
 */
export type Source =
  | { readonly kind: 'single'; readonly from: 'path' | 'header' }
  | { readonly kind: 'values'; readonly from: 'query' | 'cookie' }
  | {
      readonly kind: 'members';
      readonly from: 'query' | 'cookie';
      /** The declared properties (less names that other parameters declare: those win). */
      readonly names: ReadonlySet<string>;
      /** When the object takes undeclared properties: the names it must leave to the other parameters. */
      readonly others: ReadonlySet<string> | undefined;
    }
  | { readonly kind: 'deep' }
  /** `in: querystring` (OpenAPI 3.2 §4.12.2): the whole query string, every name in it. */
  | { readonly kind: 'whole' };

export interface Carriers {
  readonly path: Readonly<Record<string, string>>;
  readonly query: ReadonlyMap<string, readonly string[]>;
  /** Query values with `+` kept, for `allowReserved` parameters (only names that had one: `parseQuery`). */
  readonly queryPlusKept: ReadonlyMap<string, readonly string[]>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The query string as received, for a querystring parameter. */
  readonly rawQuery: string;
  readonly cookies: () => ReadonlyMap<string, readonly string[]>;
}

export type Sent =
  | { readonly kind: 'texts'; readonly texts: readonly string[] }
  | { readonly kind: 'members'; readonly pairs: readonly (readonly [string, string])[] }
  /** A deepObject key nested deeper than OpenAPI defines (`color[a][b]`). */
  | { readonly kind: 'nested'; readonly key: string }
  /** The whole query string, still encoded (a querystring parameter). */
  | { readonly kind: 'whole'; readonly text: string };

export function sourceOf(spec: ParameterSpec, all: readonly ParameterSpec[]): Source {
  if (spec.in === 'querystring') return { kind: 'whole' };
  if (spec.in === 'path' || spec.in === 'header') return { kind: 'single', from: spec.in };
  // An object, or a value one of whose readings is an object (`anyOf: [{type: object}, {type: integer}]`).
  const object = spec.kind === 'object' || (spec.variants?.some((v) => v.kind === 'object') ?? false);
  if (!object || spec.mediaType !== undefined) return { kind: 'values', from: spec.in };
  if (spec.in === 'query' && spec.style === 'deepObject') return { kind: 'deep' };
  if (spec.style !== 'form' || !spec.explode) return { kind: 'values', from: spec.in };
  const others = new Set(all.filter((p) => p !== spec && p.in === spec.in).map((p) => p.name));
  const names = new Set([...(spec.propertyKinds?.keys() ?? [])].filter((name) => !others.has(name)));
  return { kind: 'members', from: spec.in, names, others: spec.additionalKind === undefined ? undefined : others };
}

/** Whether a query key belongs to this parameter (for `validation.unknownQueryParameters: reject`). */
export function claims(spec: ParameterSpec, source: Source, key: string): boolean {
  switch (source.kind) {
    case 'members':
      return source.names.has(key) || (source.others !== undefined && !source.others.has(key));
    case 'deep':
      return key.startsWith(`${spec.name}[`) || (spec.variants !== undefined && key === spec.name);
    case 'whole':
      return true;
    default:
      return key === spec.name;
  }
}

const DEEP_MEMBER = /^\[([^[\]]*)\]$/;

/** What the request sent for one parameter: texts under its name, or an object's members. */
export function gather(spec: ParameterSpec, source: Source, carriers: Carriers): Sent {
  switch (source.kind) {
    case 'single': {
      const text = source.from === 'path' ? carriers.path[spec.name] : carriers.headers[spec.name];
      return { kind: 'texts', texts: text === undefined ? [] : [text] };
    }
    case 'values': {
      if (source.from === 'query' && spec.allowReserved === true) {
        return { kind: 'texts', texts: carriers.queryPlusKept.get(spec.name) ?? carriers.query.get(spec.name) ?? [] };
      }
      const map = source.from === 'query' ? carriers.query : carriers.cookies();
      return { kind: 'texts', texts: map.get(spec.name) ?? [] };
    }
    case 'members': {
      const map = source.from === 'query' ? carriers.query : carriers.cookies();
      const pairs = [...map].filter(([key]) => claims(spec, source, key)).flatMap(([key, values]) => values.map((v) => [key, v] as const));
      return { kind: 'members', pairs };
    }
    case 'whole':
      return { kind: 'whole', text: carriers.rawQuery };
    case 'deep': {
      const pairs: (readonly [string, string])[] = [];
      for (const [key, values] of carriers.query) {
        if (!key.startsWith(`${spec.name}[`)) continue;
        const member = DEEP_MEMBER.exec(key.slice(spec.name.length));
        if (!member) return { kind: 'nested', key };
        for (const value of values) pairs.push([member[1] ?? '', value]);
      }
      // A value that may be an object or not (`created[gte]=5` or `created=5`): sent plain, it is text.
      const plain = spec.variants !== undefined && pairs.length === 0 ? carriers.query.get(spec.name) : undefined;
      return plain ? { kind: 'texts', texts: plain } : { kind: 'members', pairs };
    }
  }
}
