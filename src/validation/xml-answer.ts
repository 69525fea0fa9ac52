import { isObject } from '../openapi/json-pointer.js';
import { kindOf } from '../openapi/value-kind.js';
import { properties } from './body-fields.js';
import { itemName, schemaWithXml, type XmlHints } from './xml-body.js';
import { xmlLibrary } from './xml-library.js';

// fast-xml-parser 5 marks its builder deprecated in favour of fast-xml-builder, which it re-exports;
// that package is not a direct dependency of ours, so the re-export is used.
let builder: { build(value: unknown): string } | undefined;
const builderOf = (): NonNullable<typeof builder> =>
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  (builder ??= new (xmlLibrary().XMLBuilder)({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: false }));

const qualified = (xml: XmlHints, name: string): string => (xml.prefix ? `${xml.prefix}:${name}` : name);

/** The namespace declaration an element with these hints carries (`xmlns:p="…"`), if any. */
function namespace(xml: XmlHints): Record<string, string> {
  if (xml.namespace === undefined) return {};
  return { [xml.prefix ? `@_xmlns:${xml.prefix}` : '@_xmlns']: xml.namespace };
}

/** A value as XML text: a date, number or boolean as JSON writes it, null as empty. */
const text = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

function toNode(document: unknown, pointer: string | undefined, value: unknown, depth: number): unknown {
  if (pointer === undefined || depth > 32) return isObject(value) || Array.isArray(value) ? value : text(value);
  const { xml, pointer: at } = schemaWithXml(document, pointer);
  const kind = kindOf(document, at);
  if (Array.isArray(value) && kind === 'array') {
    const element = qualified(schemaWithXml(document, `${at}/items`).xml, itemName(document, at, 'item'));
    return { ...namespace(xml), [element]: value.map((item) => toNode(document, `${at}/items`, item, depth + 1)) };
  }
  if (!isObject(value)) {
    const namespaced = namespace(xml);
    return Object.keys(namespaced).length > 0 ? { ...namespaced, '#text': text(value) } : text(value);
  }
  const out: Record<string, unknown> = { ...namespace(xml) };
  const named = new Set<string>();
  for (const [name, property] of properties(document, at)) {
    named.add(name);
    if (!Object.hasOwn(value, name)) continue;
    const child = value[name];
    const hints = schemaWithXml(document, property);
    const xname = qualified(hints.xml, hints.xml.name ?? name);
    if (hints.xml.attribute) out[`@_${xname}`] = text(child);
    else if (Array.isArray(child) && kindOf(document, hints.pointer) === 'array') {
      const itemHints = schemaWithXml(document, `${hints.pointer}/items`).xml;
      const iname = qualified(itemHints, itemName(document, hints.pointer, hints.xml.name ?? name));
      const items = child.map((item) => toNode(document, `${hints.pointer}/items`, item, depth + 1));
      if (hints.xml.wrapped) out[xname] = { ...namespace(hints.xml), [iname]: items };
      else out[iname] = items;
    } else out[xname] = toNode(document, property, child, depth + 1);
  }
  for (const [name, child] of Object.entries(value)) if (!named.has(name)) out[name] = toNode(document, undefined, child, depth + 1);
  return out;
}

/**
 * A JSON value as the XML document its schema describes (OpenAPI 3.1 §4.8.26): the root element is
 * named by the schema's `xml.name`, else its name under `components/schemas`; properties become
 * elements, or attributes where `xml.attribute`; arrays repeat their item element, inside a wrapper
 * element where `xml.wrapped`; `namespace` and `prefix` qualify names.
 */
export function buildXml(document: unknown, schemaPointer: string | undefined, value: unknown): string {
  const at = schemaPointer ? schemaWithXml(document, schemaPointer) : undefined;
  const componentName = at ? /\/components\/schemas\/([^/]+)$/.exec(at.pointer)?.[1] : undefined;
  const root = at
    ? qualified(at.xml, at.xml.name ?? componentName ?? (kindOf(document, at.pointer) === 'array' ? 'items' : 'root'))
    : 'root';
  return `<?xml version="1.0" encoding="UTF-8"?>${builderOf().build({ [root]: toNode(document, schemaPointer, value, 0) })}`;
}
