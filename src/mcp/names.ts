import { createHash } from 'node:crypto';

/**
 * Tool names every MCP client takes: letters, digits, `_` and `-`, at most 64 characters. The MCP
 * specification allows `.` and 128 characters (SEP-986); some clients' model APIs do not (Claude's
 * tool names are `^[a-zA-Z0-9_-]{1,64}$`), so the narrower set is used.
 */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX = 64;

/** A short digest of an operation's own id: what tells apart two ids that read the same once cleaned. */
const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** An id as tool-name characters: every run of other characters one `_`, no `_` at either end. */
function cleaned(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'operation';
}

/**
 * Tool names for operations, deterministic and unique: `prefix` and the operationId as it is when it
 * is already a valid name; otherwise cleaned (`GET /pets/{petId}` → `GET_pets_petId`). A name too long,
 * or one that two operations (or a name in `taken`) would share, ends in a digest of the operation's
 * own id instead (`…_3f2a9c1b`), whatever the order of the operations.
 */
export function toolNames(ids: readonly string[], prefix: string, taken: ReadonlySet<string> = new Set()): Map<string, string> {
  const wanted = ids.map((id) => `${prefix}${cleaned(id)}`);
  const count = new Map<string, number>();
  for (const name of wanted) count.set(name, (count.get(name) ?? 0) + 1);
  const names = new Map<string, string>();
  ids.forEach((id, i) => {
    const name = wanted[i] ?? '';
    const unique = name.length <= MAX && count.get(name) === 1 && !taken.has(name);
    names.set(id, unique ? name : `${name.slice(0, MAX - 9)}_${digest(id)}`);
  });
  return names;
}
