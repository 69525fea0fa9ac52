import { jsonText } from '../vocabulary/json-text.js';
import type { MediaSpec } from '../vocabulary/operation.js';
import { essence } from '../validation/media-type.js';

/**
 * Sequential media types (OpenAPI 3.2 §4.3.3, "Sequential Media Types"): a response whose media
 * type gives an `itemSchema` is a sequence of items, modelled as an array of them; this writes the
 * array in the type's own framing. The answer is bounded (the sandbox's streams end), so it is sent
 * whole, with its length.
 */

/** RFC 7464 §2.2: each JSON text in a sequence starts with a record separator and ends with a line feed. */
const RECORD_SEPARATOR = '\u001e';

/** The SSE fields an item's properties become, in the order written (WHATWG HTML §9.2.6; OpenAPI 3.2 §4.3.3.3). */
const SSE_FIELDS = ['event', 'id', 'retry'] as const;

/** How a sequential media type frames its items; undefined for one that is not sequential. */
export type Framing = 'sse' | 'lines' | 'json-seq';

export function framingOf(mediaType: string): Framing | undefined {
  switch (essence(mediaType)) {
    case 'text/event-stream':
      return 'sse';
    case 'application/jsonl':
    case 'application/x-ndjson':
    case 'application/x-jsonlines':
      return 'lines';
    case 'application/json-seq':
      return 'json-seq';
    default:
      return undefined;
  }
}

/** How the chosen type frames an answer's items, when the document declares it with an `itemSchema`. */
export function sequenceOf(declared: readonly MediaSpec[], chosen: string): Framing | undefined {
  const media = declared.find((m) => essence(m.mediaType) === essence(chosen));
  return media?.itemSchemaPointer === undefined ? undefined : framingOf(chosen);
}

/** The items written as the media type frames them: one JSON text a line, RS-framed JSON texts, or SSE events. */
export function encodeItems(framing: Framing, items: readonly unknown[]): string {
  switch (framing) {
    case 'lines':
      return items.map((item) => `${jsonText(item)}\n`).join('');
    case 'json-seq':
      return items.map((item) => `${RECORD_SEPARATOR}${jsonText(item)}\n`).join('');
    case 'sse':
      return items.map(sseEvent).join('');
  }
}

/**
 * One Server-Sent Event. OpenAPI 3.2 models an event as an object whose `event`, `id`, `retry` and
 * `data` properties are the stream's fields (other properties have no field to go in, and are not
 * sent). `data` is text: a string is written as it is, one `data:` line per line of it; any other
 * value (an object a document describes directly) as its JSON text. An item that is not an object
 * is all data. The event ends with a blank line.
 */
function sseEvent(item: unknown): string {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return `${dataLines(item)}\n`;
  const fields = item as Readonly<Record<string, unknown>>;
  let text = '';
  for (const name of SSE_FIELDS) {
    const value = fields[name];
    // A field's value is one line: a line break in it would start another field.
    if (value !== undefined && value !== null) text += `${name}: ${fieldText(value).replace(/[\r\n]+/g, ' ')}\n`;
  }
  if (fields.data !== undefined) text += dataLines(fields.data);
  return `${text}\n`;
}

const fieldText = (value: unknown): string => (typeof value === 'string' ? value : jsonText(value));

function dataLines(data: unknown): string {
  const text = fieldText(data);
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
}
