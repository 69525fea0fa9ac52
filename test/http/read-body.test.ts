import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../src/http/read-body.js';
import type { BodyRead } from '../../src/vocabulary/exchange.js';
import { rawExchange, type Step } from '../support/raw-http.js';

/** The body reader on a real loopback server: each request's read is handed to the test that sent it. */
describe('reading a request body', () => {
  const LIMIT = 16;
  let server: Server;
  let port: number;
  const reads: { read: BodyRead; listeners: number; paused: boolean }[] = [];
  const waiters: ((value: void) => void)[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      void (async () => {
        if (req.headers['x-read-first'] !== undefined) {
          // Another reader took the whole body first.
          req.resume();
          await new Promise((resolve) => req.once('end', resolve));
        }
        const read = await readBody(req, LIMIT);
        reads.push({
          read,
          listeners: req.listenerCount('data') + req.listenerCount('end') + req.listenerCount('error') + req.listenerCount('close'),
          paused: req.isPaused(),
        });
        waiters.shift()?.();
        if (!res.destroyed) {
          res.writeHead(200, { connection: 'close' });
          res.end(read.kind === 'ok' ? read.bytes : read.kind);
        }
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends the steps and resolves with what the server's reader made of them. */
  async function readOf(steps: readonly Step[], afterSend: 'keep' | 'destroy' = 'keep'): Promise<(typeof reads)[number]> {
    const done = new Promise((resolve) => waiters.push(resolve));
    const before = reads.length;
    await rawExchange(port, steps, { afterSend, timeoutMs: 2000 });
    await done;
    return reads[before] as (typeof reads)[number];
  }

  const head = (headers: string): string => `POST /x HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;

  it('reads a Content-Length body whole, byte for byte', async () => {
    const { read, listeners } = await readOf([head('Content-Length: 5\r\n'), 'h\xe9llo']);
    expect(read).toEqual({ kind: 'ok', bytes: Buffer.from('h\xe9llo', 'latin1') });
    expect(listeners).toBe(0);
  });

  it('joins the chunks of a chunked body', async () => {
    const { read } = await readOf([head('Transfer-Encoding: chunked\r\n'), '3\r\nabc\r\n', { pauseMs: 20 }, '2\r\nde\r\n0\r\n\r\n']);
    expect(read.kind === 'ok' && read.bytes.toString()).toBe('abcde');
  });

  it('reads an empty body as empty bytes', async () => {
    const { read } = await readOf([head('Content-Length: 0\r\n')]);
    expect(read).toEqual({ kind: 'ok', bytes: Buffer.alloc(0) });
  });

  it('refuses a body declared longer than the limit before reading any of it, and leaves the request paused', async () => {
    const { read, listeners, paused } = await readOf([head(`Content-Length: ${LIMIT + 1}\r\n`)]);
    expect(read).toEqual({ kind: 'too-large', limit: LIMIT });
    expect(listeners).toBe(0);
    expect(paused).toBe(true);
  });

  it('refuses a chunked body as soon as it grows past the limit', async () => {
    const chunk = 'x'.repeat(10);
    const { read, listeners, paused } = await readOf([head('Transfer-Encoding: chunked\r\n'), `a\r\n${chunk}\r\n`, `a\r\n${chunk}\r\n`]);
    expect(read).toEqual({ kind: 'too-large', limit: LIMIT });
    expect(listeners).toBe(0);
    expect(paused).toBe(true);
  });

  it('reports a client that goes away mid-body, and leaves no listener behind', async () => {
    const { read, listeners } = await readOf([head('Content-Length: 10\r\n'), 'abc'], 'destroy');
    expect(read).toEqual({ kind: 'invalid', reason: 'the client stopped sending the body' });
    expect(listeners).toBe(0);
  });

  it('reports a body another reader has already consumed, rather than waiting for it forever', async () => {
    const { read } = await readOf([head('Content-Length: 3\r\nX-Read-First: 1\r\n'), 'abc']);
    expect(read).toEqual({ kind: 'invalid', reason: 'the body could not be read' });
  });
});
