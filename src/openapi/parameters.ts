import type { ParameterLocation, ParameterSpec, ParameterStyle, ValueKind, ValueShape } from '../vocabulary/operation.js';
import { escapePointerToken, follow, isArray, isObject, isSchema, type JsonObject } from './json-pointer.js';
import { alternativesOf, kindOf, schemaAt } from './value-kind.js';

/** Parameters of an operation or path item, read into plain records (OpenAPI 3.1 §4.8.12). */

export const pathNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');

/** The styles each location allows (OpenAPI 3.1 §4.8.12.4, "Style Values"); the first is the default. */
const STYLES: Readonly<Record<ParameterLocation, readonly [ParameterStyle, ...ParameterStyle[]]>> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
  cookie: ['form'],
  // No style applies: the value is its `content` media type's text (OpenAPI 3.2 §4.12.2).
  querystring: ['form'],
};

// OpenAPI 3.1 §4.8.12.1: header parameters with these names "SHALL be ignored" (HTTP itself and the
// security schemes own them).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function readParameters(document: unknown, raw: unknown, pointer: string): ParameterSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((_, index) => {
    const { value, pointer: at } = follow(document, `${pointer}/${index}`);
    if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') {
      throw new Error(`parameter ${index} has no name or location`);
    }
    const location = value.in;
    if (location !== 'path' && location !== 'query' && location !== 'querystring' && location !== 'header' && location !== 'cookie') {
      throw new Error(`parameter ${value.name} has an unknown location "${location}"`);
    }
    if (location === 'header' && IGNORED_HEADERS.has(value.name.toLowerCase())) return [];
    return [readParameter(document, value, at, location)];
  });
}

function readParameter(document: unknown, value: JsonObject, at: string, location: ParameterLocation): ParameterSpec {
  const name = String(value.name);
  const declared = isObject(value.content) ? Object.keys(value.content)[0] : undefined;
  // A querystring parameter is its `content`; one with only a `schema` is read as a form (its common case).
  const content = declared ?? (location === 'querystring' ? FORM : undefined);
  const schemaPointer =
    declared !== undefined ? contentSchema(document, at, declared) : isSchema(value.schema) ? `${at}/schema` : undefined;
  // A form-encoded query string is read member by member, each by its property's kind, as an exploded form object is.
  const formString = location === 'querystring' && content?.toLowerCase() === FORM;
  const shapes = content !== undefined ? [] : variantsOf(document, schemaPointer);
  const kind = content !== undefined && !formString ? 'any' : kindOf(document, schemaPointer);
  // A style the location does not allow (or one OpenAPI does not define) is read as the location's
  // default, which is what clients generated from the document send.
  const allowed = STYLES[location];
  const style = allowed.find((s) => s === value.style) ?? allowed[0];
  // Branches of one type (`oneOf` of two integer enums) read as that type.
  const shape = shapes.length === 1 ? shapes[0] : undefined;
  const objectKinds = shape ? {} : kind === 'object' ? readPropertyKinds(document, schemaPointer) : {};
  return {
    name: location === 'header' ? name.toLowerCase() : name,
    in: location,
    required: value.required === true || location === 'path',
    schemaPointer,
    kind,
    itemKind:
      kind === 'array' && schemaAt(document, schemaPointer)?.items !== undefined
        ? kindOf(document, `${resolved(document, schemaPointer)}/items`)
        : 'any',
    style,
    explode: typeof value.explode === 'boolean' ? value.explode : style === 'form',
    ...objectKinds,
    ...shape,
    ...(shapes.length > 1 ? { variants: shapes } : {}),
    ...(content !== undefined ? { mediaType: content.toLowerCase() } : {}),
    ...(location === 'query' && value.allowEmptyValue === true ? { allowEmptyValue: true } : {}),
    ...(location === 'query' && value.allowReserved === true ? { allowReserved: true } : {}),
  };
}

const FORM = 'application/x-www-form-urlencoded';

const resolved = (document: unknown, pointer: string | undefined): string =>
  pointer === undefined ? '' : follow(document, pointer).pointer;

function contentSchema(document: unknown, at: string, mediaType: string): string | undefined {
  const pointer = `${at}/content/${escapePointerToken(mediaType)}/schema`;
  return isSchema(follow(document, pointer).value) ? pointer : undefined;
}

/**
 * Per-property kinds of an object parameter, so `R=100` becomes `{ R: 100 }` for an integer `R`.
 * Properties come from the schema and its `allOf` members; undeclared ones take the kind of
 * `additionalProperties` when the schema names it (true or a schema), and are not read otherwise.
 */
function readPropertyKinds(document: unknown, pointer: string | undefined): Pick<ParameterSpec, 'propertyKinds' | 'additionalKind'> {
  const kinds = new Map<string, ValueKind>();
  let additionalKind: ValueKind | undefined;
  const visit = (at: string, depth: number): void => {
    const base = resolved(document, at);
    const schema = schemaAt(document, base);
    if (!schema || depth > 8) return;
    if (isObject(schema.properties)) {
      for (const property of Object.keys(schema.properties)) {
        if (!kinds.has(property)) kinds.set(property, kindOf(document, `${base}/properties/${escapePointerToken(property)}`));
      }
    }
    if (schema.additionalProperties === true) additionalKind ??= 'any';
    else if (isObject(schema.additionalProperties)) additionalKind ??= kindOf(document, `${base}/additionalProperties`);
    if (isArray(schema.allOf)) schema.allOf.forEach((_, i) => visit(`${base}/allOf/${i}`, depth + 1));
  };
  if (pointer !== undefined) visit(pointer, 0);
  // A free-form object (no properties declared, additional ones not forbidden) takes any name.
  const forbidden = schemaAt(document, pointer)?.additionalProperties === false;
  if (kinds.size === 0 && !forbidden) additionalKind ??= 'any';
  return additionalKind === undefined ? { propertyKinds: kinds } : { propertyKinds: kinds, additionalKind };
}

/**
 * The readings a value of the schema at `pointer` allows, one per type among its alternatives
 * (`oneOf`/`anyOf` branches, a list of `type`s), first branch first: empty for a schema of one
 * type, one shape when every branch has the same type.
 */
export function variantsOf(document: unknown, pointer: string | undefined): readonly ValueShape[] {
  const shapes: ValueShape[] = [];
  for (const { pointer: at, type } of alternativesOf(document, pointer)) {
    if (shapes.some((s) => s.kind === type)) continue;
    const items = type === 'array' && schemaAt(document, at)?.items !== undefined ? kindOf(document, `${at}/items`) : 'any';
    shapes.push({ kind: type, itemKind: items, ...(type === 'object' ? readPropertyKinds(document, at) : {}) });
  }
  return shapes;
}

/** Operation-level parameters override path-level ones with the same name and location. */
export function mergeParameters(pathLevel: ParameterSpec[], opLevel: ParameterSpec[]): ParameterSpec[] {
  const key = (p: ParameterSpec) => `${p.in}:${p.name}`;
  const own = new Set(opLevel.map(key));
  return [...pathLevel.filter((p) => !own.has(key(p))), ...opLevel];
}
