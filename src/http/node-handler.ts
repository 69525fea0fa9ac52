import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sandbox } from '../core/sandbox.js';
import { toSandboxRequest } from './to-sandbox-request.js';
import type { HeldConnections } from './deliver.js';
import { writeResponse } from './write-response.js';

/**
 * A plain `node:http` request listener serving the sandbox: the fast edge of the standalone server.
 * `held` collects the connections a timeout fault keeps open (the standalone server drains them).
 *
 * Answers ready during one turn of the event loop are written together at its end (`setImmediate`),
 * not each the moment it is ready. Under load, the requests parsed in one turn are answered in one
 * burst (measured in docs/performance.md). An answer waits for nothing else: the
 * loop's check phase comes right after the sockets it read.
 */
export function createNodeHandler(sandbox: Sandbox, held?: HeldConnections): (req: IncomingMessage, res: ServerResponse) => void {
  const answer = answerAtTurnEnd();
  return (req, res) => {
    const request = toSandboxRequest(req);
    void sandbox.handle(request).then((response) =>
      answer(() => {
        writeResponse(res, response, request.method, held);
        // An unread body (refused before reading) must not be parsed as the next request.
        if (response.headers.connection === 'close' && !req.complete) req.resume();
      }),
    );
  };
}

/** Queues writes for the end of the event loop's current turn, where they all run in order. */
export function answerAtTurnEnd(): (write: () => void) => void {
  let pending: (() => void)[] = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    for (const write of batch) write();
  };
  return (write) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(write);
  };
}
