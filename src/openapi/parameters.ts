import type { ParameterSpec } from '../vocabulary/operation.js';
import { follow, isObject } from './json-pointer.js';
import { kindOf, schemaAt } from './value-kind.js';

/** Parameters of an operation or path item, read into plain records (OpenAPI 3.1 §4.8.12). */

export const pathNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');

export function readParameters(document: unknown, raw: unknown, pointer: string): ParameterSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((_, index) => {
    const { value, pointer: at } = follow(document, `${pointer}/${index}`);
    if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') {
      throw new Error(`parameter ${index} has no name or location`);
    }
    const location = value.in;
    if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') {
      throw new Error(`parameter ${value.name} has an unknown location "${location}"`);
    }
    if (value.content !== undefined) throw new Error(`parameter ${value.name} uses "content"; only "schema" parameters are supported`);
    const schemaPointer = value.schema === undefined ? undefined : `${at}/schema`;
    const kind = kindOf(document, schemaPointer);
    const style = typeof value.style === 'string' ? value.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    if (!['form', 'simple'].includes(style))
      throw new Error(`parameter ${value.name} uses style "${style}"; form and simple are supported`);
    if (kind === 'object') throw new Error(`parameter ${value.name} is an object; object parameters are not supported`);
    const items = schemaAt(document, schemaPointer)?.items;
    return {
      name: location === 'header' ? value.name.toLowerCase() : value.name,
      in: location,
      required: value.required === true || location === 'path',
      schemaPointer,
      kind,
      itemKind: kind === 'array' && items !== undefined ? kindOf(document, `${schemaPointer}/items`) : 'any',
      style,
      explode: typeof value.explode === 'boolean' ? value.explode : style === 'form',
    };
  });
}

/** Operation-level parameters override path-level ones with the same name and location. */
export function mergeParameters(pathLevel: ParameterSpec[], opLevel: ParameterSpec[]): ParameterSpec[] {
  const key = (p: ParameterSpec) => `${p.in}:${p.name}`;
  const own = new Set(opLevel.map(key));
  return [...pathLevel.filter((p) => !own.has(key(p))), ...opLevel];
}
