import type { Fault } from '../vocabulary/exchange.js';

/**
 * What a client receives of an answer delivered with a wire fault: the edge's behaviour
 * (`src/http/deliver.ts`) told as data, so that the journal and its HAR show what reached the
 * client rather than the answer the sandbox meant to give. The edge and this description share
 * `truncatedLength`, so they cannot disagree on how much of a cut body goes out.
 */
export type Received =
  /** No answer: the connection was reset, closed empty, answered with bytes that are not HTTP, or held open. */
  | { readonly kind: 'nothing'; readonly error: string }
  /** The head, then fewer body bytes than it promised, then the close. */
  | { readonly kind: 'cut'; readonly error: string; readonly bodyBytes: number }
  /** The whole answer, its body spread over `receiveMs`. */
  | { readonly kind: 'spread'; readonly receiveMs: number };

/** Bytes of a body of `length` bytes that a `truncated_body` fault sends: half, and none of a body under 2 bytes or a HEAD's. */
export const truncatedLength = (length: number, sendBody: boolean): number => (sendBody && length >= 2 ? Math.floor(length / 2) : 0);

/** What the client receives when `fault` is produced on an answer whose body is `bodyLength` bytes. */
export function receivedOf(fault: Fault, bodyLength: number, sendBody: boolean): Received {
  switch (fault.kind) {
    case 'connection_reset':
      return { kind: 'nothing', error: 'connection reset: the connection was reset (TCP RST) with no answer (connection_reset fault)' };
    case 'empty_response':
      return { kind: 'nothing', error: 'empty response: the connection was closed with no bytes sent (empty_response fault)' };
    case 'malformed_response':
      return { kind: 'nothing', error: 'malformed response: a status line, then bytes that are not HTTP (malformed_response fault)' };
    case 'timeout':
      return {
        kind: 'nothing',
        error: `no answer: the connection was held open with nothing sent, for at most ${fault.capMs} ms (timeout fault)`,
      };
    case 'truncated_body': {
      const bodyBytes = truncatedLength(bodyLength, sendBody);
      return {
        kind: 'cut',
        error: `truncated body: ${bodyBytes} of the ${Math.max(bodyLength, 1)} bytes Content-Length promised, then the close (truncated_body fault)`,
        bodyBytes,
      };
    }
    case 'dribble':
      return { kind: 'spread', receiveMs: fault.durationMs };
  }
}
