import type { CallbackSpec } from '../openapi/callbacks.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { StoreChange } from '../vocabulary/record.js';
import type { ExpressionContext } from '../webhooks/runtime-expression.js';

/** A succeeded operation's callbacks, and what their runtime expressions and bodies are read from. */
export interface CallbacksDue {
  readonly specs: readonly CallbackSpec[];
  readonly context: ExpressionContext;
  /** The record the request created or changed (before it, for a deletion), for the callback bodies. */
  readonly record: unknown;
}

/** What a succeeded operation's callbacks read: the request as received and validated, and the answer as sent. */
export function callbacksDue(
  specs: readonly CallbackSpec[],
  req: SandboxRequest,
  pathParams: Readonly<Record<string, string>>,
  query: ReadonlyMap<string, readonly string[]>,
  body: unknown,
  result: { readonly response: SandboxResponse; readonly change?: StoreChange | undefined },
): CallbacksDue {
  const host = req.headers.host ?? 'localhost';
  const target = `${req.mountPath ?? ''}${req.path}${req.query === '' ? '' : `?${req.query}`}`;
  const { response, change } = result;
  return {
    specs,
    context: {
      url: `${req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http'}://${host}${target}`,
      method: req.method,
      statusCode: response.status,
      request: { headers: req.headers, query: Object.fromEntries(query), path: pathParams, body },
      response: { headers: response.headers, body: response.body },
    },
    record: change?.after ?? change?.before,
  };
}
