import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createSandboxServer, drain } from '../../src/http/server.js';
import type { Delivery, SandboxResponse } from '../../src/vocabulary/exchange.js';
import { observeGet, type Seen } from '../support/observe-get.js';
import { EDGES } from '../support/sandbox.js';

/**
 * The wire effects of `delivery`, seen by real clients over real sockets: node:http's client (what
 * most HTTP libraries sit on) and a raw TCP client for the bytes themselves. The sandbox is a stub
 * answering one fixed response, so each test is about the edge alone.
 */

const BODY = { id: 1, name: 'Rex', notes: 'x'.repeat(400) };
const TEXT = JSON.stringify(BODY);
/** libuv's loop clock has millisecond granularity: a timer may fire up to 1 ms before the wall clock says. */
const TICK = 1;

function stubSandbox(delivery: Delivery | undefined, onHandle?: () => void): Sandbox {
  const response: SandboxResponse = {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: BODY,
    ...(delivery && { delivery }),
  };
  const stub: Pick<Sandbox, 'bodyLimit' | 'handle'> = {
    bodyLimit: 1024,
    handle: () => {
      onHandle?.();
      return Promise.resolve(response);
    },
  };
  return stub as Sandbox;
}

async function listen(server: Server): Promise<number> {
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const serve = (listener: RequestListener): Promise<number> => listen(createServer(listener));

/** One GET of the stub's answer. */
const httpGet = (port: number, timeoutMs = 2000): Promise<Seen> => observeGet(port, '/v1/pets/1', {}, timeoutMs);

interface RawSeen {
  readonly bytes: Buffer;
  /** The socket error the client got (ECONNRESET for a reset), if any. */
  readonly error: string | undefined;
  /** The server ended the stream (FIN) or reset it; false when the client gave up first. */
  readonly closedByServer: boolean;
  readonly elapsedMs: number;
}

/** One GET over a raw TCP socket, recording every byte and how the connection ended, up to `timeoutMs`. */
function rawGet(port: number, timeoutMs = 2000): Promise<RawSeen> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let closedByServer = false;
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write('GET /v1/pets/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    });
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code;
      closedByServer = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), error, closedByServer, elapsedMs: performance.now() - started });
    });
  });
}

const at = (fault: Delivery['fault'], delayMs = 0): Delivery => ({ delayMs, fault });

