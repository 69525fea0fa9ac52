/**
 * The `Cookie` request header read into names and values (RFC 6265 §4.2.1: `a=1; b=2`). Every
 * repetition of a name is kept, in order, as a query's are, so exploded cookie parameters and
 * duplicates can be judged. A value in double quotes loses them (§4.1.1 `cookie-value`).
 * OpenAPI's cookie parameters use the form style (§4.8.12.4), whose values are percent-encoded:
 * valid percent-encoding is decoded; anything else is kept as sent, since RFC 6265 defines none.
 */
export function readCookies(header: string | undefined): ReadonlyMap<string, readonly string[]> {
  const cookies = new Map<string, string[]>();
  if (header === undefined) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (name === '') continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    const list = cookies.get(name);
    if (list) list.push(decoded(value));
    else cookies.set(name, [decoded(value)]);
  }
  return cookies;
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
