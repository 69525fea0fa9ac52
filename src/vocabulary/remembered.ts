/**
 * A function of a string, its answers remembered: for what the request path works out again and again
 * from a handful of values (media types, Accept headers, keys). At most `limit` answers are kept;
 * when full, they are all forgotten at once, so values an attacker makes up cost what they cost
 * without the memo and hold no more memory than the limit.
 */
export function remembered<V>(limit: number, compute: (key: string) => V): (key: string) => V {
  const known = new Map<string, V>();
  return (key) => {
    const value = known.get(key);
    if (value !== undefined || known.has(key)) return value as V;
    const computed = compute(key);
    if (known.size >= limit) known.clear();
    known.set(key, computed);
    return computed;
  };
}
