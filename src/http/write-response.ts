import type { ServerResponse } from 'node:http';
import type { SandboxResponse } from '../vocabulary/exchange.js';

/**
 * Writes the core's plain answer, whose headers are complete (`pipeline/answer-headers.ts`): the
 * body (JSON, or as encoded for its media type) and its exact Content-Length, nothing else added. The headers
 * go out in one `writeHead` with a flat list, and the body as a string, which Node sends in the
 * same write as the head (a Buffer would take a second, vectored one): both measured on the hot path.
 */
export function writeResponse(res: ServerResponse, response: SandboxResponse, method: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A body encoded for its media type (XML, text, bytes) goes as it is; any other is JSON.
  const payload = response.encoded ?? (response.body === undefined ? undefined : JSON.stringify(response.body));
  const flat: string[] = [];
  for (const name in response.headers) flat.push(name, response.headers[name] as string);
  if (payload !== undefined) flat.push('content-length', String(Buffer.byteLength(payload)));
  res.writeHead(response.status, flat);
  res.end(method === 'HEAD' ? undefined : payload);
}
