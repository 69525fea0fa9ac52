export type QueryParse = { readonly ok: true; readonly values: ReadonlyMap<string, readonly string[]> } | { readonly ok: false };

/**
 * Splits a raw query string into its names and values (`application/x-www-form-urlencoded` rules:
 * `+` is a space). Unlike URLSearchParams it refuses broken percent-encoding instead of passing it
 * through, and it keeps every repetition of a name so duplicates can be judged.
 */
export function parseQuery(raw: string): QueryParse {
  const values = new Map<string, string[]>();
  if (raw === '') return { ok: true, values };
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    } catch {
      return { ok: false };
    }
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return { ok: true, values };
}
