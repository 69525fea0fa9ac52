import { parseTemplate, type TemplatePart } from '../webhooks/runtime-expression.js';
import { sendsJson } from './bindings.js';
import { escapePointerToken, follow, isObject, type JsonObject } from './json-pointer.js';
import { readRequestBody, readResponses } from './media.js';
import { asWritten, type Locate } from './original-location.js';
import { pathOperations } from './path-operations.js';

/**
 * One request an operation's `callbacks` declare (OpenAPI 3.1 §4.8.18): after the operation
 * succeeds, the sandbox sends it to the URL its key names, with a body made from its schema.
 */
export interface CallbackSpec {
  /** The key in the operation's `callbacks` map (`onData`). */
  readonly name: string;
  /** The path item's key, the URL with its runtime expressions (`{$request.query.callbackUrl}/data`). */
  readonly expression: string;
  /** `expression` parsed once here, so that each request only expands it (src/webhooks/runtime-expression.ts). */
  readonly url: readonly TemplatePart[];
  /** Upper case, as the request is sent (`POST`). */
  readonly method: string;
  /** The callback operation in the document, after `$ref`s: `#/components/callbacks/onData/…/post` for a shared one. */
  readonly pointer: string;
  readonly operationId?: string;
  /**
   * The body to send: the media type chosen (a JSON one when there is one) and its schema, if it
   * has one. Undefined: the callback declares no body, and an empty one is sent.
   */
  readonly requestBody: { readonly mediaType: string; readonly schemaPointer: string | undefined } | undefined;
  /** The 2xx statuses the callback's responses declare, ascending (`[202, 204]`). */
  readonly successStatuses: readonly number[];
  /**
   * Whether every 2xx delivers it: the responses declare `2XX`, or no 2xx at all (only `default`,
   * or no responses), and then a 2xx is what success means to the delivery engine anyway.
   */
  readonly anySuccess: boolean;
}

export interface DocumentCallbacks {
  /** By the pointer of the operation that declares them (`OperationSpec.pointer`: `#/paths/~1streams/post`). */
  readonly byOperation: ReadonlyMap<string, readonly CallbackSpec[]>;
  /** The callbacks that cannot be sent, and why, located in the user's file. */
  readonly warnings: readonly string[];
}

/** Whether the receiver's answer `status` delivers the callback: one of its declared 2xx statuses. */
export const deliversCallback = (callback: Pick<CallbackSpec, 'successStatuses' | 'anySuccess'>, status: number): boolean =>
  status >= 200 && status < 300 && (callback.anySuccess || callback.successStatuses.includes(status));

/** Whether the document is OpenAPI 3.2 or later, whose path items may hold `query` and `additionalOperations`. */
const since32 = (document: JsonObject): boolean => /^3\.(?:[2-9]|\d{2,})\./.test(String(document.openapi));

/**
 * Every callback the document's operations declare, walked as src/openapi/build-model.ts walks the
 * operations, so that the keys are the pointers OperationSpec holds. `document` is the model's
 * (`ApiModel.document`): local `$ref`s are still in it (the loader checks that they resolve and
 * bundles external ones), so a callback, its path item and its request body are followed here,
 * as the model follows request bodies and responses. Pure, and it never throws: what cannot be
 * read is a warning, and that callback is left out.
 */
export function callbacksOf(document: unknown, locate: Locate = asWritten): DocumentCallbacks {
  const byOperation = new Map<string, CallbackSpec[]>();
  const warnings: string[] = [];
  if (!isObject(document) || !isObject(document.paths)) return { byOperation, warnings };
  const later = since32(document);
  for (const pathTemplate of Object.keys(document.paths)) {
    const item = followed(document, `#/paths/${escapePointerToken(pathTemplate)}`, locate, warnings);
    if (item === undefined || !isObject(item.value)) continue;
    // The path item's own warnings (an odd additionalOperations entry) are the model's to give.
    for (const { op, pointer } of pathOperations(item.value, item.pointer, locate(item.pointer), later).operations) {
      if (!isObject(op.callbacks)) continue;
      const found = operationCallbacks(document, op.callbacks, pointer, { locate, since32: later, warnings });
      if (found.length > 0) byOperation.set(pointer, found);
    }
  }
  return { byOperation, warnings };
}

interface Walk {
  readonly locate: Locate;
  readonly since32: boolean;
  readonly warnings: string[];
}

