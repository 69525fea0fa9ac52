import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AllowedTarget } from './allow.js';

/** What one attempt sends: a POST of a JSON body, unless a callback declares another method or no body. */
export interface OutboundRequest {
  /** Upper case; `POST` for every webhook. */
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the receiver answered, its body cut at the size cap. */
export interface ReceivedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SendLimits {
  /**
   * The statuses that deliver it (a callback's declared 2xx); any 2xx when absent. Another 2xx
   * fails the attempt: the receiver said something the document does not.
   */
  readonly success?: readonly number[];
  /** Wall time for the whole exchange: connecting, sending, and the answer's last byte. */
  readonly timeoutMs: number;
  /** The largest answer body read; a larger one ends the attempt as failed. */
  readonly maxResponseBytes: number;
}

export interface SendResult {
  readonly outcome: 'delivered' | 'failed' | 'timeout';
  readonly response?: ReceivedAnswer;
  readonly error?: string;
}

/** Sends one attempt to an address the allow-list has checked (injected in tests to watch what is attempted). */
export type Transport = (target: AllowedTarget, request: OutboundRequest, limits: SendLimits) => Promise<SendResult>;

const flatHeaders = (message: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(message.headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );

const describeError = (error: Error): string => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${error.message} (${code})`;
};

/** The outcome an answer's status makes: 2xx delivers, anything else (a redirect too: never followed) fails. */
function judged(answer: ReceivedAnswer, success: readonly number[] | undefined): SendResult {
  if (answer.status >= 200 && answer.status < 300) {
    if (success === undefined || success.includes(answer.status)) return { outcome: 'delivered', response: answer };
    return { outcome: 'failed', response: answer, error: `the receiver answered ${answer.status}, which the callback does not declare` };
  }
  if (answer.status >= 300 && answer.status < 400) {
    const location = answer.headers.location;
    const to = location === undefined ? '' : ` to ${location}`;
    return { outcome: 'failed', response: answer, error: `redirect (${answer.status}${to}) not followed` };
  }
  return { outcome: 'failed', response: answer, error: `the receiver answered ${answer.status}` };
}

/**
 * One POST over node:http(s), to the checked address itself with the URL's own Host header (and its
 * name for TLS), on a connection of its own (no agent: nothing is pooled or reused between
 * receivers). Never rejects: every way an attempt can end is a result to record.
 */
export const nodeTransport: Transport = (target, outbound, limits) =>
  new Promise<SendResult>((resolve) => {
    const { url } = target;
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const options: RequestOptions & { servername?: string } = {
      host: target.address,
      family: target.family,
      port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: outbound.method,
      agent: false,
      headers: { ...outbound.headers, host: url.host, 'content-length': String(Buffer.byteLength(outbound.body)) },
    };
    if (url.protocol === 'https:' && isIP(hostname) === 0) options.servername = hostname;
    let settled = false;
    const settle = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (): ReceivedAnswer => ({
        status: response.statusCode ?? 0,
        headers: flatHeaders(response),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxResponseBytes) {
          chunks.push(chunk.subarray(0, chunk.length - (size - limits.maxResponseBytes)));
          settle({ outcome: 'failed', response: answer(), error: `the answer is larger than ${limits.maxResponseBytes} bytes` });
        } else chunks.push(chunk);
      });
      response.on('end', () => settle(judged(answer(), limits.success)));
      response.on('error', (error) => settle({ outcome: 'failed', response: answer(), error: describeError(error) }));
      response.on('aborted', () => settle({ outcome: 'failed', response: answer(), error: 'the connection closed mid-answer' }));
    });
    const timer = setTimeout(() => settle({ outcome: 'timeout', error: `no answer within ${limits.timeoutMs} ms` }), limits.timeoutMs);
    request.on('error', (error) => settle({ outcome: 'failed', error: describeError(error) }));
    request.end(outbound.body);
  });

/** A connection nothing took: the next address of the name may have a listener. */
const UNREACHED = /\((ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|EAFNOSUPPORT)\)$/;

/**
 * One attempt to the first of the target's addresses that takes the connection: the next is tried
 * only when nothing listened at the one before (never after an answer, a timeout or a cut exchange,
 * which would send the message twice or wait twice as long).
 */
export async function sendToFirstReached(
  transport: Transport,
  target: AllowedTarget,
  request: OutboundRequest,
  limits: SendLimits,
): Promise<SendResult> {
  let result = await transport(target, request, limits);
  for (const next of target.others ?? []) {
    if (result.response !== undefined || !UNREACHED.test(result.error ?? '')) break;
    result = await transport({ kind: 'allowed', url: target.url, address: next.address, family: next.family }, request, limits);
  }
  return result;
}
