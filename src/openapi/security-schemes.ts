import type { SecurityRequirement, SecurityScheme } from '../vocabulary/operation.js';
import { escapePointerToken, follow, isObject, type JsonObject } from './json-pointer.js';

/** Security schemes and requirements (OpenAPI 3.1 §4.8.27, §4.8.30), read into plain records. */

export function readSecuritySchemes(document: JsonObject): Map<string, SecurityScheme> {
  const schemes = new Map<string, SecurityScheme>();
  const components = isObject(document.components) ? document.components : {};
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {};
  for (const name of Object.keys(raw)) {
    const { value } = follow(document, `#/components/securitySchemes/${escapePointerToken(name)}`);
    if (!isObject(value)) continue;
    if (value.type === 'http' && String(value.scheme).toLowerCase() === 'bearer') schemes.set(name, { kind: 'bearer', name });
    else if (value.type === 'apiKey' && (value.in === 'header' || value.in === 'query') && typeof value.name === 'string') {
      schemes.set(name, { kind: 'apiKey', name, in: value.in, parameter: value.in === 'header' ? value.name.toLowerCase() : value.name });
    }
  }
  return schemes;
}

export function readSecurity(raw: unknown, schemes: ReadonlyMap<string, SecurityScheme>, where: string): SecurityRequirement[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error(`${where} has a "security" that is not a list`);
  return raw.map((requirement) => {
    const names = isObject(requirement) ? Object.keys(requirement) : [];
    for (const name of names) {
      if (!schemes.has(name))
        throw new Error(
          `security scheme "${name}" is not declared, or is of a kind the sandbox does not support (http bearer, apiKey in header or query)`,
        );
    }
    return names;
  });
}
