import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** What a client saw of one GET, over a real socket: for tests of delays and wire faults. */
export interface Seen {
  readonly status: number | undefined;
  /** The answer's head, or `{}` when none arrived. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Body `data` events, one per piece the client's parser handed over. */
  readonly dataEvents: number;
  /** The body arrived whole (as long as Content-Length said). */
  readonly complete: boolean;
  readonly error: { readonly code: string | undefined; readonly message: string } | undefined;
  /** The client gave up (its own timeout) with no answer. */
  readonly timedOut: boolean;
  /** From sending the request to the end of the exchange (answer, error or the client's timeout). */
  readonly elapsedMs: number;
  /** From sending the request to the head of the answer. */
  readonly headMs: number | undefined;
  /** From sending the request to each body piece. */
  readonly pieceMs: readonly number[];
}

/** One GET on 127.0.0.1 with node:http's client (no connection reuse), given up after `timeoutMs`. */
export function observeGet(port: number, path: string, headers: Readonly<Record<string, string>> = {}, timeoutMs = 2000): Promise<Seen> {
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const pieceMs: number[] = [];
    let response: IncomingMessage | undefined;
    let headMs: number | undefined;
    let done = false;
    const finish = (error: NodeJS.ErrnoException | undefined, timedOut = false): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({
        status: response?.statusCode,
        headers: response?.headers ?? {},
        body: Buffer.concat(chunks),
        dataEvents: chunks.length,
        complete: response?.complete ?? false,
        error: error && { code: error.code, message: error.message },
        timedOut,
        elapsedMs: performance.now() - started,
        headMs,
        pieceMs,
      });
    };
    const timer = setTimeout(() => finish(undefined, true), timeoutMs);
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      response = res;
      headMs = performance.now() - started;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        pieceMs.push(performance.now() - started);
      });
      res.on('end', () => finish(undefined));
      res.on('error', (error: NodeJS.ErrnoException) => finish(error));
      res.on('aborted', () => finish(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(error));
    req.end();
  });
}
