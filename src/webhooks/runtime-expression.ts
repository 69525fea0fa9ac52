/**
 * OpenAPI runtime expressions (OpenAPI 3.1 §4.8.20.4, the same in 3.0 and 3.2), which name a value
 * of one request and its answer: `$url`, `$method`, `$statusCode`, and `$request.` or `$response.`
 * followed by `header.{token}`, `query.{name}`, `path.{name}` or `body` with an optional `#` and a
 * JSON pointer (RFC 6901). A callback's key embeds them in a URL, each in braces:
 * `http://notificationServer.com?transactionId={$request.body#/id}&email={$request.body#/email}`.
 *
 * Pure: nothing here throws, reads a clock or sends anything; a failure is a reason, naming the
 * expression that failed and why, for the delivery record and the start-up warnings.
 */

type Headers = Readonly<Record<string, string | undefined>>;

/** The exchange an expression is evaluated against: the request the operation answered, and its answer. */
export interface ExpressionContext {
  /** The request's full URL, query included. */
  readonly url: string;
  readonly method: string;
  readonly statusCode: number;
  readonly request: {
    readonly headers: Headers;
    readonly query: Readonly<Record<string, string | readonly string[]>>;
    readonly path: Readonly<Record<string, string>>;
    readonly body: unknown;
  };
  readonly response: {
    readonly headers: Headers;
    readonly body: unknown;
  };
}

export type Evaluated = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string };

/**
 * One expression, parsed. `pointer` holds the body pointer's tokens as written (each is unescaped
 * when it is walked, so that its percent-decoded reading can be tried too); absent: the whole body.
 */
export type RuntimeExpression =
  | { readonly kind: 'url' | 'method' | 'statusCode' }
  | { readonly kind: 'header' | 'query' | 'path'; readonly of: 'request' | 'response'; readonly name: string }
  | { readonly kind: 'body'; readonly of: 'request' | 'response'; readonly pointer: readonly string[] | undefined };

export type Parsed = { readonly ok: true; readonly expression: RuntimeExpression } | { readonly ok: false; readonly reason: string };

/** A URL template: literal text and expressions, in order. */
export type TemplatePart = { readonly text: string } | { readonly source: string; readonly expression: RuntimeExpression };

export type ParsedTemplate =
  { readonly ok: true; readonly parts: readonly TemplatePart[] } | { readonly ok: false; readonly reason: string };

/** RFC 9110 §5.6.2: a header name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The fixed words of the grammar. ABNF's quoted strings are case-insensitive (RFC 5234 §2.3), so
 * `$Request.Header.X` is as valid as `$request.header.X`; the names after them keep their case.
 */
