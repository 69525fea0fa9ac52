import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { SnapshotListing } from '../workspaces/snapshot-book.js';
import type { SnapshotDocument, SnapshotProblem } from '../workspaces/snapshot-document.js';

/** What the admin API does with a workspace's named snapshots (docs/snapshots.md); the sandbox's core provides it. */
export interface SnapshotCapability {
  list(workspace: string): SnapshotListing[];
  /** Takes one now under `name`; `exists` (nothing taken) when the name is held and `replace` is not set. */
  take(workspace: string, name: string, replace: boolean): Promise<{ readonly kind: 'created' | 'replaced' | 'exists' }>;
  /** The exported document. */
  get(workspace: string, name: string): SnapshotDocument | undefined;
  /** Holds a document read from a file under `name`, once checked; its problems, each located, when it does not read. */
  import(
    workspace: string,
    name: string,
    value: unknown,
  ): { readonly kind: 'created' | 'replaced' } | { readonly kind: 'invalid'; readonly problems: readonly SnapshotProblem[] };
  delete(workspace: string, name: string): boolean;
  /** Puts the workspace back as the snapshot holds it; false when there is none by that name. */
  restore(workspace: string, name: string): Promise<boolean>;
}

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

const answer = (status: number, body?: unknown): SandboxResponse => ({ status, headers: {}, ...(body === undefined ? {} : { body }) });
const fail = (code: Parameters<typeof errorBody>[0], message: string, details?: Parameters<typeof errorBody>[2]): SandboxResponse => {
  const error = errorBody(code, message, details);
  return { status: error.status, headers: {}, body: error };
};

/** The named snapshots' admin operations, in any workspace the admin API knows (the default one too). */
export function snapshotHandlers(c: {
  readonly snapshots: SnapshotCapability;
  readonly workspaces: { has(id: string): boolean; now(id: string): number };
}): Readonly<Record<string, Handler>> {
  const { snapshots } = c;
  /** The workspace and the snapshot's name from the path, or the answer when there is no such workspace. */
  const target = (input: ValidInput): { readonly id: string; readonly name: string } | SandboxResponse => {
    const id = input.path.id as string;
    if (!c.workspaces.has(id)) return fail('resource_not_found', `No workspace ${id}: it was deleted, evicted, or cleared by a reset`);
    return { id, name: (input.path.name as string | undefined) ?? '' };
  };
  const missing = (id: string, name: string): SandboxResponse =>
    fail('resource_not_found', `No snapshot ${name} in workspace ${id}: take one (POST) or import one (PUT) first`);
  const listed = (id: string, name: string): SnapshotListing | undefined => snapshots.list(id).find((s) => s.name === name);
  const run =
    (work: (id: string, name: string, input: ValidInput) => SandboxResponse | Promise<SandboxResponse>): Handler =>
    async (input) => {
      const found = target(input);
      return 'status' in found ? found : work(found.id, found.name, input);
    };

  return {
    listSnapshots: run((id) => answer(200, { workspace: id, snapshots: snapshots.list(id) })),

    takeSnapshot: run(async (id, _name, input) => {
      const { name, replace } = input.body as { readonly name: string; readonly replace?: boolean };
      const taken = await snapshots.take(id, name, replace === true);
      if (taken.kind === 'exists') {
        return fail('resource_exists', `Workspace ${id} has a snapshot named ${name}: send "replace": true to take it again`);
      }
      return answer(taken.kind === 'created' ? 201 : 200, listed(id, name));
    }),

    getSnapshot: run((id, name) => {
      const document = snapshots.get(id, name);
      return document === undefined ? missing(id, name) : answer(200, document);
    }),

    importSnapshot: run((id, name, input) => {
      const imported = snapshots.import(id, name, input.body);
      if (imported.kind === 'invalid') {
        const locations = [...new Set(imported.problems.map((p) => p.location))];
        return fail('validation_failed', `Invalid snapshot: ${locations.join(', ')}`, imported.problems);
      }
      return answer(imported.kind === 'created' ? 201 : 200, listed(id, name));
    }),

    deleteSnapshot: run((id, name) => (snapshots.delete(id, name) ? answer(204) : missing(id, name))),

    restoreSnapshot: run(async (id, name) =>
      (await snapshots.restore(id, name))
        ? answer(200, { workspace: id, name, restored: true, now: c.workspaces.now(id) })
        : missing(id, name),
    ),
  };
}
