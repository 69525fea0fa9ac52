import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { ValidInput } from '../validation/request-validator.js';
import type { Workspaces } from '../workspaces/workspaces.js';

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

const ok = (body: unknown): SandboxResponse => ({ status: 200, headers: {}, body });
const fail = (code: Parameters<typeof errorBody>[0], message: string): SandboxResponse => {
  const error = errorBody(code, message);
  return { status: error.status, headers: {}, body: error };
};
const unknown = (id: string): SandboxResponse =>
  fail('resource_not_found', `No workspace ${id}: it was deleted, evicted, or cleared by a reset`);

/** The workspaces' admin operations: list, reset, delete, and each one's clock. */
export function workspaceHandlers(workspaces: Workspaces): Readonly<Record<string, Handler>> {
  const known = (input: ValidInput): string | undefined => {
    const id = input.path.id as string;
    return workspaces.has(id) ? id : undefined;
  };
  return {
    listWorkspaces: () => Promise.resolve(ok(workspaces.list())),

    resetWorkspace: async (input) => {
      const id = known(input);
      if (id === undefined) return unknown(input.path.id as string);
      await workspaces.reset(id);
      return ok({ id, reset: true, now: workspaces.now(id) });
    },

    deleteWorkspace: async (input) => {
      const id = input.path.id as string;
      const removal = await workspaces.remove(id);
      if (removal === 'unknown') return unknown(id);
      if (removal === 'permanent') {
        return fail('workspace_permanent', `Workspace ${id} is the default one or named by the config: reset it instead`);
      }
      return { status: 204, headers: {} };
    },

    getWorkspaceClock: (input) => {
      const id = known(input);
      return Promise.resolve(id === undefined ? unknown(input.path.id as string) : ok({ now: workspaces.now(id) }));
    },

    advanceWorkspaceClock: (input) => {
      const id = known(input);
      if (id === undefined) return Promise.resolve(unknown(input.path.id as string));
      const { advanceSeconds } = input.body as { readonly advanceSeconds: number };
      return Promise.resolve(ok({ now: workspaces.advance(id, advanceSeconds) }));
    },
  };
}
