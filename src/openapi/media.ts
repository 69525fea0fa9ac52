import type { HeaderSpec, MediaSpec, OperationSpec, ResponseSpec } from '../vocabulary/operation.js';
import { escapePointerToken, follow, isObject, isSchema } from './json-pointer.js';
import { kindOf } from './value-kind.js';

/** Request bodies and responses, with their media types, read into plain records. */

function readMedia(document: unknown, content: unknown, pointer: string): MediaSpec[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([mediaType, media]) => {
    const m = isObject(media) ? media : {};
    const at = `${pointer}/content/${escapePointerToken(mediaType)}`;
    let example: MediaSpec['example'];
    if (m.example !== undefined) example = { value: m.example };
    else if (isObject(m.examples)) {
      const first = Object.keys(m.examples)[0];
      if (first !== undefined) {
        const ex = follow(document, `${at}/examples/${escapePointerToken(first)}`).value;
        if (isObject(ex) && ex.value !== undefined) example = { value: ex.value };
      }
    }
    const items = isSchema(m.itemSchema) ? { itemSchemaPointer: `${at}/itemSchema` } : {};
    return { mediaType: mediaType.toLowerCase(), schemaPointer: isSchema(m.schema) ? `${at}/schema` : undefined, example, ...items };
  });
}

export function readRequestBody(document: unknown, raw: unknown, pointer: string): OperationSpec['requestBody'] {
  if (raw === undefined) return undefined;
  const { value, pointer: at } = follow(document, pointer);
  if (!isObject(value)) return undefined;
  return { required: value.required === true, content: readMedia(document, value.content, at) };
}

/**
 * An operation that declares no response (OpenAPI 3.1 §4.8.10 makes `responses` optional; 3.0 and
 * Swagger 2.0 documents in the wild leave it out too) promises nothing about its answer. The
 * sandbox answers it `204 No Content`: a success that claims no body it would have to invent
 * (decision pinned in test/http/swagger2.test.ts, "an operation with no responses").
 */
const NO_CONTENT: ResponseSpec = { status: '204', headers: [], content: [] };

export function readResponses(document: unknown, raw: unknown, pointer: string): ResponseSpec[] {
  if (!isObject(raw) || Object.keys(raw).length === 0) return [NO_CONTENT];
  return Object.keys(raw).map((status) => {
    const { value, pointer: at } = follow(document, `${pointer}/${escapePointerToken(status)}`);
    const response = isObject(value) ? value : {};
    const headers: HeaderSpec[] = isObject(response.headers)
      ? Object.keys(response.headers).map((name) => {
          const h = follow(document, `${at}/headers/${escapePointerToken(name)}`);
          const header = isObject(h.value) ? h.value : {};
          const schemaPointer = isSchema(header.schema) ? `${h.pointer}/schema` : undefined;
          return { name: name.toLowerCase(), required: header.required === true, schemaPointer, kind: kindOf(document, schemaPointer) };
        })
      : [];
    return { status: status.toUpperCase(), headers, content: readMedia(document, response.content, at) };
  });
}
