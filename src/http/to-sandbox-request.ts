import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BodyRead, SandboxRequest } from '../vocabulary/exchange.js';
import { readBody } from './read-body.js';

// RFC 9110 §7.2 / RFC 3986 §3.2.2: a host (reg-name, IPv4 or bracketed IPv6) and an optional port.
const HOST = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+(?::[0-9]*)?$|^\[[0-9A-Fa-f:.]+\](?::[0-9]*)?$/;

/** What makes a request unacceptable as HTTP before any API rule is applied, or undefined. */
function malformation(req: IncomingMessage): SandboxRequest['malformed'] {
  if (req.httpVersionMajor !== 1) return { code: 'malformed_request', message: `HTTP/${req.httpVersion} is not served; use HTTP/1.1` };
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).length === 4 && (raw[i] as string).toLowerCase() === 'host') hosts++;
  // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request with no Host, several, or an invalid one.
  if (req.httpVersionMinor >= 1 && hosts === 0) return { code: 'malformed_request', message: 'The Host header is missing' };
  if (hosts > 1) return { code: 'malformed_request', message: 'The Host header is given more than once' };
  if (hosts === 1 && !HOST.test(req.headers.host ?? ''))
    return { code: 'malformed_request', message: 'The Host header is not a valid host' };
  const codings = req.headers['transfer-encoding']
    ?.toLowerCase()
    .split(',')
    .map((c) => c.trim());
  if (codings !== undefined && codings.join() !== 'chunked') {
    // RFC 9112 §6.3: chunked not last in a request leaves its length unknown: 400. §6.1: a coding
    // the server does not understand before it: 501.
    if (codings.at(-1) !== 'chunked') return { code: 'malformed_request', message: 'Transfer-Encoding must end with chunked' };
    return { code: 'not_implemented', message: 'Only the chunked transfer coding is supported' };
  }
  const ce = req.headers['content-encoding'];
  // RFC 9110 §15.5.16: a content coding the server cannot decode gets 415.
  if (ce !== undefined && ce.trim().toLowerCase() !== 'identity') {
    return { code: 'unsupported_media_type', message: `Content-Encoding "${ce.slice(0, 50)}" is not supported; send the body unencoded` };
  }
  return undefined;
}

/** The request target as a path and query; the absolute form (RFC 9112 §3.2.2) is accepted too. */
function target(url: string): { path: string; query: string } {
  let rest = url;
  if (!rest.startsWith('/')) {
    const scheme = /^https?:\/\/[^/?#]*/i.exec(rest);
    rest = scheme ? rest.slice(scheme[0].length) || '/' : rest;
    if (rest.startsWith('?')) rest = `/${rest}`;
  }
  const q = rest.indexOf('?');
  return q === -1 ? { path: rest, query: '' } : { path: rest.slice(0, q), query: rest.slice(q + 1) };
}

/** The plain request record the core works on, from Node's request (also Express's). */
export function toSandboxRequest(req: IncomingMessage): SandboxRequest {
  const headers: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>;
  const given = req.headers;
  for (const name in given) {
    const value = given[name];
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let read: Promise<BodyRead> | undefined;
  const malformed = malformation(req);
  const { path, query } = target(req.url ?? '/');
  const request: SandboxRequest = {
    id: randomUUID(),
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    query,
    headers,
    clientAddress: req.socket.remoteAddress ?? 'unknown',
    readBody: (limit) => (read ??= readBody(req, limit)),
  };
  return malformed ? { ...request, malformed } : request;
}
