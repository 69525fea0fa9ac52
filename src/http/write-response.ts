import type { ServerResponse } from 'node:http';
import { jsonText } from '../vocabulary/json-text.js';
import type { Delivery, ResponseStream, SandboxResponse } from '../vocabulary/exchange.js';
import { afterDelay, perform, type HeldConnections } from './deliver.js';

/**
 * Writes the core's plain answer, whose headers are complete (`answers/answer-headers.ts`): the
 * body (JSON, or as encoded for its media type) and its exact Content-Length, nothing else added. The headers
 * go out in one `writeHead` with a flat list, and the body as a string, which Node sends in the
 * same write as the head (a Buffer would take a second, vectored one): both measured on the hot path.
 * An answer with a `delivery` (a delay, a fault) goes through `deliver.ts`; `held` collects the
 * connections a timeout fault keeps open, for the server's drain.
 */
export function writeResponse(res: ServerResponse, response: SandboxResponse, method: string, held?: HeldConnections): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (response.delivery) {
    deliver(res, response, method, response.delivery, held);
    return;
  }
  if (response.stream !== undefined && method !== 'HEAD') {
    writeStream(res, response, response.stream);
    return;
  }
  writeWhole(res, response, method);
}

/** Answers still streaming, so that shutdown can end them instead of waiting out its grace. */
const openStreams = new Set<ServerResponse>();

/** Ends every answer still streaming (the server is shutting down). */
export function endStreams(): void {
  for (const res of openStreams) res.end();
}

/**
 * An answer that stays open (Server-Sent Events): the head with no Content-Length (HTTP/1.1
 * chunked), the preamble, then each chunk as the stream hands it over, until the client goes away.
 */
function writeStream(res: ServerResponse, response: SandboxResponse, stream: ResponseStream): void {
  const flat: string[] = [];
  for (const name in response.headers) flat.push(name, response.headers[name] as string);
  res.writeHead(response.status, flat);
  res.write(response.encoded ?? (typeof response.body === 'string' ? response.body : ''));
  res.socket?.setNoDelay(true);
  openStreams.add(res);
  const stop = stream.open((chunk) => {
    if (!res.writableEnded && !res.destroyed) res.write(chunk);
  });
  res.once('close', () => {
    openStreams.delete(res);
    stop();
  });
}

function writeWhole(res: ServerResponse, response: SandboxResponse, method: string): void {
  // A body encoded for its media type (XML, text, bytes) goes as it is; any other is JSON.
  const payload = response.encoded ?? (response.body === undefined ? undefined : jsonText(response.body));
  const flat: string[] = [];
  for (const name in response.headers) flat.push(name, response.headers[name] as string);
  if (payload !== undefined) flat.push('content-length', String(Buffer.byteLength(payload)));
  res.writeHead(response.status, flat);
  res.end(method === 'HEAD' ? undefined : payload);
}

function deliver(
  res: ServerResponse,
  response: SandboxResponse,
  method: string,
  delivery: Delivery,
  held: HeldConnections | undefined,
): void {
  afterDelay(res, delivery.delayMs, () => {
    const fault = delivery.fault;
    if (fault === undefined) {
      writeWhole(res, response, method);
      return;
    }
    const encoded = response.encoded ?? (response.body === undefined ? undefined : jsonText(response.body));
    const head: string[] = [];
    for (const name in response.headers) head.push(name, response.headers[name] as string);
    const payload =
      encoded === undefined
        ? undefined
        : typeof encoded === 'string'
          ? Buffer.from(encoded)
          : Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    perform(res, fault, { status: response.status, head, payload, sendBody: method !== 'HEAD' }, held);
  });
}
