import { isArray, isObject } from '../openapi/json-pointer.js';
import type { ParameterSpec } from '../vocabulary/operation.js';

/**
 * A tool argument written as its parameter's text, in the parameter's style (OpenAPI 3.1
 * §4.8.12.4, "Style Examples"): the inverse of what src/validation/parameter-styles.ts reads. A
 * string is sent as it is whatever the parameter's type, so a caller can always write the exact text.
 */

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
const enc = (value: unknown): string => encodeURIComponent(text(value));

/** An object's members as `[name, value]` pairs, flattened (`k,v,k2,v2` in the non-exploded styles). */
const members = (value: Readonly<Record<string, unknown>>): [string, unknown][] => Object.entries(value).filter(([, v]) => v !== undefined);

/** `content`-typed parameters (OpenAPI 3.1 §4.8.12.2.2): the value in its media type. */
const inMedia = (parameter: ParameterSpec, value: unknown): string =>
  typeof value !== 'string' && parameter.mediaType?.includes('json') === true ? JSON.stringify(value) : text(value);

/** A path parameter's segment text, percent-encoded (`simple`, `label`, `matrix`). */
export function pathText(parameter: ParameterSpec, value: unknown): string {
  const { name, style, explode } = parameter;
  if (parameter.mediaType !== undefined) return encodeURIComponent(inMedia(parameter, value));
  const items = isArray(value) ? value.map(enc) : undefined;
  const pairs = isObject(value) ? members(value).map(([k, v]) => [encodeURIComponent(k), enc(v)] as const) : undefined;
  const joined = (separator: string): string =>
    items?.join(separator) ?? pairs?.map(([k, v]) => (explode ? `${k}=${v}` : `${k},${v}`)).join(separator) ?? enc(value);
  switch (style) {
    case 'label':
      return `.${joined(explode ? '.' : ',')}`;
    case 'matrix':
      if (items && explode) return items.map((item) => `;${name}=${item}`).join('');
      if (pairs && explode) return pairs.map(([k, v]) => `;${k}=${v}`).join('');
      return `;${name}=${joined(',')}`;
    default:
      return joined(',');
  }
}

/** A query parameter's `name=value` pairs, percent-encoded (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`). */
export function queryPairs(parameter: ParameterSpec, value: unknown): string[] {
  const { style, explode } = parameter;
  const name = encodeURIComponent(parameter.name);
  if (parameter.mediaType !== undefined) return [`${name}=${encodeURIComponent(inMedia(parameter, value))}`];
  if (isArray(value)) {
    if (style === 'form' && explode) return value.map((item) => `${name}=${enc(item)}`);
    const separator = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${value.map(enc).join(separator)}`];
  }
  if (isObject(value)) {
    const pairs = members(value);
    if (style === 'deepObject') return pairs.map(([k, v]) => `${name}%5B${encodeURIComponent(k)}%5D=${enc(v)}`);
    if (explode) return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`);
    return [`${name}=${pairs.map(([k, v]) => `${encodeURIComponent(k)},${enc(v)}`).join(',')}`];
  }
  return [`${name}=${enc(value)}`];
}

/** The whole query string a `querystring` parameter stands for (OpenAPI 3.2 §4.12.2): form members, or the media type's text. */
export function wholeQuery(parameter: ParameterSpec, value: unknown): string {
  if (isObject(value) && (parameter.mediaType === undefined || parameter.mediaType === 'application/x-www-form-urlencoded')) {
    return members(value)
      .map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`)
      .join('&');
  }
  return encodeURIComponent(inMedia(parameter, value));
}

/** A header parameter's field value (`simple`). */
export function headerText(parameter: ParameterSpec, value: unknown): string {
  if (parameter.mediaType !== undefined) return inMedia(parameter, value);
  if (isArray(value)) return value.map(text).join(',');
  if (isObject(value))
    return members(value)
      .map(([k, v]) => (parameter.explode ? `${k}=${text(v)}` : `${k},${text(v)}`))
      .join(',');
  return text(value);
}

/** A cookie parameter's `name=value` (`form`; RFC 6265 §4.2.1), its value percent-encoded. */
export function cookiePair(parameter: ParameterSpec, value: unknown): string {
  const written = parameter.mediaType !== undefined ? inMedia(parameter, value) : isArray(value) ? value.map(text).join(',') : text(value);
  return `${parameter.name}=${encodeURIComponent(written)}`;
}
