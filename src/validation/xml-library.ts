import type { ApiModel } from '../vocabulary/operation.js';
import { essence, mediaKind } from './media-type.js';

type XmlLibrary = typeof import('fast-xml-parser');

let library: XmlLibrary | undefined;

/**
 * Loads the XML parser and builder, once, for a document that can take or send XML. Most documents
 * are JSON only; for them it is never loaded (importing it was about 40 ms of every start).
 */
export async function loadXmlFor(model: ApiModel): Promise<void> {
  if (mayUseXml(model)) await loadXml();
}

/** Loads the XML parser and builder, whatever the document (for a caller that reads or writes XML itself). */
export async function loadXml(): Promise<void> {
  library ??= await import('fast-xml-parser');
}

/** The XML library; loaded at start for every document that declares a type XML can be read or sent as. */
export function xmlLibrary(): XmlLibrary {
  if (library === undefined) throw new Error('XML was met in a document that declares no XML media type');
  return library;
}

/**
 * Whether a request or an answer of the document can be XML: a declared XML type, or a wildcard
 * (`*\/*`, `application/*`), which a request's Content-Type or an Accept may make XML.
 */
function mayUseXml(model: ApiModel): boolean {
  const xmlish = (type: string): boolean => mediaKind(type) === 'xml' || essence(type).includes('*');
  return model.operations.some(
    (op) =>
      (op.requestBody?.content.some((m) => xmlish(m.mediaType)) ?? false) ||
      op.responses.some((r) => r.content.some((m) => xmlish(m.mediaType))) ||
      op.parameters.some((p) => p.mediaType !== undefined && xmlish(p.mediaType)),
  );
}
