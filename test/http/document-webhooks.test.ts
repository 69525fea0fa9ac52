import request from 'supertest';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import type { StartupProgress } from '../../src/core/startup-progress.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { satisfies } from '../../src/schemas/document-schemas.js';
import { ADMIN_TOKEN, testConfig } from '../support/sandbox.js';
import { always, receiverForTest, type Receiver } from '../support/webhook-receiver.js';

/**
 * A document's own webhooks (OpenAPI 3.1 `webhooks`) as subscription events (issue 36 §2): tied to
 * store changes by schema and name (`newPet`: its body is the Pet record, its name says "new"), or
 * by `x-understudy-event`; the delivery's body is the webhook's schema, filled from the record.
 */

const SPEC = 'test/documents/pet-webhooks.yaml';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function started(): Promise<{ sandbox: Sandbox; app: ReturnType<typeof createNodeHandler>; warnings: string[]; hooks: Receiver }> {
  const warnings: string[] = [];
  const onProgress = (event: StartupProgress): void => {
    if (event.phase === 'warning') warnings.push(event.message);
  };
  const sandbox = await createSandbox(testConfig({ spec: SPEC, fixtures: null }), { onProgress });
  onTestFinished(() => sandbox.close());
  const hooks = await receiverForTest(always(200, 'ok'));
  return { sandbox, app: createNodeHandler(sandbox), warnings, hooks };
}

describe("a document's own webhooks", () => {
  it('sends newPet, tied by its schema and name, with the record as its body', async () => {
    const { sandbox, app, hooks } = await started();
    expect((await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'newPet', url: hooks.url })).status).toBe(201);
    const created = await request(app).post('/v1/pets').send({ name: 'Rex', status: 'available' });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    const body = JSON.parse(hooks.received[0]!.body) as unknown;
    expect(body).toEqual(created.body);
    expect(satisfies(sandbox.model.document, '#/components/schemas/Pet', body)).toBe(true);
  });

  it('sends petSold for the change its x-understudy-event names, its body of its own schema filled from the record', async () => {
    const { sandbox, app, hooks } = await started();
    await request(app).post('/__sandbox/webhooks').set(admin).send({ event: 'petSold', url: hooks.url });
    await request(app).post('/v1/pets').send({ name: 'Rex', status: 'available' });
    const sold = await request(app).post('/v1/pets').send({ name: 'Tom', status: 'sold' });
    await hooks.taken(1);
    await sandbox.webhooks.deliveries.idle();
    expect(hooks.received).toHaveLength(1);
    const body = JSON.parse(hooks.received[0]!.body) as { id: number; name: string; soldAt: string };
    expect(body).toMatchObject({ id: (sold.body as { id: number }).id, name: 'Tom' });
    expect(body.soldAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('warns at start about a webhook it cannot tie, and refuses a subscription to it', async () => {
    const { app, warnings } = await started();
    expect(warnings.filter((w) => w.includes('inventoryReport'))).toEqual([
      expect.stringContaining('webhook inventoryReport is tied to no store change') as unknown,
    ]);
    const refused = await request(app)
      .post('/__sandbox/webhooks')
      .set(admin)
      .send({ event: 'inventoryReport', url: 'http://127.0.0.1:9/h' });
    expect(refused.status).toBe(400);
    expect((refused.body as { details: { location: string }[] }).details.map((d) => d.location)).toEqual(['body.event']);
  });
});
