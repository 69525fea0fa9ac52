import type { IncomingMessage } from 'node:http';
import type { BodyRead } from '../vocabulary/exchange.js';

/**
 * Reads a request body up to `limit` bytes, as bytes. A body declared longer than that is refused
 * before any of it is read, and one that grows past it (chunked) as soon as it does; either way the
 * request is paused, and the caller decides whether to drain it. A client that stops sending before
 * the end, or a stream error, is an `invalid` read.
 *
 * Node's parser has already checked the framing (a Content-Length body ends at its length, a chunked
 * one at its last chunk), so this only gathers chunks: two listeners and one concatenation, where a
 * general-purpose reader's stream plumbing was a tenth of a small create's cost.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.pause();
    return Promise.resolve({ kind: 'too-large', limit });
  }
  // Read to its end already (by whatever held the request first): nothing is left to read.
  if (!req.readable) return Promise.resolve({ kind: 'invalid', reason: 'the body could not be read' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (read: BodyRead): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onClose);
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > limit) {
        req.pause();
        finish({ kind: 'too-large', limit });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      finish({ kind: 'ok', bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length) });
    };
    const onFailure = (): void => finish({ kind: 'invalid', reason: 'the client stopped sending the body' });
    // `close` before `end`: the connection went away mid-body (Node also emits `error` then, but not always first).
    const onClose = (): void => {
      if (!req.complete) onFailure();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('close', onClose);
  });
}