describe.each(EDGES)('delivery on the wire ($name)', (edge) => {
  const start = (delivery: Delivery | undefined, onHandle?: () => void): Promise<number> =>
    serve(edge.make(stubSandbox(delivery, onHandle)) as RequestListener);

  it('answers at once and whole without a delivery', async () => {
    const seen = await httpGet(await start(undefined));
    expect(seen.status).toBe(200);
    expect(seen.body.toString()).toBe(TEXT);
    expect(seen.complete).toBe(true);
  });

  it('waits the delay before the answer, then answers whole', async () => {
    const seen = await httpGet(await start(at(undefined, 100)));
    expect(seen.headMs).toBeGreaterThanOrEqual(100 - TICK);
    expect(seen.status).toBe(200);
    expect(seen.body.toString()).toBe(TEXT);
  });

  it('writes nothing when the client leaves during the delay', async () => {
    const responses: ServerResponse[] = [];
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const listener = edge.make(stubSandbox(at(undefined, 150), () => received())) as RequestListener;
    const port = await serve((req, res) => {
      responses.push(res);
      listener(req, res);
    });
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write('GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\n\r\n'));
    const bytes: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => bytes.push(chunk));
    await arrived;
    socket.destroy();
    // Past the delay: the answer that was due is not written to the dead connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bytes).toEqual([]);
    expect(responses[0]?.headersSent).toBe(false);
    expect(responses[0]?.writableEnded).toBe(false);
  });

  it('connection_reset: the client reads ECONNRESET and no byte of an answer', async () => {
    const port = await start(at({ kind: 'connection_reset' }));
    const raw = await rawGet(port);
    expect(raw).toMatchObject({ error: 'ECONNRESET', closedByServer: true });
    expect(raw.bytes.length).toBe(0);
    const seen = await httpGet(port);
    expect(seen.status).toBeUndefined();
    expect(seen.error?.code).toBe('ECONNRESET');
  });

  it('connection_reset after a delay: the reset comes no sooner than the delay', async () => {
    const raw = await rawGet(await start(at({ kind: 'connection_reset' }, 100)));
    expect(raw.error).toBe('ECONNRESET');
    expect(raw.elapsedMs).toBeGreaterThanOrEqual(100 - TICK);
  });

  it('empty_response: the connection ends (FIN, not a reset) with zero bytes', async () => {
    const port = await start(at({ kind: 'empty_response' }));
    const raw = await rawGet(port);
    expect(raw).toMatchObject({ error: undefined, closedByServer: true });
    expect(raw.bytes.length).toBe(0);
    const seen = await httpGet(port);
    expect(seen.status).toBeUndefined();
    expect(seen.error).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
  });

  it('malformed_response: a status line, then bytes the client cannot parse, then the close', async () => {
    const port = await start(at({ kind: 'malformed_response' }));
    const raw = await rawGet(port);
    expect(raw.bytes.subarray(0, 17).toString('latin1')).toBe('HTTP/1.1 200 OK\r\n');
    expect(raw.bytes.length).toBeGreaterThan(17);
    expect(raw.closedByServer).toBe(true);
    const seen = await httpGet(port);
    expect(seen.status).toBeUndefined();
    expect(seen.error?.code).toMatch(/^HPE_/);
  });

  it('truncated_body: the head promises the whole body, fewer bytes come, then the close', async () => {
    const port = await start(at({ kind: 'truncated_body' }));
    const raw = await rawGet(port);
    const headEnd = raw.bytes.indexOf('\r\n\r\n');
    const head = raw.bytes.subarray(0, headEnd).toString('latin1');
    const declared = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(declared).toBe(Buffer.byteLength(TEXT));
    const received = raw.bytes.length - headEnd - 4;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(declared);
    expect(raw.closedByServer).toBe(true);
    const seen = await httpGet(port);
    expect(seen.status).toBe(200);
    expect(seen.complete).toBe(false);
    expect(seen.body.length).toBeLessThan(Number(seen.headers?.['content-length']));
    expect(seen.error?.code).toBe('ECONNRESET');
  });

  it('timeout: no byte comes, and the server closes the connection at the cap', async () => {
    const raw = await rawGet(await start(at({ kind: 'timeout', capMs: 200 })), 2000);
    expect(raw.bytes.length).toBe(0);
    expect(raw.closedByServer).toBe(true);
    expect(raw.elapsedMs).toBeGreaterThanOrEqual(200 - TICK);
  });

  it('timeout: a client with a shorter timeout of its own gives up with no answer', async () => {
    const seen = await httpGet(await start(at({ kind: 'timeout', capMs: 5000 })), 150);
    expect(seen).toMatchObject({ timedOut: true, status: undefined, error: undefined });
  });

  it('dribble: the head at once, then the body in `chunks` pieces over `durationMs`, Content-Length exact', async () => {
    const seen = await httpGet(await start(at({ kind: 'dribble', chunks: 4, durationMs: 300 })));
    expect(seen.status).toBe(200);
    expect(seen.headers?.['content-length']).toBe(String(Buffer.byteLength(TEXT)));
    expect(seen.complete).toBe(true);
    expect(seen.body.toString()).toBe(TEXT);
    expect(seen.dataEvents).toBe(4);
    expect(seen.headMs).toBeLessThanOrEqual(seen.pieceMs[0] ?? 0);
    // Piece i is due (i + 1) × 75 ms after the head, which was sent after the request.
    for (const [i, ms] of seen.pieceMs.entries()) expect(ms).toBeGreaterThanOrEqual((i + 1) * 75 - TICK);
  });

  it('dribble: the head comes before the first piece is due', async () => {
    // The first piece is due 100 ms after the head; the client looks at 50 ms, then leaves.
    const raw = await rawGet(await start(at({ kind: 'dribble', chunks: 3, durationMs: 300 })), 50);
    expect(raw.bytes.toString('latin1')).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n$/);
    expect(raw.closedByServer).toBe(false);
  });
});

describe('the standalone server with a connection held by a timeout fault', () => {
  it('drains at once, closing the held connection instead of waiting for it', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const server = createSandboxServer(stubSandbox(at({ kind: 'timeout', capMs: 10_000 }), () => received()));
    const port = await listen(server);
    const client = rawGet(port, 5000);
    await arrived;
    // The edge writes (here: holds) the answers handed over during a turn at that turn's end: the
    // next turn's check phase comes after it.
    await new Promise(setImmediate);
    await new Promise(setImmediate);
    const started = performance.now();
    await drain(server, 10_000);
    expect(performance.now() - started).toBeLessThan(1000);
    const raw = await client;
    expect(raw).toMatchObject({ closedByServer: true });
    expect(raw.bytes.length).toBe(0);
  });
});