/** The value at `pointer` after its `$ref`s, or undefined (with a warning) when they lead nowhere. */
function followed(document: unknown, pointer: string, locate: Locate, warnings: string[]): { value: unknown; pointer: string } | undefined {
  try {
    return follow(document, pointer);
  } catch (error) {
    warnings.push(`${locate(pointer)}: ${(error as Error).message}`);
    return undefined;
  }
}

function operationCallbacks(document: unknown, callbacks: JsonObject, opPointer: string, walk: Walk): CallbackSpec[] {
  const { locate, warnings } = walk;
  const specs: CallbackSpec[] = [];
  for (const name of Object.keys(callbacks)) {
    const callback = followed(document, `${opPointer}/callbacks/${escapePointerToken(name)}`, locate, warnings);
    if (callback === undefined) continue;
    if (!isObject(callback.value)) {
      warnings.push(`${locate(callback.pointer)}: callback ${name} is not a Callback Object and is ignored`);
      continue;
    }
    // A Callback Object maps URL keys to path items, and may carry extensions beside them.
    for (const key of Object.keys(callback.value).filter((k) => !k.startsWith('x-'))) {
      const at = `${callback.pointer}/${escapePointerToken(key)}`;
      const url = usableKey(key);
      if (typeof url === 'string') {
        warnings.push(`${locate(at)}: callback ${name} is never sent: ${url}`);
        continue;
      }
      const item = followed(document, at, locate, warnings);
      if (item === undefined) continue;
      const operations = isObject(item.value)
        ? pathOperations(item.value, item.pointer, locate(item.pointer), walk.since32).operations
        : [];
      if (operations.length === 0) warnings.push(`${locate(at)}: callback ${name} declares no operation for ${key}, so nothing is sent`);
      for (const { method, op, pointer } of operations) {
        const spec = callbackSpec(document, { name, key, url, method, op, pointer }, walk);
        if (spec !== undefined) specs.push(spec);
      }
    }
  }
  return specs;
}

/**
 * A key the sandbox can send to, parsed: one with runtime expressions (whether their values make
 * a URL is known only when a request gives them), or an absolute http(s) URL. Otherwise why not.
 */
function usableKey(key: string): readonly TemplatePart[] | string {
  const parsed = parseTemplate(key);
  if (!parsed.ok) return parsed.reason;
  if (parsed.parts.some((part) => 'expression' in part)) return parsed.parts;
  return /^https?:\/\/[^/?#\s]/i.test(key) && URL.canParse(key)
    ? parsed.parts
    : `its key ${key} has no runtime expression and is not an absolute http(s) URL`;
}

interface Found {
  readonly name: string;
  readonly key: string;
  readonly url: readonly TemplatePart[];
  readonly method: string;
  readonly op: JsonObject;
  readonly pointer: string;
}

function callbackSpec(document: unknown, found: Found, walk: Walk): CallbackSpec | undefined {
  const { name, key, url, method, op, pointer } = found;
  let body: ReturnType<typeof readRequestBody>;
  let responses: ReturnType<typeof readResponses>;
  try {
    body = readRequestBody(document, op.requestBody, `${pointer}/requestBody`);
    responses =
      isObject(op.responses) && Object.keys(op.responses).length > 0 ? readResponses(document, op.responses, `${pointer}/responses`) : [];
  } catch (error) {
    walk.warnings.push(`${walk.locate(pointer)}: callback ${name} is never sent: ${(error as Error).message}`);
    return undefined;
  }
  const media = body?.content.find((m) => sendsJson(m)) ?? body?.content[0];
  if (media !== undefined && !sendsJson(media)) {
    walk.warnings.push(
      `${walk.locate(pointer)}: callback ${name} declares ${media.mediaType}; the sandbox sends callbacks as application/json`,
    );
  }
  const statuses = responses.map((r) => r.status);
  const successStatuses = [...new Set(statuses.filter((s) => /^2\d\d$/.test(s)).map(Number))].sort((a, b) => a - b);
  return {
    name,
    expression: key,
    url,
    method,
    pointer,
    ...(typeof op.operationId === 'string' ? { operationId: op.operationId } : {}),
    requestBody: media === undefined ? undefined : { mediaType: media.mediaType, schemaPointer: media.schemaPointer },
    successStatuses,
    anySuccess: statuses.includes('2XX') || successStatuses.length === 0,
  };
}
