import type { ServerResponse } from 'node:http';
import type { SandboxResponse } from '../vocabulary/exchange.js';

/**
 * Writes the core's plain answer: JSON body, exact Content-Length, nothing else added. The headers
 * go out in one `writeHead` with a flat list, and the body as a string, which Node sends in the
 * same write as the head (a Buffer would take a second, vectored one): both measured on the hot path.
 */
export function writeResponse(res: ServerResponse, response: SandboxResponse, method: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const payload = response.body === undefined ? undefined : JSON.stringify(response.body);
  const flat: string[] = [];
  let typed = false;
  for (const name in response.headers) {
    flat.push(name, response.headers[name] as string);
    if (name === 'content-type') typed = true;
  }
  if (payload !== undefined) {
    if (!typed) flat.push('content-type', 'application/json; charset=utf-8');
    flat.push('content-length', String(Buffer.byteLength(payload)));
  }
  res.writeHead(response.status, flat);
  res.end(method === 'HEAD' ? undefined : payload);
}
