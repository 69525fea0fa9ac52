import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { errorBody, type ErrorCode } from '../vocabulary/errors.js';
import { MAX_TARGET_LENGTH } from '../pipeline/pipeline.js';
import type { Sandbox } from '../core/sandbox.js';
import type { HeldConnections } from './deliver.js';
import { createNodeHandler } from './node-handler.js';
import { endStreams } from './write-response.js';

/**
 * Server timeouts, set deliberately: a client gets 10 s to send its headers and 30 s for the whole
 * request, and an idle keep-alive connection is closed after 5 s. The request head is capped at
 * 16 KiB (Node's default), answered 431 in the Error shape (414 when the request line alone is
 * past the target limit).
 */
export const SERVER_TIMEOUTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderSize: 16 * 1024,
} as const;

/** Node's own listener close, without http.Server's closing of idle connections (see drain). */
const netClose = (server: Server, callback: () => void): void => {
  NetServer.prototype.close.call(server, callback);
};
const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

/** A bare HTTP/1.1 answer in the Error shape, for requests Node refuses before any handler runs. */
function rawError(socket: Socket, code: ErrorCode, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const error = errorBody(code, message);
  const body = JSON.stringify(error);
  socket.end(
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** What Node's parser refused, as one of our errors. */
function classify(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): [ErrorCode, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const lineEnd = error.rawPacket?.indexOf('\r\n') ?? -1;
    // RFC 9112 §3: a request line longer than the server accepts gets 414, not 431.
    if (error.rawPacket && (lineEnd === -1 || lineEnd > MAX_TARGET_LENGTH))
      return ['uri_too_long', `The request target exceeds ${MAX_TARGET_LENGTH} characters`];
    return ['headers_too_large', 'The request headers exceed 16 KiB'];
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['malformed_request', 'The request was not received in time'];
  return ['malformed_request', 'The request is not valid HTTP/1.1'];
}

/** Each standalone server's connections held open by a timeout fault, which its drain does not wait for. */
const heldBy = new WeakMap<Server, HeldConnections>();

/** The standalone server: the sandbox behind a plain `node:http` edge. */
export function createSandboxServer(sandbox: Sandbox): Server {
  const held: HeldConnections = new Set();
  const handle = createNodeHandler(sandbox, held);
  // The latest request on each connection and its answer: a parse error in a later, pipelined
  // request must not overtake that answer.
  const latest = new WeakMap<Socket, { readonly req: IncomingMessage; readonly res: ServerResponse }>();
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    latest.set(req.socket, { req, res });
    handle(req, res);
  };
  const server = createServer(
    {
      headersTimeout: SERVER_TIMEOUTS.headersTimeoutMs,
      requestTimeout: SERVER_TIMEOUTS.requestTimeoutMs,
      keepAliveTimeout: SERVER_TIMEOUTS.keepAliveTimeoutMs,
      maxHeaderSize: SERVER_TIMEOUTS.maxHeaderSize,
      // The Host rules of RFC 9112 §3.2 are checked by the edge, which answers in the Error shape.
      requireHostHeader: false,
    },
    listener,
  );
  heldBy.set(server, held);
  // `Expect: 100-continue`: invite the body only when it fits; a larger one is refused (413)
  // without the client ever sending it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (!(declared > sandbox.bodyLimit)) res.writeContinue();
    listener(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [code, message] = classify(error);
    const previous = latest.get(socket);
    // A request still arriving owns the error (a broken chunk in its body): answer at once. One
    // fully received is being answered: the error is in the next request, so wait for that answer.
    if (previous?.req.complete && !previous.res.writableFinished) previous.res.once('close', () => rawError(socket, code, message));
    else rawError(socket, code, message);
  });
  return server;
}

/** How long a connection that has sent nothing complete yet may still deliver its request while draining. */
const DRAIN_GRACE_MS = 1_000;

/**
 * Stops accepting, lets in-flight requests finish for up to `drainMs`, then closes what is left.
 *
 * `http.Server.close()` closes every connection without a request in progress at once, which
 * also cuts off a request whose bytes are still in the socket's buffer; so only the listening
 * socket is closed at first (`net.Server.close`), idle connections are closed after a short grace
 * and then as soon as they fall idle, and whatever remains at `drainMs` is closed. A connection held
 * by a timeout fault will never be answered, so it is closed at once; an answer still streaming
 * (Server-Sent Events) is ended at once.
 */
export function drain(server: Server, drainMs: number): Promise<void> {
  for (const socket of heldBy.get(server) ?? []) socket.destroy();
  endStreams();
  return new Promise((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), drainMs);
    let sweeper: NodeJS.Timeout | undefined;
    const grace = setTimeout(() => {
      server.closeIdleConnections();
      sweeper = setInterval(() => server.closeIdleConnections(), 50);
      sweeper.unref();
    }, DRAIN_GRACE_MS);
    deadline.unref();
    grace.unref();
    netClose(server, () => {
      clearTimeout(deadline);
      clearTimeout(grace);
      clearInterval(sweeper);
      resolve();
    });
  });
}
