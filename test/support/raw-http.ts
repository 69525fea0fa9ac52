import { connect, type Socket } from 'node:net';

/**
 * A tiny HTTP/1.1 client over a raw `node:net` socket, for requests a real client refuses to send:
 * broken framing, bare LFs, oversized heads, trickled bytes, disconnects mid-body. It writes exactly
 * the bytes it is given (strings as latin1: one character, one byte) and parses the first final
 * answer (1xx interim answers are recorded apart).
 */

/** One piece of what the client sends: bytes, a pause, or a wait for something outside the socket. */
export type Step = string | Buffer | { readonly pauseMs: number } | { readonly until: () => Promise<unknown> };

export interface RawResponse {
  readonly status: number;
  readonly reason: string;
  /** Header names in lower case; repeated ones joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly text: string;
}

export interface RawResult {
  /** The first final (non-1xx) answer, or undefined when none arrived in time. */
  readonly response: RawResponse | undefined;
  /** Interim (1xx) statuses received before the final answer, e.g. [100]. */
  readonly interim: readonly number[];
  /** Every byte received, for reporting. */
  readonly received: Buffer;
  /** The answer did not complete within `timeoutMs`. */
  readonly timedOut: boolean;
  /** How the client's writing ended, if it failed (EPIPE, ECONNRESET): the server closed first. */
  readonly writeError: string | undefined;
  /** The server closed the connection (FIN or RST) before the client did. */
  readonly closedByServer: boolean;
  /** A `until` step that threw (its error), which ends the exchange at once. */
  readonly stepError: unknown;
}

export interface RawOptions {
  /** Give up waiting for a final answer after this long (a hang is then reported, not waited out). */
  readonly timeoutMs?: number;
  /** After the last step: `end` half-closes (FIN), `destroy` drops the connection and awaits nothing. */
  readonly afterSend?: 'keep' | 'end' | 'destroy';
  /** Called once the socket is connected (tests use it to observe the server side). */
  readonly onConnect?: (socket: Socket) => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Sends `steps` to 127.0.0.1:`port` and resolves with the first final answer (or why there is none). */
export function rawExchange(port: number, steps: readonly Step[], options: RawOptions = {}): Promise<RawResult> {
  const { timeoutMs = 3000, afterSend = 'keep' } = options;
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let writeError: string | undefined;
    let closedByServer = false;
    let settled = false;
    let clientClosing = false;
    let stepError: unknown;

    const finish = (timedOut: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const received = Buffer.concat(chunks);
      const parsed = parseAnswers(received, !socket.readable || closedByServer);
      clientClosing = true;
      socket.destroy();
      resolve({ response: parsed.final, interim: parsed.interim, received, timedOut, writeError, closedByServer, stepError });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);

    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parseAnswers(Buffer.concat(chunks), false).complete) finish(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError ??= error.code ?? error.message;
      if (!clientClosing) closedByServer = true;
    });
    socket.on('end', () => {
      if (!clientClosing) closedByServer = true;
      // A body delimited by the close is complete now.
      if (parseAnswers(Buffer.concat(chunks), true).complete) finish(false);
    });
    socket.on('close', () => {
      if (!clientClosing) closedByServer = true;
      if (afterSend !== 'destroy') finish(!parseAnswers(Buffer.concat(chunks), true).complete);
    });

    socket.once('connect', () => {
      options.onConnect?.(socket);
      void (async () => {
        for (const step of steps) {
          if (settled || socket.destroyed) return;
          if (typeof step === 'string' || Buffer.isBuffer(step)) {
            // Strings are written as latin1: one character, one byte, exactly as given.
            await new Promise<void>((done) => socket.write(typeof step === 'string' ? Buffer.from(step, 'latin1') : step, () => done()));
          } else if ('pauseMs' in step) {
            await new Promise((done) => setTimeout(done, step.pauseMs));
          } else {
            await step.until();
          }
        }
        if (afterSend === 'end' && !socket.destroyed) socket.end();
        if (afterSend === 'destroy') {
          clientClosing = true;
          socket.destroy();
          finish(false);
        }
      })().catch((error: unknown) => {
        stepError = error;
        finish(false);
      });
    });
  });
}

interface Parsed {
  readonly final: RawResponse | undefined;
  readonly interim: number[];
  readonly complete: boolean;
}

/** Parses the answers in `bytes`: interim 1xx heads, then one final answer (complete or not). */
export function parseAnswers(bytes: Buffer, closed: boolean): Parsed {
  const interim: number[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf(HEAD_END, offset);
    if (headEnd === -1) return { final: undefined, interim, complete: false };
    const head = bytes.subarray(offset, headEnd).toString('latin1');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = /^HTTP\/\d\.\d (\d{3})(?: (.*))?$/.exec(statusLine);
    if (!status) return { final: undefined, interim, complete: closed };
    const code = Number(status[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const bodyStart = headEnd + HEAD_END.length;
    if (code >= 100 && code < 200) {
      interim.push(code);
      offset = bodyStart;
      continue;
    }
    const build = (body: Buffer): RawResponse => ({ status: code, reason: status[2] ?? '', headers, body, text: body.toString('utf8') });
    const rest = bytes.subarray(bodyStart);
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const decoded = dechunk(rest);
      return decoded ? { final: build(decoded), interim, complete: true } : { final: build(rest), interim, complete: closed };
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (rest.length >= length) return { final: build(rest.subarray(0, length)), interim, complete: true };
      return { final: build(rest), interim, complete: closed };
    }
    if (code === 204 || code === 304) return { final: build(Buffer.alloc(0)), interim, complete: true };
    return { final: build(rest), interim, complete: closed };
  }
}

/** A chunked body's content, or undefined while its last chunk has not arrived. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const out: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(out);
    const start = lineEnd + 2;
    if (bytes.length < start + size + 2) return undefined;
    out.push(bytes.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/** A request head: request line and header lines joined by CRLF, ended by the blank line. */
export function head(requestLine: string, headers: readonly string[]): string {
  return `${[requestLine, ...headers].join('\r\n')}\r\n\r\n`;
}

/** A body as HTTP/1.1 chunks of at most `size` bytes, with the last chunk. */
export function chunked(body: string | Buffer, size: number): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    const piece = bytes.subarray(i, i + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}
