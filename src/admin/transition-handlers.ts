import type { Transitions } from '../transitions/transitions.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { Workspaces } from '../workspaces/workspaces.js';

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

const invalid = (location: string, message: string): SandboxResponse => {
  const error = errorBody('validation_failed', `Invalid transition: ${location}`, [{ location, message }]);
  return { status: error.status, headers: {}, body: error };
};

/** Timed transitions: listed, and forced on one record. */
export function transitionHandlers(c: {
  readonly transitions: Pick<Transitions, 'force' | 'rules'>;
  readonly workspaces: Pick<Workspaces, 'has'>;
}): Readonly<Record<string, Handler>> {
  return {
    listTransitions: () =>
      Promise.resolve({
        status: 200,
        headers: {},
        body: {
          transitions: c.transitions
            .rules()
            .map(({ collection, field, from, to, afterMs }) => ({ collection, field, from, to, afterSeconds: afterMs / 1000 })),
        },
      }),
    transitionRecord: async (input) => {
      const collection = input.path.collection as string;
      const id = input.path.id as string;
      const body = input.body as { to: string; field?: string; workspace?: string };
      const workspace = body.workspace ?? DEFAULT_WORKSPACE;
      if (!c.workspaces.has(workspace)) return invalid('body.workspace', 'no workspace has this id');
      // The field the collection's rules name, when it is one; any field when named.
      const fields = [
        ...new Set(
          c.transitions
            .rules()
            .filter((rule) => rule.collection === collection)
            .map((rule) => rule.field),
        ),
      ];
      const field = body.field ?? (fields.length === 1 ? fields[0] : undefined);
      if (field === undefined) {
        return invalid(
          'body.field',
          fields.length === 0 ? `${collection} declares no transition: name the field` : `must be one of ${fields.join(', ')}`,
        );
      }
      const change = await c.transitions.force(workspace, collection, id, field, body.to);
      if (change === 'not-found') {
        const error = errorBody('resource_not_found', `No record ${collection}/${id} in workspace ${workspace}`);
        return { status: error.status, headers: {}, body: error };
      }
      return {
        status: 200,
        headers: {},
        body: { collection, id, field, workspace, before: change.before ?? null, after: change.after ?? null },
      };
    },
  };
}
