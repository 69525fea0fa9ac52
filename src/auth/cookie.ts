/**
 * Reads one cookie from a `Cookie` header (RFC 6265 §4.2.1: `name=value` pairs separated by `; `).
 * Lenient about spaces, as user agents are (§5.4); a value in double quotes is unquoted. The first
 * pair with the name wins (§5.4: the most specific cookie is sent first). Edges join repeated
 * `Cookie` headers with `, ` or `; `, so both separate pairs.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(/[;,]/)) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    const value = pair.slice(equals + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}