const SIMPLE = new Map<string, 'url' | 'method' | 'statusCode'>([
  ['$url', 'url'],
  ['$method', 'method'],
  ['$statuscode', 'statusCode'],
]);
const SOURCE = /^\$(request|response)\.(header\.|query\.|path\.|body(?=#|$))/i;

/** Parses one expression (`$request.body#/user/uuid`), without braces. */
export function parseExpression(text: string): Parsed {
  const malformed = (why: string): Parsed => ({ ok: false, reason: `${text} is not a runtime expression: ${why}` });
  const simple = SIMPLE.get(text.toLowerCase());
  if (simple !== undefined) return { ok: true, expression: { kind: simple } };
  const source = SOURCE.exec(text);
  if (source === null) {
    return malformed('it names none of $url, $method, $statusCode, $request.{source} or $response.{source}');
  }
  const of = source[1]?.toLowerCase() === 'request' ? 'request' : 'response';
  const field = (source[2] ?? '').toLowerCase();
  const rest = text.slice(source[0].length);
  if (field === 'body') {
    if (rest === '') return { ok: true, expression: { kind: 'body', of, pointer: undefined } };
    const pointer = pointerTokens(rest.slice(1));
    return typeof pointer === 'string' ? malformed(pointer) : { ok: true, expression: { kind: 'body', of, pointer } };
  }
  const kind = field === 'header.' ? 'header' : field === 'query.' ? 'query' : 'path';
  if (rest === '') return malformed(`no ${kind} name follows "${kind}."`);
  if (kind === 'header' && !TOKEN.test(rest)) return malformed(`"${rest}" is not a header name`);
  // The grammar allows `$response.query.x`, but an answer has neither query nor path parameters.
  if (of === 'response' && kind !== 'header') return malformed(`an answer has no ${kind} parameters`);
  return { ok: true, expression: { kind, of, name: rest } };
}

/**
 * The tokens of the body pointer after `#`, or why it is malformed. `~1` is `/` and `~0` is `~`
 * (RFC 6901 §4); any other `~` is an error. The pointer is a URI fragment, so it may be
 * percent-encoded (RFC 6901 §6: `#/a%20b`); the token is kept as written and its decoded reading
 * is tried when the written one is not found, as src/openapi/json-pointer.ts reads `$ref`s.
 */
function pointerTokens(fragment: string): readonly string[] | string {
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return `the body pointer "#${fragment}" does not start with "/"`;
  const tokens = fragment.slice(1).split('/');
  for (const token of tokens) if (/~(?![01])/.test(token)) return `"~" in the body pointer "#${fragment}" is not followed by 0 or 1`;
  return tokens;
}

const unescape = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

function percentDecoded(token: string): string | undefined {
  try {
    return decodeURIComponent(token);
  } catch {
    return undefined;
  }
}

/**
 * Parses a callback key. Each `{…}` holds one expression; the rest is literal text. A key that is
 * an expression alone, with no braces (`$request.body#/url`, as OpenAPI 3.1 §4.8.18.1 writes its
 * simplest example), is that one expression. A `}` inside an expression (a body property named
 * with one) is written `%7D`.
 */
export function parseTemplate(template: string): ParsedTemplate {
  if (template.startsWith('$') && !template.includes('{')) {
    const parsed = parseExpression(template);
    return parsed.ok ? { ok: true, parts: [{ source: template, expression: parsed.expression }] } : parsed;
  }
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    if (open < 0) {
      parts.push({ text: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ text: template.slice(at, open) });
    const close = template.indexOf('}', open);
    if (close < 0) return { ok: false, reason: `the "{" at character ${open + 1} of ${template} is never closed` };
    const source = template.slice(open + 1, close);
    if (source.includes('{'))
      return { ok: false, reason: `the "{" at character ${open + 1} of ${template} is closed only after another "{"` };
    if (!source.startsWith('$'))
      return { ok: false, reason: `{${source}} in ${template} is not a runtime expression (they start with "$")` };
    const parsed = parseExpression(source);
    if (!parsed.ok) return parsed;
    parts.push({ source, expression: parsed.expression });
    at = close + 1;
  }
  return { ok: true, parts };
}

/** The value an expression names in `context`, as it is (a body property may be any JSON value), or why there is none. */
export function valueOf(
  expression: RuntimeExpression,
  context: ExpressionContext,
): { found: true; value: unknown } | { found: false; why: string } {
  switch (expression.kind) {
    case 'url':
      return { found: true, value: context.url };
    case 'method':
      return { found: true, value: context.method };
    case 'statusCode':
      return { found: true, value: context.statusCode };
    case 'header': {
      const headers = expression.of === 'request' ? context.request.headers : context.response.headers;
      const wanted = expression.name.toLowerCase();
      const name = Object.keys(headers).find((key) => key.toLowerCase() === wanted && headers[key] !== undefined);
      return name === undefined
        ? { found: false, why: `the ${expression.of} has no ${expression.name} header` }
        : { found: true, value: headers[name] };
    }
    case 'query': {
      const values = context.request.query;
      // A repeated parameter (`?url=a&url=b`) names its first value, as most servers read one.
      const value = Object.hasOwn(values, expression.name) ? values[expression.name] : undefined;
      const first = typeof value === 'string' ? value : value?.[0];
      return first === undefined
        ? { found: false, why: `the request has no query parameter ${expression.name}` }
        : { found: true, value: first };
    }
    case 'path': {
      const params = context.request.path;
      return Object.hasOwn(params, expression.name)
        ? { found: true, value: params[expression.name] }
        : { found: false, why: `the request has no path parameter ${expression.name}` };
    }
    case 'body':
      return bodyValue(expression.of === 'request' ? context.request.body : context.response.body, expression);
  }
}

function bodyValue(
  body: unknown,
  expression: RuntimeExpression & { kind: 'body' },
): { found: true; value: unknown } | { found: false; why: string } {
  if (body === undefined) return { found: false, why: `the ${expression.of} has no body` };
  let node = body;
  let walked = '';
  for (const raw of expression.pointer ?? []) {
    walked += `/${raw}`;
    const next = step(node, raw);
    if (next === undefined) return { found: false, why: `the ${expression.of} body has nothing at #${walked}` };
    node = next;
  }
  return { found: true, value: node };
}

/** One pointer step; undefined when there is nothing there (an index is digits with no leading zero, RFC 6901 §4). */
function step(node: unknown, raw: string): unknown {
  if (Array.isArray(node)) {
    const token = /^(0|[1-9]\d*)$/.test(raw) ? raw : percentDecoded(raw);
    return token !== undefined && /^(0|[1-9]\d*)$/.test(token) ? (node as unknown[])[Number(token)] : undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const plain = unescape(raw);
  if (Object.hasOwn(node, plain)) return (node as Record<string, unknown>)[plain];
  const decoded = raw.includes('%') ? percentDecoded(raw) : undefined;
  const key = decoded === undefined ? undefined : unescape(decoded);
  return key !== undefined && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
}

/**
 * A value as text: a string as it is, anything else as JSON (a number as its digits). Null is no
 * value. The bodies are parsed JSON, but a caller's value that JSON cannot write (a cycle, a
 * BigInt) is a reason like any other, never a throw.
 */
function asText(source: string, value: unknown): Evaluated {
  if (value === null) return { ok: false, reason: `{${source}} is null` };
  if (typeof value === 'string') return { ok: true, value };
  try {
    const json: unknown = JSON.stringify(value);
    if (typeof json === 'string') return { ok: true, value: json };
  } catch {
    // Reported below.
  }
  return { ok: false, reason: `{${source}} is not a JSON value` };
}

/** Evaluates one expression (`$request.query.url`, no braces) to text. */
export function evaluateExpression(text: string, context: ExpressionContext): Evaluated {
  const parsed = parseExpression(text);
  if (!parsed.ok) return parsed;
  const found = valueOf(parsed.expression, context);
  return found.found ? asText(text, found.value) : { ok: false, reason: `{${text}} names nothing: ${found.why}` };
}

/**
 * A callback key with each expression replaced by its value. Values go in as they are, not
 * percent-encoded: the key `{$request.query.callbackUrl}/data` must give back the client's URL
 * whole. An expression that names nothing fails the whole template: a half-built URL would send
 * the callback somewhere nobody asked for.
 */
export function expandTemplate(template: string, context: ExpressionContext): Evaluated {
  const parsed = parseTemplate(template);
  return parsed.ok ? expandParts(parsed.parts, context) : parsed;
}

/** `expandTemplate` for a template parsed once (at start-up) and expanded on each request. */
export function expandParts(parts: readonly TemplatePart[], context: ExpressionContext): Evaluated {
  let out = '';
  for (const part of parts) {
    if ('text' in part) {
      out += part.text;
      continue;
    }
    const found = valueOf(part.expression, context);
    if (!found.found) return { ok: false, reason: `{${part.source}} names nothing: ${found.why}` };
    const text = asText(part.source, found.value);
    if (!text.ok) return text;
    out += text.value;
  }
  return { ok: true, value: out };
}
