import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, type ErrorCode } from '../core/errors.js';
import type { Sandbox } from '../core/sandbox.js';
import { createNodeHandler } from './node-handler.js';

/**
 * Server timeouts, set deliberately: a client gets 10 s to send its headers and 30 s for the whole
 * request, and an idle keep-alive connection is closed after 5 s. Headers (request line included)
 * are capped at 16 KiB, Node's default, answered 431 in the Error shape.
 */
export const SERVER_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxHeaderSize: 16 * 1024 } as const;

/** A bare HTTP/1.1 answer in the Error shape, for requests Node refuses before any handler runs. */
function rawError(socket: Socket, code: ErrorCode, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const error = errorBody(code, message);
  const body = JSON.stringify(error);
  const reason = REASONS[error.status] ?? 'Bad Request';
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/** The standalone server: the sandbox behind a plain `node:http` edge. */
export function createSandboxServer(sandbox: Sandbox): Server {
  const server = createServer(
    {
      headersTimeout: SERVER_TIMEOUTS.headersTimeoutMs,
      requestTimeout: SERVER_TIMEOUTS.requestTimeoutMs,
      keepAliveTimeout: SERVER_TIMEOUTS.keepAliveTimeoutMs,
      maxHeaderSize: SERVER_TIMEOUTS.maxHeaderSize,
    },
    createNodeHandler(sandbox),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW') return rawError(socket, 'headers_too_large', 'The request headers exceed 16 KiB');
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return rawError(socket, 'malformed_request', 'The request was not received in time');
    if (error.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    rawError(socket, 'malformed_request', 'The request is not valid HTTP/1.1');
  });
  return server;
}

/** Stops accepting, lets in-flight requests finish for up to `drainMs`, then closes what is left. */
export function drain(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), drainMs);
    // A keep-alive connection turns idle when its last answer is sent: close it then, not after
    // the keep-alive timeout.
    const sweeper = setInterval(() => server.closeIdleConnections(), 50);
    timer.unref();
    sweeper.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweeper);
      resolve();
    });
    server.closeIdleConnections();
  });
}
