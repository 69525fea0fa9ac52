/** What the journal keeps of a request on the hot path. */

import type { Exchange, SandboxRequest } from '../vocabulary/exchange.js';

/** What the journal keeps of a request: its facts, not the edge's handle on it (`readBody` holds the socket's request). */
export type JournaledRequest = Pick<SandboxRequest, 'id' | 'method' | 'path' | 'query' | 'headers'>;

/** What the journal keeps of an exchange: all but the request's handle and a failure's error (the log has it). */
export type JournaledExchange = Omit<Exchange, 'request' | 'error'> & { readonly request: JournaledRequest };

/**
 * What the journal keeps of one request on the hot path: the exchange's parts, by reference, and
 * two clock readings. The redacted, capped view (`JournalEntry`) is built only when someone reads it.
 */
export interface JournalRecord {
  readonly exchange: JournaledExchange;
  /** Sandbox clock when it was answered, Unix milliseconds. */
  readonly time: number;
  /** Wall clock when it was answered, Unix milliseconds. */
  readonly wallTime: number;
  /** The request body's full size in bytes, when it was cut to what an entry shows. */
  readonly requestBodySize?: number;
}

/** Largest request body kept per record, in bytes: what an entry shows of it (`entry.ts`) and a little more. */
const KEPT_BODY_BYTES = 64 * 1024 + 1;

/**
 * The record of an exchange: a few references, no copying, no redaction (`Journal.add` runs on
 * every request). Only a request body larger than an entry can show is cut, so that a full ring of
 * large uploads does not keep every upload alive.
 */
export function toJournalEntry(exchange: Exchange, time: number, wallTime: number = Date.now()): JournalRecord {
  const { request, requestBody } = exchange;
  const cut = requestBody !== undefined && requestBody.length > KEPT_BODY_BYTES;
  const kept: JournaledExchange = {
    request: { id: request.id, method: request.method, path: request.path, query: request.query, headers: request.headers },
    response: exchange.response,
    operationId: exchange.operationId,
    keyId: exchange.keyId,
    keyName: exchange.keyName,
    workspace: exchange.workspace,
    durationMs: exchange.durationMs,
    requestBody: cut ? Buffer.from(requestBody.subarray(0, KEPT_BODY_BYTES)) : requestBody,
    applied: exchange.applied,
    change: exchange.change,
  };
  return cut ? { exchange: kept, time, wallTime, requestBodySize: requestBody.length } : { exchange: kept, time, wallTime };
}
