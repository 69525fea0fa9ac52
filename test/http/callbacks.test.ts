import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { satisfies } from '../../src/schemas/document-schemas.js';
import { ADMIN_TOKEN, sandboxForTest } from '../support/sandbox.js';
import { always, receiverForTest } from '../support/webhook-receiver.js';

/**
 * OpenAPI callbacks sent by the sandbox (issue 36 §1), on a document whose subscribe operation calls
 * the client back at the URL its request named: the URL from runtime expressions, the body from the
 * callback's schema filled from the record and the request, the callback's declared statuses deciding
 * success, retried on the clock. Real loopback receivers; nothing sleeps.
 */

const SPEC = 'test/documents/callback-subscriptions.yaml';
const CALLBACK_BODY = `#/paths/~1subscriptions/post/callbacks/onEvent/{$request.body#~1callbackUrl}?subscription={$response.body#~1id}/post/requestBody/content/application~1json/schema`;
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function started(): Promise<{ sandbox: Sandbox; app: ReturnType<typeof createNodeHandler> }> {
  const sandbox = await sandboxForTest({ spec: SPEC, fixtures: null });
  return { sandbox, app: createNodeHandler(sandbox) };
}

describe('OpenAPI callbacks', () => {
  it('calls back the URL the request named, with a body of the callback schema filled from the record and the request', async () => {
    const { sandbox, app } = await started();
    const hooks = await receiverForTest(always(200, 'ok'));
    const subscribed = await request(app).post('/v1/subscriptions').send({ callbackUrl: hooks.url, event: 'ping' });
    expect(subscribed.status).toBe(201);
    const { id } = subscribed.body as { id: number };
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();

    const [call] = hooks.received;
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe(`/hook?subscription=${id}`);
    const body = JSON.parse(call!.body) as { id: number; event: string; message: string };
    expect(body).toMatchObject({ id, event: 'ping' });
    expect(satisfies(sandbox.model.document, CALLBACK_BODY, body)).toBe(true);

    // Signed like a webhook, with the callback secret the admin API shows.
    const { callbackSecret } = (await request(app).get('/__sandbox/webhooks').set(admin)).body as { callbackSecret: string };
    expect(new Webhook(callbackSecret).verify(call!.body, call!.headers)).toEqual(body);
    const [delivery] = (
      (await request(app).get('/__sandbox/webhooks/deliveries').set(admin)).body as {
        deliveries: { event: string; status: string; id: string }[];
      }
    ).deliveries;
    expect(delivery).toMatchObject({ event: 'callback.onEvent', status: 'delivered', id: call!.headers['webhook-id'] });
  });

  it('counts only the statuses the callback declares: a 204 where it declares 200 is retried on the clock', async () => {
    const { sandbox, app } = await started();
    const hooks = await receiverForTest((n, _request, response) => {
      response.writeHead(n === 1 ? 204 : 200);
      response.end();
    });
    await request(app).post('/v1/subscriptions').send({ callbackUrl: hooks.url, event: 'ping' });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    const listed = async () =>
      (
        (await request(app).get('/__sandbox/webhooks/deliveries').set(admin)).body as {
          deliveries: { status: string; attempts: { error?: string }[] }[];
        }
      ).deliveries[0]!;
    expect(await listed()).toMatchObject({
      status: 'pending',
      attempts: [{ error: 'the receiver answered 204, which the callback does not declare' }],
    });
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 5 });
    await hooks.taken(2);
    await sandbox.webhooks.deliveries.idle();
    expect((await listed()).status).toBe('delivered');
  });

  it('never calls back where the allow-list says no: the delivery is refused, never attempted', async () => {
    const { sandbox, app } = await started();
    await request(app).post('/v1/subscriptions').send({ callbackUrl: 'http://10.1.2.3/hook', event: 'ping' });
    await sandbox.webhooks.deliveries.idle();
    const [refused] = ((await request(app).get('/__sandbox/webhooks/deliveries').set(admin)).body as { deliveries: { status: string }[] })
      .deliveries;
    expect(refused?.status).toBe('refused');
  });
});
