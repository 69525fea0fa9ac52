import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { answerHeaders } from '../answers/answer-headers.js';
import { ERRORS, errorBody, type ErrorCode } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import { doorError, MCP_PATH, type DoorSandbox, type DoorSettings } from './endpoint.js';
import { inProcessTarget } from './in-process.js';
import { adminTools, createMcpServer } from './server.js';

/** Largest MCP message accepted, in bytes (the SDK's own default bound). */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** Headers of the connection and of the body's framing: the web Request makes its own. */
const FRAMING = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** The catalogue's code for a status the SDK's transport refuses with (406 for an Accept without both types, …). */
const CODES = new Map<number, ErrorCode>(
  (
    [
      'internal_error',
      'malformed_request',
      'not_acceptable',
      'unsupported_media_type',
      'payload_too_large',
      'method_not_allowed',
      'route_not_found',
    ] as const
  ).map((code) => [ERRORS[code], code]),
);

/**
 * One MCP message (or batch) answered by the SDK's web-standard Streamable HTTP transport, in
 * stateless JSON mode: a server and a transport per request (the SDK's stateless pattern), the
 * tools' requests made in this process from the client's address. The transport's own refusals
 * are put in the sandbox's Error shape, their message kept.
 */
export async function answerMcp(req: SandboxRequest, sandbox: DoorSandbox, settings: DoorSettings): Promise<SandboxResponse> {
  const label = sandbox.generation().label;
  const read = await req.readBody(MCP_BODY_LIMIT);
  if (read.kind === 'too-large')
    return doorError(req, label, errorBody('payload_too_large', `An MCP message is at most ${MCP_BODY_LIMIT} bytes`));
  if (read.kind === 'invalid') return doorError(req, label, errorBody('malformed_request', read.reason));
  const forwarded = req.headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase() === 'https' ? 'https' : 'http';
  const origin = req.headers.host === undefined ? undefined : `${forwarded}://${req.headers.host}${req.mountPath ?? ''}`;
  const target = inProcessTarget(sandbox, settings.adminToken, req.clientAddress, origin);
  const server = await createMcpServer(target, await adminTools(settings.cacheDir));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !FRAMING.has(name)) headers.set(name, value);
    const response = await transport.handleRequest(
      new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers, body: new Uint8Array(read.bytes) }),
    );
    const text = await response.text();
    if (response.status >= 400) {
      const message = (/"message"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text) || `status ${response.status}`;
      return doorError(req, label, errorBody(CODES.get(response.status) ?? 'internal_error', message));
    }
    const own: Record<string, string> = {};
    response.headers.forEach((value, name) => (own[name] = value));
    const hasBody = text !== '';
    return {
      status: response.status,
      headers: answerHeaders({ own, requestId: req.id, generation: label, hasBody }),
      ...(hasBody && { body: null, encoded: text }),
    };
  } finally {
    await server.close();
  }
}
