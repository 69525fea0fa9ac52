import { readFile } from 'node:fs/promises';
import type { SnapshotCapability } from '../admin/snapshot-handlers.js';
import type { SnapshotBook } from '../workspaces/snapshot-book.js';
import {
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  snapshotProblems,
  type PartCheck,
  type SnapshotDocument,
} from '../workspaces/snapshot-document.js';
import type { StatePart, WorkspaceCapture, WorkspaceScope } from './state-parts.js';

interface Capturing {
  readonly name: string;
  readonly perWorkspace: WorkspaceCapture;
}

/**
 * A workspace's snapshots over the state parts: taking one asks every part that keeps something per
 * workspace (`perWorkspace`) for what it holds of it, in the list's order; restoring hands each its
 * value back in the same order. Nothing else is touched.
 */
export function workspaceSnapshots(
  parts: readonly StatePart[],
  book: SnapshotBook,
  workspace: { readonly scope: (id: string) => WorkspaceScope; readonly now: (id: string) => number },
): SnapshotCapability {
  const capturing = parts.flatMap((part): Capturing[] => (part.perWorkspace ? [{ name: part.name, perWorkspace: part.perWorkspace }] : []));
  const checks: Record<string, PartCheck> = Object.fromEntries(capturing.map((part) => [part.name, part.perWorkspace.check]));

  const capture = async (id: string, name: string): Promise<SnapshotDocument> => {
    const scope = workspace.scope(id);
    const takenAt = new Date(workspace.now(id)).toISOString();
    const captured: Record<string, unknown> = {};
    for (const part of capturing) captured[part.name] = await part.perWorkspace.capture(scope);
    return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, name, workspace: id, takenAt, parts: captured };
  };

  return {
    list: (id) => book.list(id),
    take: async (id, name, replace) => {
      if (!replace && book.get(id, name) !== undefined) return { kind: 'exists' };
      return { kind: book.put(id, await capture(id, name)) };
    },
    get: (id, name) => book.get(id, name),
    import: (id, name, value) => {
      const problems = snapshotProblems(value, checks);
      if (problems.length > 0) return { kind: 'invalid', problems };
      return { kind: book.put(id, { ...(value as SnapshotDocument), name }) };
    },
    delete: (id, name) => book.delete(id, name),
    restore: async (id, name) => {
      const document = book.get(id, name);
      if (document === undefined) return false;
      const scope = workspace.scope(id);
      const takenAt = Date.parse(document.takenAt);
      for (const part of capturing) await part.perWorkspace.restore(scope, document.parts[part.name], takenAt);
      return true;
    },
  };
}

/**
 * `--snapshot FILE` at start: the file's document held in the workspace it names (under its own
 * name, and again after every reset), then restored there, before the sandbox answers. A file that
 * does not read, or names a workspace that does not exist, stops the start, naming the file.
 */
export async function restoreAtStart(
  file: string,
  snapshots: SnapshotCapability,
  book: Pick<SnapshotBook, 'putInitial'>,
  exists: (workspace: string) => boolean,
): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`the snapshot file ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const workspace = (value as { workspace?: unknown } | null)?.workspace;
  const name = (value as { name?: unknown } | null)?.name;
  if (typeof workspace !== 'string' || !exists(workspace)) {
    throw new Error(
      `the snapshot file ${file} names workspace ${JSON.stringify(workspace)}, which does not exist at start: ` +
        'take it in the default workspace, or in one a configured key names',
    );
  }
  if (typeof name !== 'string' || name === '') throw new Error(`the snapshot file ${file} does not read (body.name: must be a name)`);
  const imported = snapshots.import(workspace, name, value);
  if (imported.kind === 'invalid') {
    const first = imported.problems[0];
    throw new Error(`the snapshot file ${file} does not read (${first?.location}: ${first?.message})`);
  }
  const document = snapshots.get(workspace, name);
  if (document) book.putInitial(workspace, document);
  await snapshots.restore(workspace, name);
}
