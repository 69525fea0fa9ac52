import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { PlainAnswer, PlainRequest, SandboxTarget, ServedApi } from './target.js';

/** What an in-process target needs of a sandbox (core's `Sandbox` has it): its front door and its current API. */
export interface HandlingSandbox {
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  generation(): ServedApi;
}

/** A media type whose bytes are text (JSON, XML, forms, `text/*`). */
export const isTextual = (contentType: string | undefined): boolean =>
  contentType === undefined || /^text\/|[/+](?:json|xml)\b|^application\/(?:x-www-form-urlencoded|javascript)/i.test(contentType);

/**
 * Tool calls as in-process requests: `handle` answers them as it answers the edge's, from
 * `clientAddress` (the MCP client's, over HTTP; loopback over stdio). A delay a rule adds is waited
 * out, as the edge would; a fault on the wire is reported instead of an answer.
 */
export function inProcessTarget(sandbox: HandlingSandbox, adminToken: string, clientAddress: string, origin?: string): SandboxTarget {
  return {
    adminToken,
    origin,
    api: () => Promise.resolve(sandbox.generation()),
    async send(request: PlainRequest): Promise<PlainAnswer> {
      const bytes = Buffer.from(request.body ?? '', 'utf8');
      const req: SandboxRequest = {
        id: randomUUID(),
        method: request.method,
        path: request.path,
        query: request.query,
        headers: request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(bytes.length) },
        clientAddress,
        readBody: (limit) => Promise.resolve(bytes.length > limit ? { kind: 'too-large', limit } : { kind: 'ok', bytes }),
      };
      const response = await sandbox.handle(req);
      const { delivery } = response;
      if (delivery !== undefined && delivery.delayMs > 0) await delay(delivery.delayMs);
      return {
        ...answerText(response),
        status: response.status,
        headers: response.headers,
        ...(delivery?.fault && { fault: delivery.fault.kind }),
      };
    },
  };
}

function answerText(response: SandboxResponse): Pick<PlainAnswer, 'text' | 'base64'> {
  const { encoded, body } = response;
  if (typeof encoded === 'string') return { text: encoded };
  if (encoded !== undefined) {
    const bytes = Buffer.from(encoded);
    return isTextual(response.headers['content-type'])
      ? { text: bytes.toString('utf8') }
      : { text: bytes.toString('base64'), base64: true };
  }
  return { text: body === undefined ? undefined : JSON.stringify(body) };
}
