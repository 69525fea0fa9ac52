import { follow, isObject, type JsonObject } from '../openapi/json-pointer.js';
import { kindOf } from '../openapi/value-kind.js';
import { properties } from './body-fields.js';
import { parseParameter } from './parse-parameter.js';
import { xmlLibrary } from './xml-library.js';

/** A schema's XML Object (OpenAPI 3.1 §4.8.26): how a value of it is named and placed in XML. */
export interface XmlHints {
  readonly name: string | undefined;
  readonly attribute: boolean;
  readonly wrapped: boolean;
  readonly namespace: string | undefined;
  readonly prefix: string | undefined;
}

export interface SchemaAt {
  readonly schema: JsonObject;
  /** Where it really is, `$ref`s followed. */
  readonly pointer: string;
  readonly xml: XmlHints;
}

/** The schema at `pointer`, `$ref`s followed, with its XML hints. */
export function schemaWithXml(document: unknown, pointer: string): SchemaAt {
  const { value, pointer: at } = follow(document, pointer);
  const schema = isObject(value) ? value : {};
  const xml = isObject(schema.xml) ? schema.xml : {};
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    schema,
    pointer: at,
    xml: {
      name: text(xml.name),
      attribute: xml.attribute === true,
      wrapped: xml.wrapped === true,
      namespace: text(xml.namespace),
      prefix: text(xml.prefix),
    },
  };
}

/** The element name an array's items get: their own `xml.name`, else the property's name (§4.8.26.1). */
export const itemName = (document: unknown, arrayPointer: string, fallback: string): string =>
  schemaWithXml(document, `${arrayPointer}/items`).xml.name ?? fallback;

let parser: InstanceType<ReturnType<typeof xmlLibrary>['XMLParser']> | undefined;
const parserOf = (): NonNullable<typeof parser> =>
  (parser ??= new (xmlLibrary().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
  }));

export type XmlRead = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/**
 * An XML request body as the JSON value its schema describes, so one validator judges XML and JSON
 * alike: elements and attributes are found by the schema's XML Objects (name, attribute, wrapped;
 * namespace prefixes are ignored), and text is typed by the schema (`<count>3</count>` is 3).
 * A document type declaration is refused: API payloads need none, and it is how entity-expansion
 * attacks arrive.
 */
export function readXml(document: unknown, schemaPointer: string | undefined, text: string): XmlRead {
  if (/<!DOCTYPE/i.test(text)) return { ok: false, message: 'XML with a document type declaration is not accepted' };
  // Deprecated in favour of fast-xml-validator, which is not a dependency of ours (see xml-answer.ts).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const valid = xmlLibrary().XMLValidator.validate(text);
  if (valid !== true) return { ok: false, message: `The request body is not well-formed XML (line ${valid.err.line})` };
  const parsed: unknown = parserOf().parse(text);
  const rootKey = isObject(parsed) ? Object.keys(parsed).find((k) => !k.startsWith('?')) : undefined;
  if (rootKey === undefined || !isObject(parsed)) return { ok: false, message: 'The request body has no XML root element' };
  const root = parsed[rootKey];
  return { ok: true, value: schemaPointer ? fromXml(document, schemaPointer, root, 0) : root };
}

const list = (node: unknown): unknown[] => (node === undefined ? [] : Array.isArray(node) ? (node as unknown[]) : [node]);

function fromXml(document: unknown, pointer: string, node: unknown, depth: number): unknown {
  const { schema, pointer: at } = schemaWithXml(document, pointer);
  const kind = kindOf(document, at);
  if (depth > 32) return node;
  if (kind === 'array') {
    const inner = isObject(node) ? Object.entries(node).find(([k]) => !k.startsWith('@_') && k !== '#text')?.[1] : undefined;
    return list(inner).map((item) => fromXml(document, `${at}/items`, item, depth + 1));
  }
  if (kind === 'object' || isObject(schema.properties)) {
    const element = isObject(node) ? node : {};
    const used = new Set<string>();
    const entries: [string, unknown][] = [];
    for (const [name, property] of properties(document, at)) {
      const { xml, pointer: p } = schemaWithXml(document, property);
      const xname = xml.name ?? name;
      if (xml.attribute) {
        used.add(`@_${xname}`);
        if (element[`@_${xname}`] !== undefined) entries.push([name, scalar(document, p, element[`@_${xname}`])]);
        continue;
      }
      if (kindOf(document, p) === 'array') {
        const iname = itemName(document, p, xname);
        const holder = xml.wrapped ? element[xname] : element;
        used.add(xml.wrapped ? xname : iname);
        const items = isObject(holder) ? holder[iname] : undefined;
        if (items !== undefined || (xml.wrapped && holder !== undefined)) {
          entries.push([name, list(items).map((item) => fromXml(document, `${p}/items`, item, depth + 1))]);
        }
        continue;
      }
      used.add(xname);
      if (element[xname] !== undefined) entries.push([name, fromXml(document, p, element[xname], depth + 1)]);
    }
    // Elements the schema does not name are kept, so `additionalProperties: false` sees them.
    for (const [key, value] of Object.entries(element))
      if (!used.has(key) && !key.startsWith('@_') && key !== '#text') entries.push([key, value]);
    return Object.fromEntries(entries);
  }
  return scalar(document, at, node);
}

/** An element's or attribute's text, typed by its schema; text that is not of the type stays text, for the validator to name. */
function scalar(document: unknown, pointer: string, node: unknown): unknown {
  const text = isObject(node) ? node['#text'] : node;
  const value = typeof text === 'string' ? text : '';
  const kind = kindOf(document, pointer);
  if (kind !== 'integer' && kind !== 'number' && kind !== 'boolean') return value;
  const spec = {
    name: '',
    in: 'query',
    required: false,
    schemaPointer: pointer,
    kind,
    itemKind: 'any',
    style: 'form',
    explode: true,
  } as const;
  const parsed = parseParameter(spec, [value]);
  return parsed.ok ? parsed.value : value;
}
