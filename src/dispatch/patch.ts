/** Changes to a record as JSON documents: merge patch (RFC 7396) and JSON Patch (RFC 6902). Pure; inputs never change. */

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 7396 §2: members set to `null` are removed, objects merge recursively, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out = new Map(Object.entries(isPlainObject(target) ? target : {}));
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) out.delete(name);
    else out.set(name, mergePatch(out.get(name), value));
  }
  return Object.fromEntries(out);
}

export type PatchOutcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly at: number; readonly message: string };

type Operation = Readonly<Record<string, unknown>>;

/** RFC 6902 §4: applies every operation in order, or none (§5: an error stops the whole patch). */
export function jsonPatch(target: unknown, operations: readonly unknown[]): PatchOutcome {
  let doc: unknown = structuredClone(target);
  for (const [at, raw] of operations.entries()) {
    const fail = (message: string): PatchOutcome => ({ ok: false, at, message });
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') return fail('is not an operation');
    const op: Operation = raw;
    const path = parsePointer(op.path as string);
    if (path === undefined) return fail('path is not a JSON pointer');
    const from = typeof op.from === 'string' ? parsePointer(op.from) : undefined;
    switch (op.op) {
      case 'add':
      case 'replace': {
        if (!('value' in op)) return fail('has no value');
        if (op.op === 'replace' && get(doc, path) === MISSING) return fail(`${String(op.path)} does not exist`);
        const next = put(doc, path, structuredClone(op.value), op.op === 'add');
        if (next === MISSING) return fail(`${String(op.path)} cannot be reached`);
        doc = next;
        break;
      }
      case 'remove': {
        const next = remove(doc, path);
        if (next === MISSING) return fail(`${String(op.path)} does not exist`);
        doc = next;
        break;
      }
      case 'move':
      case 'copy': {
        if (from === undefined) return fail('from is not a JSON pointer');
        const value = get(doc, from);
        if (value === MISSING) return fail(`${String(op.from)} does not exist`);
        const source = op.op === 'move' ? remove(doc, from) : doc;
        const next = source === MISSING ? MISSING : put(source, path, structuredClone(value), true);
        if (next === MISSING) return fail(`${String(op.path)} cannot be reached`);
        doc = next;
        break;
      }
      case 'test':
        if (JSON.stringify(get(doc, path)) !== JSON.stringify(op.value)) return fail(`${String(op.path)} does not hold the tested value`);
        break;
      default:
        return fail(`op ${JSON.stringify(op.op)} is not one of add, remove, replace, move, copy, test`);
    }
  }
  return { ok: true, value: doc };
}

const MISSING = Symbol('missing');

/** RFC 6901 §3-4: `/a/b~1c` → [a, b/c]; the empty pointer is the whole document. */
function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function get(doc: unknown, path: readonly string[]): unknown {
  let node: unknown = doc;
  for (const token of path) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else if (isPlainObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return MISSING;
  }
  return node;
}

/** A copy of `doc` with `value` at `path` (inserted into arrays when `insert`, RFC 6902 §4.1). */
function put(doc: unknown, path: readonly string[], value: unknown, insert: boolean): unknown {
  if (path.length === 0) return value;
  const [token, ...rest] = path as [string, ...string[]];
  if (Array.isArray(doc)) {
    const index = token === '-' ? doc.length : /^(0|[1-9]\d*)$/.test(token) ? Number(token) : -1;
    if (index < 0 || index > doc.length || (rest.length > 0 && index >= doc.length)) return MISSING;
    const copy = [...(doc as unknown[])];
    if (rest.length > 0) {
      const inner = put(copy[index], rest, value, insert);
      if (inner === MISSING) return MISSING;
      copy[index] = inner;
    } else if (insert) copy.splice(index, 0, value);
    else copy[index] = value;
    return copy;
  }
  if (!isPlainObject(doc)) return MISSING;
  if (rest.length === 0) return { ...doc, [token]: value };
  if (!Object.hasOwn(doc, token)) return MISSING;
  const inner = put(doc[token], rest, value, insert);
  return inner === MISSING ? MISSING : { ...doc, [token]: inner };
}

function remove(doc: unknown, path: readonly string[]): unknown {
  if (path.length === 0 || get(doc, path) === MISSING) return MISSING;
  const parentPath = path.slice(0, -1);
  const token = path.at(-1) as string;
  const parent = get(doc, parentPath);
  const without = Array.isArray(parent)
    ? parent.filter((_, i) => i !== Number(token))
    : Object.fromEntries(Object.entries(parent as Record<string, unknown>).filter(([name]) => name !== token));
  return put(doc, parentPath, without, false);
}
