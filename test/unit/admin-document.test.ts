import { readFile } from 'node:fs/promises';
import { load as parseYaml } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const DOCUMENT = new URL('../../openapi/admin.yaml', import.meta.url);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * The admin API's handlers are bound by operationId: the document must name exactly the operations
 * the code serves, at the same method and path, or a handler silently goes unbound.
 */
const EXPECTED = [
  'POST /reset resetSandbox',
  'GET /status getStatus',
  'GET /model getModel',
  'GET /document getDocument',
  'POST /reload reloadSandbox',
  'GET /clock getClock',
  'POST /clock advanceClock',
  'DELETE /clock resetClock',
  'GET /keys listKeys',
  'POST /keys issueKey',
  'GET /keys/{key} inspectKey',
  'POST /keys/{key}/reset resetKey',
  'POST /webhooks createWebhook',
  'GET /webhooks listWebhooks',
  'DELETE /webhooks/{id} deleteWebhook',
  'GET /webhooks/deliveries listDeliveries',
  'GET /webhooks/deliveries/{id} getDelivery',
  'POST /webhooks/deliveries/{id}/replay replayDelivery',
  'GET /transitions listTransitions',
  'POST /records/{collection}/{id}/transition transitionRecord',
  'GET /metrics getMetrics',
  'GET /requests listRequests',
  'DELETE /requests clearRequests',
  'POST /requests/count countRequests',
  'POST /requests/find findRequests',
  'POST /requests/verify verifyRequests',
  'GET /requests/stream streamRequests',
  'GET /requests.har exportHar',
  'GET /requests/{id} getRequest',
  'GET /report getReport',
  'POST /rules createRule',
  'GET /rules listRules',
  'DELETE /rules clearRules',
  'GET /rules/{id} getRule',
  'DELETE /rules/{id} deleteRule',
  'GET /workspaces listWorkspaces',
  'DELETE /workspaces/{id} deleteWorkspace',
  'POST /workspaces/{id}/reset resetWorkspace',
  'GET /workspaces/{id}/clock getWorkspaceClock',
  'POST /workspaces/{id}/clock advanceWorkspaceClock',
  'GET /workspaces/{id}/snapshots listSnapshots',
  'POST /workspaces/{id}/snapshots takeSnapshot',
  'GET /workspaces/{id}/snapshots/{name} getSnapshot',
  'PUT /workspaces/{id}/snapshots/{name} importSnapshot',
  'DELETE /workspaces/{id}/snapshots/{name} deleteSnapshot',
  'POST /workspaces/{id}/snapshots/{name}/restore restoreSnapshot',
];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

async function loadAdminDocument(): Promise<Json> {
  const document: unknown = parseYaml(await readFile(DOCUMENT, 'utf8'));
  if (!isObject(document)) throw new Error('openapi/admin.yaml is not a YAML mapping');
  return document;
}

describe('openapi/admin.yaml', () => {
  it('declares exactly the admin operations the code binds, by method, path and operationId', async () => {
    const document = await loadAdminDocument();
    const paths = isObject(document.paths) ? document.paths : {};
    const operations: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const operationId = isObject(operation) ? operation.operationId : undefined;
        operations.push(`${method.toUpperCase()} ${path} ${String(operationId)}`);
      }
    }
    expect(operations.sort()).toEqual([...EXPECTED].sort());
  });

  it('is served under /__sandbox, guarded by the admin token', async () => {
    const document = await loadAdminDocument();
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/__sandbox' })]);
    expect(document.security).toEqual([{ adminToken: [] }]);
  });
});
