import type { RecordStore } from '../store/record-store.js';
import type { Responded, SandboxResponse } from '../vocabulary/exchange.js';
import { recordJson } from '../vocabulary/json-text.js';
import type { Row, StoreChange } from '../vocabulary/record.js';
import { forAnswer } from './records.js';
import type { ResolvedBinding } from './resolve-binding.js';

/** What dispatch is handed for one request, and how it shapes the answer it gives. */

export interface DispatchContext {
  readonly store: RecordStore;
  /** The caller's workspace: the records it reads and writes. */
  readonly workspace: string;
  readonly basePath: string;
  /** The request's query as received, to carry into `Link: rel="next"`. */
  readonly rawQuery: ReadonlyMap<string, readonly string[]>;
  /** The answer from the document, for operations with no state behind them. */
  readonly generatedAnswer: () => SandboxResponse;
  /** Now on the caller's workspace clock (Unix ms): what record timestamps are set from. */
  readonly now: number;
}

/**
 * The operation's answer: its body in the operation's media type, none on a 204 or where it declares
 * none; with the change it made to the store, if any.
 */
export function answer(
  binding: ResolvedBinding,
  status: number,
  record: unknown,
  headers: Record<string, string> = {},
  change?: StoreChange,
): Responded {
  const { mediaType } = binding;
  if (mediaType === undefined || status === 204) return change === undefined ? { status, headers } : { status, headers, change };
  // A record answered inside its wrapper (`{"order": {…}}`), where the document wraps it so.
  const wrap = binding.operation.binding.wrap;
  const body = wrap === undefined ? record : { [wrap]: record };
  const typed = mediaType === 'application/json' ? headers : { ...headers, 'content-type': mediaType };
  return change === undefined ? { status, headers: typed, body } : { status, headers: typed, body, change };
}

/** A row as a read answers it, its JSON text made once for every read that shows it. */
export function shown(binding: ResolvedBinding, row: Row): Readonly<Record<string, unknown>> {
  const body = forAnswer(binding, row);
  recordJson(body);
  return body;
}
