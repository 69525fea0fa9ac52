import type { ServerResponse } from 'node:http';
import type { SandboxResponse } from '../core/types.js';

/** Writes the core's plain answer: JSON body, exact Content-Length, nothing else added. */
export function writeResponse(res: ServerResponse, response: SandboxResponse, method: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const payload = response.body === undefined ? undefined : Buffer.from(JSON.stringify(response.body), 'utf8');
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (payload) {
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', payload.length);
  }
  res.end(method === 'HEAD' ? undefined : payload);
}
