/**
 * JSON text made once per record, not once per answer. Stored rows are never changed in place (a
 * write stores a new object), so a record's text stays true for as long as the object lives: a
 * record read by a thousand requests is serialised once, and a page's body is its records' texts
 * joined. The texts are held weakly: a record replaced or dropped takes its text with it.
 *
 * Only objects nobody changes may be given here; any other body is serialised by the edge as usual.
 */
const texts = new WeakMap<object, string>();

/** The JSON text of a record that is never changed in place, made now and kept for the next answer. */
export function recordJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/**
 * A body's JSON text, from the texts its records (the body itself, or the items of a list) already
 * have; what has none is serialised now, and not kept.
 */
export function jsonText(body: unknown): string {
  if (typeof body !== 'object' || body === null) return JSON.stringify(body);
  const known = texts.get(body);
  if (known !== undefined) return known;
  if (!Array.isArray(body)) return JSON.stringify(body);
  let text = '[';
  for (let i = 0; i < body.length; i++) {
    const item: unknown = body[i];
    const sep = i === 0 ? '' : ',';
    if (typeof item === 'object' && item !== null) text += sep + (texts.get(item) ?? JSON.stringify(item));
    // As JSON.stringify writes an array: what has no JSON form (undefined, a function, a symbol) is null.
    else text += sep + (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : JSON.stringify(item));
  }
  return `${text}]`;
}
