import { follow, isObject } from './json-pointer.js';

/** Names in `required` of the schema at `pointer`, through `$ref` and `allOf`. */
export function requiredOf(document: unknown, pointer: string, depth = 0): Set<string> {
  const { value, pointer: at } = follow(document, pointer);
  const names = new Set<string>();
  if (!isObject(value) || depth > 8) return names;
  if (Array.isArray(value.required)) for (const name of value.required) if (typeof name === 'string') names.add(name);
  if (Array.isArray(value.allOf))
    value.allOf.forEach((_, i) => requiredOf(document, `${at}/allOf/${i}`, depth + 1).forEach((n) => names.add(n)));
  return names;
}
