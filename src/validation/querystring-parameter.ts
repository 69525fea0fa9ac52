import type { ParameterSpec } from '../vocabulary/operation.js';
import { isJsonMedia, parseMembers, type Parsed } from './parse-parameter.js';
import { parseQuery, PREFERENCE_QUERY } from './parse-query.js';

const FORM = 'application/x-www-form-urlencoded';

/** Whether the sandbox reads a querystring parameter's media type (others are taken as sent, as other `content` parameters are). */
export const readsQuerystring = (mediaType: string | undefined): boolean =>
  mediaType === undefined || mediaType === FORM || isJsonMedia(mediaType) || mediaType.startsWith('text/');

/**
 * The whole query string as one value (`in: querystring`, OpenAPI 3.2 §4.12.2), in the parameter's
 * `content` media type:
 * - `application/x-www-form-urlencoded`: an object of its names, each read by its property's kind
 *   (`page=2` is the number 2 for an integer `page`), as an exploded form object is; a name given
 *   more than once is a violation unless its property is an array, which takes every value as text;
 * - JSON: the percent-decoded text parsed as JSON (`?%7B%22ids%22%3A%5B1%5D%7D` is `{"ids":[1]}`);
 * - any other type: the percent-decoded text.
 *
 * @param raw the query string as received, without its `?`.
 */
export function parseQuerystring(spec: ParameterSpec, raw: string): Parsed {
  const mediaType = spec.mediaType ?? FORM;
  if (mediaType === FORM) {
    const query = parseQuery(raw);
    if (!query.ok) return { ok: false, message: 'has broken percent-encoding' };
    const pairs: (readonly [string, string])[] = [];
    const lists: Record<string, string[]> = {};
    for (const [name, values] of query.values) {
      if (PREFERENCE_QUERY.test(name)) continue;
      if (spec.propertyKinds?.get(name) === 'array') lists[name] = [...values];
      else for (const value of values) pairs.push([name, value]);
    }
    const members = parseMembers(spec, pairs);
    return members.ok && Object.keys(lists).length > 0 ? { ok: true, value: { ...(members.value as object), ...lists } } : members;
  }
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    return { ok: false, message: 'has broken percent-encoding' };
  }
  if (!isJsonMedia(mediaType)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, message: `must be ${mediaType} text` };
  }
}
