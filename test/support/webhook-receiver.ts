import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** One request a receiver took, as it arrived. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Answers the `n`th request (1 for the first); may leave it unanswered or destroy the socket. */
export type Behaviour = (n: number, request: IncomingMessage, response: ServerResponse) => void;

export interface Receiver {
  /** http://127.0.0.1:<port>/hook */
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedRequest[];
  /** TCP connections accepted (a request that never arrived would still show here). */
  connections: number;
  /** Resolves when the receiver has taken `count` requests in all. */
  taken(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A webhook receiver of the test's own, on loopback, on a port the system picks. */
export async function startReceiver(behave: Behaviour): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const waiting: { count: number; resolve: () => void }[] = [];
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      received.push({ method: request.method ?? '', path: request.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const w of waiting.filter((w) => received.length >= w.count)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
      behave(received.length, request, response);
    });
  });
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    connections: 0,
    taken: (count) =>
      received.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve: () => resolve() })),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    receiver.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}/hook`, port });
}

/** Answers every request with `status` (and a short body). */
export const always =
  (status: number, body = 'ok'): Behaviour =>
  (_n, _request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(body);
  };

/** Never answers: the request stays open until the sender gives up. */
export const never: Behaviour = () => undefined;

/** A receiver for one test: closed when the test ends, passed or not. */
export async function receiverForTest(behave: Behaviour): Promise<Receiver> {
  const made = await startReceiver(behave);
  onTestFinished(() => made.close());
  return made;
}
