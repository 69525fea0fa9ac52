import { isObject } from '../openapi/json-pointer.js';
import { errorBody, type ErrorBody, type Violation } from '../vocabulary/errors.js';
import type { MediaSpec, OperationSpec, ParameterLocation } from '../vocabulary/operation.js';
import { cookiePair, headerText, pathText, queryPairs, wholeQuery } from './parameter-text.js';
import type { PlainRequest } from './target.js';

/** The arguments of an operation's tool: its parameters by location, its body, and what the caller adds. */
export const GROUPS = ['path', 'query', 'header', 'cookie'] as const;
type Group = (typeof GROUPS)[number];

/** What the caller sends beside the operation's own arguments: credentials, a `Prefer`. */
export interface Extra {
  readonly headers: Readonly<Record<string, string>>;
  readonly query: readonly string[];
  readonly cookies: readonly string[];
}

export type Built = { readonly kind: 'request'; readonly request: PlainRequest } | { readonly kind: 'invalid'; readonly error: ErrorBody };

/** The media type a tool's `body` is sent in: JSON when the operation takes it, else a form, else its first. */
export function bodyMedia(operation: OperationSpec): MediaSpec | undefined {
  const content = operation.requestBody?.content ?? [];
  return (
    content.find((m) => /^application\/(?:[\w.+-]*\+)?json$/.test(m.mediaType)) ??
    content.find((m) => m.mediaType === 'application/x-www-form-urlencoded') ??
    content[0]
  );
}

const groupOf = (location: ParameterLocation): Group => (location === 'querystring' ? 'query' : location);

/**
 * The request an operation's tool call makes: each argument where its parameter is (in its style),
 * the body in the operation's media type. What only the document can judge (types, bounds,
 * required query fields) is left to the sandbox, which reports every violation at once; what cannot
 * be placed at all (an argument of no group, a path parameter missing) is refused here, in the same shape.
 */
export function operationRequest(
  operation: OperationSpec,
  basePath: string,
  args: Readonly<Record<string, unknown>>,
  own: ReadonlySet<string>,
  extra: Extra,
): Built {
  const problems: Violation[] = [];
  const groups: Partial<Record<Group, Readonly<Record<string, unknown>>>> = {};
  for (const [name, value] of Object.entries(args)) {
    if ((GROUPS as readonly string[]).includes(name)) {
      // Header names are case-insensitive (RFC 9110 §5.1); the model keeps them in lower case.
      if (isObject(value)) groups[name as Group] = name === 'header' ? lowerKeys(value) : value;
      else if (value !== undefined) problems.push({ location: name, message: 'must be an object of parameters by name' });
    } else if (name === 'body') {
      if (operation.requestBody === undefined && value !== undefined)
        problems.push({ location: 'body', message: 'this operation takes no body' });
    } else if (!own.has(name)) {
      problems.push({
        location: name,
        message: `is not an argument of this tool (its arguments: ${[...own, ...GROUPS, 'body'].join(', ')})`,
      });
    }
  }
  const declared = new Map(operation.parameters.map((p) => [`${groupOf(p.in)}.${p.name}`, p]));
  let path = operation.pathTemplate;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const parameter of operation.parameters) {
    const value = groups[groupOf(parameter.in)]?.[parameter.name];
    if (value === undefined || value === null) {
      if (parameter.in === 'path') problems.push({ location: `path.${parameter.name}`, message: 'is required' });
      continue;
    }
    if (parameter.in === 'path') path = path.replaceAll(`{${parameter.name}}`, pathText(parameter, value));
    else if (parameter.in === 'query') query.push(...queryPairs(parameter, value));
    else if (parameter.in === 'querystring') query.push(wholeQuery(parameter, value));
    else if (parameter.in === 'header') headers[parameter.name.toLowerCase()] = headerText(parameter, value);
    else cookies.push(cookiePair(parameter, value));
  }
  // Arguments the document does not declare go as they are (a header such as Idempotency-Key); a
  // path has nowhere to put one.
  for (const group of GROUPS) {
    for (const [name, value] of Object.entries(groups[group] ?? {})) {
      if (declared.has(`${group}.${name}`) || value === undefined || value === null) continue;
      if (group === 'path') problems.push({ location: `path.${name}`, message: 'is not a path parameter of this operation' });
      else if (group === 'query') query.push(`${encodeURIComponent(name)}=${encodeURIComponent(plain(value))}`);
      else if (group === 'header') headers[name.toLowerCase()] = plain(value);
      else cookies.push(`${name}=${encodeURIComponent(plain(value))}`);
    }
  }
  if (problems.length > 0) {
    return {
      kind: 'invalid',
      error: errorBody('validation_failed', `Invalid tool arguments: ${problems.map((p) => p.location).join(', ')}`, problems),
    };
  }
  const body = args.body === undefined ? undefined : bodyText(bodyMedia(operation), args.body);
  const allCookies = [...cookies, ...extra.cookies];
  return {
    kind: 'request',
    request: {
      method: operation.method,
      path: `${basePath}${path}`,
      query: [...query, ...extra.query].join('&'),
      headers: {
        ...headers,
        ...extra.headers,
        ...(allCookies.length > 0 && { cookie: allCookies.join('; ') }),
        ...(body && { 'content-type': body.type }),
      },
      ...(body && { body: body.text }),
    },
  };
}

const lowerKeys = (value: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).map(([name, v]) => [name.toLowerCase(), v]));

const plain = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The body's text in the chosen media type: JSON, a form's members, or a string as it is. */
function bodyText(media: MediaSpec | undefined, value: unknown): { readonly type: string; readonly text: string } {
  const declared = media?.mediaType ?? 'application/json';
  // A range (`*/*`, `application/*`) names no one type to send: JSON is one it allows.
  const type = declared.includes('*') ? 'application/json' : declared;
  if (type === 'application/x-www-form-urlencoded' && isObject(value)) {
    const form = new URLSearchParams();
    for (const [name, member] of Object.entries(value)) if (member !== undefined) form.append(name, plain(member));
    return { type, text: form.toString() };
  }
  if (typeof value === 'string' && !type.includes('json')) return { type, text: value };
  return { type, text: JSON.stringify(value) };
}
