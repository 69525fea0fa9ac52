import { checkAdminToken } from '../admin/admin-token.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import { doorError, MCP_PATH, type DoorSandbox, type DoorSettings } from './endpoint.js';

export { MCP_PATH, type DoorSandbox, type DoorSettings } from './endpoint.js';

/**
 * The MCP endpoint (Streamable HTTP, MCP 2025-11-25 "Transports") as a door of the sandbox:
 * `POST /__sandbox/mcp` with the admin token, or undefined for any other path. The token is checked
 * before anything else, as the admin API checks it; the SDK is loaded on the first request that
 * passes, so a start that never serves MCP never loads it. Stateless: each POST is answered whole,
 * as JSON, so there is no stream to GET and no session to DELETE (405).
 */
export function mcpDoor(sandbox: DoorSandbox, settings: DoorSettings): (req: SandboxRequest) => Promise<SandboxResponse> | undefined {
  let transport: Promise<typeof import('./http-transport.js')> | undefined;
  return (req) => {
    if (req.path !== MCP_PATH) return undefined;
    const label = sandbox.generation().label;
    const refusal = checkAdminToken(req.headers.authorization, settings.adminToken);
    if (refusal !== undefined) return Promise.resolve(doorError(req, label, refusal.error, { 'www-authenticate': refusal.challenge }));
    if (req.method !== 'POST') {
      const error = errorBody(
        'method_not_allowed',
        `${req.method} is not served at ${MCP_PATH}: MCP messages are POSTed (stateless, no stream)`,
      );
      return Promise.resolve(doorError(req, label, error, { allow: 'POST' }));
    }
    transport ??= import('./http-transport.js');
    return transport
      .then(({ answerMcp }) => answerMcp(req, sandbox, settings))
      .catch((error: unknown) => {
        settings.fail(error);
        return doorError(req, label, errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`));
      });
  };
}
