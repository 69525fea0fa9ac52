import type { SecurityScheme } from '../vocabulary/operation.js';

/** The query parameters that carry an API key (apiKey `in: query`): never kept in the journal or the log. */
export function credentialQueryNames(schemes: ReadonlyMap<string, SecurityScheme>): ReadonlySet<string> {
  const names = new Set<string>();
  for (const scheme of schemes.values()) if (scheme.kind === 'apiKey' && scheme.in === 'query') names.add(scheme.parameter);
  return names;
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
};

/** The raw query with the values of `names` replaced by `REDACTED`; the rest as received. */
export function redactQuery(query: string, names: ReadonlySet<string>): string {
  if (names.size === 0 || query === '') return query;
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return names.has(decoded(name)) ? `${name}=REDACTED` : pair;
    })
    .join('&');
}
