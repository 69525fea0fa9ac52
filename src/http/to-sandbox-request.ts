import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import type { BodyRead, SandboxRequest } from '../core/types.js';

/** Reads a request body up to `limit` bytes; a longer one is refused before it is all read. */
async function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = req.headers['content-length'];
  try {
    const bytes = await getRawBody(req, { limit, length: declared === undefined ? undefined : declared });
    return { kind: 'ok', bytes };
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') return { kind: 'too-large', limit };
    if (type === 'request.size.invalid') return { kind: 'invalid', reason: 'the body is not as long as Content-Length says' };
    if (type === 'request.aborted') return { kind: 'invalid', reason: 'the client stopped sending the body' };
    return { kind: 'invalid', reason: 'the body could not be read' };
  }
}

/** The plain request record the core works on, from Node's request (also Express's). */
export function toSandboxRequest(req: IncomingMessage): SandboxRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const headers: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let read: Promise<BodyRead> | undefined;
  return {
    id: randomUUID(),
    method: (req.method ?? 'GET').toUpperCase(),
    path: q === -1 ? url : url.slice(0, q),
    query: q === -1 ? '' : url.slice(q + 1),
    headers,
    clientAddress: req.socket.remoteAddress ?? 'unknown',
    readBody: (limit) => (read ??= readBody(req, limit)),
  };
}
