import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { truncatedLength } from '../faults/received.js';
import type { Fault } from '../vocabulary/exchange.js';

/**
 * The wire effects of `SandboxResponse.delivery` (`src/faults` decides them): a wait, then a fault
 * that a client's HTTP library observes for real. Nothing here runs for an answer without a
 * delivery. A client that goes away meanwhile stops everything: nothing is written, no timer is left.
 */

/** Connections a `timeout` fault holds open on purpose: the server's drain destroys them at once. */
export type HeldConnections = Set<Socket>;

/** The answer as the edge writes it: status, headers as a flat list (no Content-Length), body bytes. */
export interface AnswerParts {
  readonly status: number;
  readonly head: readonly string[];
  /** The body, or undefined for none. */
  readonly payload: Buffer | undefined;
  /** False for a HEAD request: the head says what the body would be, and no body follows. */
  readonly sendBody: boolean;
}

/** Runs `then` after `delayMs` of wall-clock time, unless the connection closes first. */
export function afterDelay(res: ServerResponse, delayMs: number, then: () => void): void {
  if (delayMs <= 0) {
    then();
    return;
  }
  const cancel = (): void => clearTimeout(timer);
  const timer = setTimeout(() => {
    res.off('close', cancel);
    if (!gone(res)) then();
  }, delayMs);
  res.once('close', cancel);
}

const gone = (res: ServerResponse): boolean => res.destroyed || res.socket === null || res.socket.destroyed;

/** A status line, then bytes no HTTP parser takes for a header line (a NUL and a space in a field name). */
const MALFORMED = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n'), Buffer.from([0x00, 0xff]), Buffer.from(' not a header line\r\n\r\n')]);

/** Produces `fault` on the connection of `res`, with `parts` for the faults that send some of the answer. */
export function perform(res: ServerResponse, fault: Fault, parts: AnswerParts, held: HeldConnections | undefined): void {
  const socket = res.socket;
  if (socket === null || socket.destroyed) return;
  switch (fault.kind) {
    case 'connection_reset':
      reset(socket);
      return;
    case 'empty_response':
      // A FIN with nothing before it: the client reads the end of the stream where an answer should be.
      closeAfter(socket);
      return;
    case 'malformed_response':
      socket.write(MALFORMED);
      closeAfter(socket);
      return;
    case 'truncated_body':
      truncate(res, socket, parts);
      return;
    case 'timeout':
      hold(socket, fault.capMs, held);
      return;
    case 'dribble':
      dribble(res, parts, fault.chunks, fault.durationMs);
      return;
  }
}

/** A TCP RST (SO_LINGER 0, then close): the client's read fails with ECONNRESET. */
function reset(socket: Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    // Not over TCP (a TLS socket's handle is not a TCP handle): the nearest is an abrupt close.
    socket.destroy();
  }
}

/** Ends the connection once what was written has gone out, then lets it go. */
function closeAfter(socket: Socket): void {
  socket.end(() => socket.destroy());
}

/**
 * The head with the whole body's Content-Length, then half the body, then the end of the connection.
 * An empty body claims one byte, so the answer is always short of what it promised.
 */
function truncate(res: ServerResponse, socket: Socket, { status, head, payload, sendBody }: AnswerParts): void {
  const length = payload?.length ?? 0;
  res.writeHead(status, [...head, 'content-length', String(Math.max(length, 1))]);
  res.flushHeaders();
  const sent = truncatedLength(length, sendBody);
  if (payload !== undefined && sent > 0) res.write(payload.subarray(0, sent));
  closeAfter(socket);
}

/** Keeps the connection open with nothing written until the client gives up or `capMs` passes. */
function hold(socket: Socket, capMs: number, held: HeldConnections | undefined): void {
  held?.add(socket);
  const timer = setTimeout(() => socket.destroy(), capMs);
  socket.once('close', () => {
    clearTimeout(timer);
    held?.delete(socket);
  });
}

/**
 * The head at once (its Content-Length exact), then the body in `chunks` pieces, one every
 * durationMs / chunks, the last at durationMs. A body shorter than `chunks` bytes goes a byte a piece.
 */
function dribble(res: ServerResponse, { status, head, payload, sendBody }: AnswerParts, chunks: number, durationMs: number): void {
  res.writeHead(status, payload === undefined ? head.slice() : [...head, 'content-length', String(payload.length)]);
  res.flushHeaders();
  const body = payload !== undefined && sendBody ? payload : Buffer.alloc(0);
  const count = Math.min(chunks, body.length);
  const pieces = Array.from({ length: count }, (_, i) =>
    body.subarray(Math.floor((i * body.length) / count), Math.floor(((i + 1) * body.length) / count)),
  );
  const start = performance.now();
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const cancel = (): void => clearTimeout(timer);
  const next = (): void => {
    if (gone(res)) return;
    const piece = pieces[sent++];
    if (sent >= pieces.length) {
      res.off('close', cancel);
      res.end(piece);
      return;
    }
    if (piece !== undefined) res.write(piece);
    schedule();
  };
  // Each piece is timed from the start, so the timers' lateness does not add up.
  const schedule = (): void => {
    const due = start + ((sent + 1) * durationMs) / Math.max(count, 1);
    timer = setTimeout(next, Math.max(0, due - performance.now()));
  };
  res.once('close', cancel);
  schedule();
}
