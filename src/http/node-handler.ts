import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sandbox } from '../core/sandbox.js';
import { toSandboxRequest } from './to-sandbox-request.js';
import type { HeldConnections } from './deliver.js';
import { writeResponse } from './write-response.js';

/**
 * A plain `node:http` request listener serving the sandbox: the fast edge of the standalone server.
 * `held` collects the connections a timeout fault keeps open (the standalone server drains them).
 */
export function createNodeHandler(sandbox: Sandbox, held?: HeldConnections): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const request = toSandboxRequest(req);
    void sandbox.handle(request).then((response) => {
      writeResponse(res, response, request.method, held);
      // An unread body (refused before reading) must not be parsed as the next request.
      if (response.headers.connection === 'close' && !req.complete) req.resume();
    });
  };
}
