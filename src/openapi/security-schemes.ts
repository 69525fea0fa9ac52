import type { SchemeUse, SecurityRequirement, SecurityScheme } from '../vocabulary/operation.js';
import { escapePointerToken, follow, isObject, type JsonObject } from './json-pointer.js';
import { asWritten, type Locate } from './original-location.js';

/** Security schemes and requirements (OpenAPI 3.1 §4.8.27, §4.8.30), read into plain records. */

/** An HTTP authentication scheme name is a token (RFC 9110 §11.1). */
const AUTH_SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** The flows whose object has a `tokenUrl` (OpenAPI 3.1 §4.8.29: implicit has none). */
const TOKEN_FLOWS = ['clientCredentials', 'password', 'authorizationCode'] as const;

function readOAuth2(name: string, value: JsonObject): SecurityScheme {
  const flows = isObject(value.flows) ? value.flows : {};
  const tokenUrls: string[] = [];
  const scopes = new Set<string>();
  for (const flow of Object.values(flows)) {
    if (isObject(flow) && isObject(flow.scopes)) for (const scope of Object.keys(flow.scopes)) scopes.add(scope);
  }
  for (const kind of TOKEN_FLOWS) {
    const flow = flows[kind];
    if (isObject(flow) && typeof flow.tokenUrl === 'string' && !tokenUrls.includes(flow.tokenUrl)) tokenUrls.push(flow.tokenUrl);
  }
  return { kind: 'oauth2', name, tokenUrls, scopes: [...scopes] };
}

/** One declared scheme. Undefined: a declaration too broken to use (a requirement naming it stops the start). */
function readScheme(name: string, value: JsonObject): SecurityScheme | undefined {
  switch (value.type) {
    case 'http': {
      if (typeof value.scheme !== 'string' || !AUTH_SCHEME.test(value.scheme)) return undefined;
      const scheme = value.scheme.toLowerCase();
      if (scheme === 'bearer') return { kind: 'bearer', name };
      if (scheme === 'basic') return { kind: 'basic', name };
      return { kind: 'http', name, scheme: value.scheme };
    }
    case 'apiKey': {
      if ((value.in !== 'header' && value.in !== 'query' && value.in !== 'cookie') || typeof value.name !== 'string' || value.name === '')
        return undefined;
      // Header names are case-insensitive (RFC 9110 §5.1); the edges give them in lower case.
      return { kind: 'apiKey', name, in: value.in, parameter: value.in === 'header' ? value.name.toLowerCase() : value.name };
    }
    case 'oauth2':
      return readOAuth2(name, value);
    case 'openIdConnect':
      return { kind: 'openIdConnect', name };
    default:
      return { kind: 'unchecked', name, type: typeof value.type === 'string' ? value.type : 'no type' };
  }
}

export function readSecuritySchemes(document: JsonObject): Map<string, SecurityScheme> {
  const schemes = new Map<string, SecurityScheme>();
  const components = isObject(document.components) ? document.components : {};
  const raw = isObject(components.securitySchemes) ? components.securitySchemes : {};
  for (const name of Object.keys(raw)) {
    const { value } = follow(document, `#/components/securitySchemes/${escapePointerToken(name)}`);
    const scheme = isObject(value) ? readScheme(name, value) : undefined;
    if (scheme) schemes.set(name, scheme);
  }
  return schemes;
}

/**
 * What the sandbox serves differently from the document's intent: schemes it cannot check (a
 * mutualTLS client certificate never reaches it: TLS ends before it). Requirements naming them are
 * met without them, so their operations stay reachable; the other schemes of a requirement still count.
 */
export function securityWarnings(schemes: ReadonlyMap<string, SecurityScheme>, locate: Locate = asWritten): string[] {
  return [...schemes.values()].flatMap((scheme) =>
    scheme.kind === 'unchecked'
      ? [
          `${locate(`#/components/securitySchemes/${escapePointerToken(scheme.name)}`)}: security scheme "${scheme.name}" (${scheme.type}) ` +
            'cannot be checked by the sandbox; requirements naming it are met without it',
        ]
      : [],
  );
}

function readUse(name: string, scopes: unknown, where: string): SchemeUse {
  if (scopes === undefined || scopes === null) return { scheme: name, scopes: [] };
  if (!Array.isArray(scopes) || !scopes.every((scope): scope is string => typeof scope === 'string'))
    throw new Error(`${where} requires security scheme "${name}" with scopes that are not a list of strings`);
  return { scheme: name, scopes };
}

export function readSecurity(raw: unknown, schemes: ReadonlyMap<string, SecurityScheme>, where: string): SecurityRequirement[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error(`${where} has a "security" that is not a list`);
  return raw.map((requirement) => {
    if (!isObject(requirement)) throw new Error(`${where} has a security requirement that is not an object`);
    return Object.entries(requirement).map(([name, scopes]) => {
      if (!schemes.has(name))
        throw new Error(
          `${where} requires security scheme "${name}", which components.securitySchemes (securityDefinitions in ` +
            `Swagger 2.0) does not declare (or declares without the fields its type needs)`,
        );
      return readUse(name, scopes, where);
    });
  });
}
