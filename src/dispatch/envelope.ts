import { listItems, propertyNames, propertySchema } from '../openapi/bindings.js';
import { requiredOf } from '../openapi/required.js';
import { follow, isObject, type JsonObject } from '../openapi/json-pointer.js';

/**
 * Lists wrapped in an envelope (`{data: [...], next: ...}`, `{items, total}`): which property holds
 * the page, and which ones say where the next page is, whether there is one, and how many records
 * match. Recognised by name and type at start-up; any other property keeps the document's value.
 */
export interface Envelope {
  readonly items: string;
  readonly next: EnvelopeField<'url' | 'string' | 'integer'> | undefined;
  readonly total: EnvelopeField<'integer'> | undefined;
  readonly hasMore: EnvelopeField<'boolean'> | undefined;
}

export interface EnvelopeField<K extends string> {
  readonly name: string;
  readonly kind: K;
  /** `null` is allowed (sent on the last page); else the field is left out there when not required. */
  readonly nullable: boolean;
  readonly required: boolean;
}

const NEXT = /^(@odata\.)?next(_?(cursor|page|page_?token|link|url|href|token|key))?$|^(cursor|next_?cursor|page_?token|starting_?after)$/i;
const TOTAL = /^(total|total_?count|total_?results|total_?items|count)$/i;
const HAS_MORE = /^(has_?more|has_?next(_?page)?|more)$/i;
const URLISH = /url|link|href/i;

export function envelopeOf(document: unknown, pointer: string | undefined): Envelope | undefined {
  if (pointer === undefined) return undefined;
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return undefined;
  const items = listItems(document, value, at)?.envelope;
  if (items === undefined) return undefined;
  const names = propertyNames(document, value, at);
  const required = requiredOf(document, at);
  const field = <K extends string>(
    pattern: RegExp,
    kindOf: (schema: JsonObject, name: string) => K | undefined,
  ): EnvelopeField<K> | undefined => {
    for (const name of names) {
      if (name === items || !pattern.test(name)) continue;
      const schema = propertySchema(document, value, at, name) ?? {};
      const kind = kindOf(schema, name);
      if (kind !== undefined) return { name, kind, nullable: typesOf(schema).includes('null'), required: required.has(name) };
    }
    return undefined;
  };
  return {
    items,
    next: field(NEXT, (schema, name) => {
      const types = typesOf(schema);
      if (types.includes('integer') || types.includes('number')) return 'integer';
      if (!types.includes('string') || schema.enum !== undefined || schema.pattern !== undefined) return undefined;
      const url = (typeof schema.format === 'string' && schema.format.startsWith('uri')) || URLISH.test(name) || name === 'next';
      return url ? 'url' : schema.format === undefined ? 'string' : undefined;
    }),
    total: field(TOTAL, (schema) => (typesOf(schema).some((t) => t === 'integer' || t === 'number') ? 'integer' : undefined)),
    hasMore: field(HAS_MORE, (schema) => (typesOf(schema).includes('boolean') ? 'boolean' : undefined)),
  };
}

const typesOf = (schema: JsonObject): readonly unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

export interface PageFacts {
  readonly items: readonly unknown[];
  /** The next page's cursor, offset or page number, or undefined on the last page. */
  readonly next: string | number | undefined;
  /** The URL of the next page, when the operation declares a cursor parameter. */
  readonly nextUrl: string | undefined;
  readonly total: number | undefined;
}

/**
 * The page inside its envelope: the document's own answer (its constant fields: `object: list`)
 * with the page, the next cursor, `total` and `hasMore` filled from the store. Never changes `base`.
 */
export function wrapPage(envelope: Envelope, base: unknown, page: PageFacts): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(isObject(base) ? base : {}), [envelope.items]: page.items };
  const dropped = new Set<string>();
  const set = (field: EnvelopeField<string> | undefined, value: unknown, fallback: unknown): void => {
    if (!field) return;
    if (value !== undefined) out[field.name] = value;
    else if (field.nullable) out[field.name] = null;
    else if (field.required) out[field.name] = fallback;
    else dropped.add(field.name);
  };
  const { next } = envelope;
  const nextValue =
    page.next === undefined
      ? undefined
      : next?.kind === 'url'
        ? page.nextUrl
        : next?.kind === 'string'
          ? String(page.next)
          : typeof page.next === 'number'
            ? page.next
            : undefined;
  set(next, nextValue, next?.kind === 'integer' ? 0 : '');
  set(envelope.total, page.total, 0);
  set(envelope.hasMore, page.next !== undefined, false);
  return Object.fromEntries(Object.entries(out).filter(([name]) => !dropped.has(name)));
}
