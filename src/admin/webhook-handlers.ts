import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { Deliveries } from '../webhooks/deliveries.js';
import type { DeliveryStatus } from '../webhooks/records.js';
import type { Subscriptions } from '../webhooks/subscriptions.js';
import type { Workspaces } from '../workspaces/workspaces.js';

/** What the webhook handlers act on. */
export interface WebhookCapability {
  readonly callbackSecret: string;
  readonly subscriptions: Pick<Subscriptions, 'add' | 'list' | 'remove'>;
  readonly deliveries: Pick<Deliveries, 'list' | 'get' | 'replay'>;
}

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

const ok = (body: unknown, status = 200): SandboxResponse => ({ status, headers: {}, body });
const fail = (
  code: Parameters<typeof errorBody>[0],
  message: string,
  details?: { location: string; message: string }[],
): SandboxResponse => {
  const error = errorBody(code, message, details);
  return { status: error.status, headers: {}, body: error };
};

/** Webhook subscriptions (made, listed, removed) and their deliveries (listed, read, replayed). */
export function webhookHandlers(c: {
  readonly webhooks: WebhookCapability;
  readonly workspaces: Pick<Workspaces, 'has'>;
}): Readonly<Record<string, Handler>> {
  const { subscriptions, deliveries } = c.webhooks;
  return {
    createWebhook: (input) => {
      const body = input.body as { event: string; url: string; secret?: string; workspace?: string };
      const workspace = body.workspace ?? DEFAULT_WORKSPACE;
      const problems = c.workspaces.has(workspace) ? [] : [{ location: 'body.workspace', message: 'no workspace has this id' }];
      const made = subscriptions.add({ event: body.event, url: body.url, workspace, secret: body.secret });
      if (!made.ok) problems.unshift(...made.problems.map((p) => ({ location: `body.${p.field}`, message: p.message })));
      if (problems.length > 0 || !made.ok) {
        if (made.ok) subscriptions.remove(made.subscription.id);
        return Promise.resolve(fail('validation_failed', `Invalid subscription: ${problems.map((p) => p.location).join(', ')}`, problems));
      }
      return Promise.resolve(ok({ ...made.subscription, secret: made.secret }, 201));
    },
    listWebhooks: (input) =>
      Promise.resolve(
        ok({ webhooks: subscriptions.list(input.query.workspace as string | undefined), callbackSecret: c.webhooks.callbackSecret }),
      ),
    deleteWebhook: (input) => {
      const id = input.path.id as string;
      return Promise.resolve(subscriptions.remove(id) ? { status: 204, headers: {} } : fail('resource_not_found', `No subscription ${id}`));
    },
    listDeliveries: async (input) => {
      const workspace = input.query.workspace as string | undefined;
      const status = input.query.status as DeliveryStatus | undefined;
      const listed = await deliveries.list({
        ...(workspace === undefined ? {} : { workspace }),
        ...(status === undefined ? {} : { status }),
      });
      return ok({ deliveries: listed });
    },
    getDelivery: async (input) => {
      const id = input.path.id as string;
      const delivery = await deliveries.get(id);
      return delivery ? ok(delivery) : fail('resource_not_found', `No delivery ${id}`);
    },
    replayDelivery: async (input) => {
      const id = input.path.id as string;
      const delivery = await deliveries.replay(id);
      return delivery ? ok(delivery, 202) : fail('resource_not_found', `No delivery ${id}`);
    },
  };
}
