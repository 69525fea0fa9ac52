/**
 * Request patterns: which journal entries a QA check is about. Pure: a pattern is compiled once
 * (its regular expressions checked), then asked of entries, which say where they differ from it.
 */

import type { Violation } from '../vocabulary/errors.js';
import type { JournalEntry } from './entry.js';
import { readPath, type PathModel } from './path-match.js';

export type StringMatcher = { readonly equalTo: string } | { readonly contains: string } | { readonly matches: string };

/** The whole body as JSON, or the value at a JSON pointer (RFC 6901) in it. */
export type BodyMatcher = { readonly equalToJson: unknown } | { readonly pointer: string; readonly equalTo: unknown };

export interface RequestPattern {
  readonly method?: string;
  /**
   * The path exactly as received (percent-encoded, without the query), or a documented path
   * template (`/v1/pets/{petId}`): requests that reached one of its operations. Read as rules read
   * `match.path` (`readPath`).
   */
  readonly path?: string;
  /** A regular expression the whole path must match. */
  readonly pathPattern?: string;
  readonly operationId?: string;
  /** The key's safe id. */
  readonly key?: string;
  /** The caller's workspace. */
  readonly workspace?: string;
  readonly status?: number;
  /** Per query parameter: one of its values must match. */
  readonly query?: Readonly<Record<string, StringMatcher>>;
  /** Per header (any case): its value, as journaled (credentials redacted), must match. */
  readonly headers?: Readonly<Record<string, StringMatcher>>;
  /** Every matcher must hold of the request body, read as JSON. */
  readonly body?: BodyMatcher | readonly BodyMatcher[];
}

/** One way an entry is not what a pattern asks for. `actual` is absent when the entry has nothing there. */
export interface Difference {
  /** `method`, `path`, `operationId`, `key`, `workspace`, `status`, `query.<name>`, `headers.<name>`, `body`, `body<pointer>`. */
  readonly field: string;
  readonly expected: unknown;
  readonly actual?: unknown;
}

export interface CompiledPattern {
  readonly source: RequestPattern;
  /** Where the entry differs from the pattern: none when it matches. */
  differences(entry: JournalEntry): readonly Difference[];
  matches(entry: JournalEntry): boolean;
}

type Check = (entry: JournalEntry) => Difference | undefined;

export type Compiled =
  { readonly ok: true; readonly pattern: CompiledPattern } | { readonly ok: false; readonly violations: readonly Violation[] };

/** A regular expression over the whole value, as WireMock's `matches`: `\d+` does not match `a1`. */
function wholeValue(source: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    return undefined;
  }
}

/**
 * The pattern's checks, each reporting its own difference; its regular expressions, pointers and
 * path template (against `paths`, the served operations) are checked here, once, and reported as
 * violations at `at` (`body.pattern.pathPattern`).
 */
export function compilePattern(pattern: RequestPattern, at = 'body', paths?: PathModel): Compiled {
  const violations: Violation[] = [];
  const checks: Check[] = [];
  const regex = (source: string, where: string): RegExp => {
    const compiled = wholeValue(source);
    if (!compiled) violations.push({ location: `${at}.${where}`, message: NOT_A_REGEX });
    return compiled ?? /$^/;
  };
  const tested = (matcher: StringMatcher, where: string): ((value: string) => boolean) => {
    const test = stringTest(matcher);
    if (!test) violations.push({ location: `${at}.${where}.matches`, message: NOT_A_REGEX });
    return test ?? (() => false);
  };
  const same = (field: string, expected: unknown, read: (e: JournalEntry) => unknown): Check => {
    return (e) => {
      const actual = read(e);
      if (actual === expected) return undefined;
      return actual === undefined ? { field, expected } : { field, expected, actual };
    };
  };
  if (pattern.method !== undefined) checks.push(same('method', pattern.method.toUpperCase(), (e) => e.method));
  if (pattern.path !== undefined) {
    const check = pathCheck(pattern.path, paths);
    if (typeof check === 'string') violations.push({ location: `${at}.path`, message: check });
    else checks.push(check);
  }
  if (pattern.pathPattern !== undefined) {
    const re = regex(pattern.pathPattern, 'pathPattern');
    checks.push((e) => (re.test(e.path) ? undefined : { field: 'pathPattern', expected: pattern.pathPattern, actual: e.path }));
  }
  if (pattern.operationId !== undefined) checks.push(same('operationId', pattern.operationId, (e) => e.operationId));
  if (pattern.key !== undefined) checks.push(same('key', pattern.key, (e) => e.keyId));
  if (pattern.workspace !== undefined) checks.push(same('workspace', pattern.workspace, (e) => e.workspace));
  if (pattern.status !== undefined) checks.push(same('status', pattern.status, (e) => e.status));
  for (const [name, matcher] of Object.entries(pattern.query ?? {})) {
    const test = tested(matcher, `query.${name}`);
    checks.push((e) => {
      const values = queryValues(e.query, name);
      if (values.some(test)) return undefined;
      const field = `query.${name}`;
      return values.length === 0
        ? { field, expected: matcher }
        : { field, expected: matcher, actual: values.length === 1 ? values[0] : values };
    });
  }
  for (const [given, matcher] of Object.entries(pattern.headers ?? {})) {
    const name = given.toLowerCase();
    const test = tested(matcher, `headers.${given}`);
    checks.push((e) => {
      const value = e.request.headers[name];
      if (value !== undefined && test(value)) return undefined;
      return value === undefined
        ? { field: `headers.${name}`, expected: matcher }
        : { field: `headers.${name}`, expected: matcher, actual: value };
    });
  }
  bodyMatchers(pattern.body).forEach((matcher, i) => {
    if ('pointer' in matcher && !isJsonPointer(matcher.pointer)) {
      const where = Array.isArray(pattern.body) ? `body.${i}.pointer` : 'body.pointer';
      violations.push({ location: `${at}.${where}`, message: 'must be a JSON pointer: empty, or starting with /' });
    }
    checks.push(bodyCheck(matcher));
  });
  if (violations.length > 0) return { ok: false, violations };
  const differences = (entry: JournalEntry): readonly Difference[] => {
    const found: Difference[] = [];
    for (const check of checks) {
      const difference = check(entry);
      if (difference) found.push(difference);
    }
    return found;
  };
  const matches = (entry: JournalEntry): boolean => checks.every((check) => check(entry) === undefined);
  return { ok: true, pattern: { source: pattern, differences, matches } };
}

const NOT_A_REGEX = 'is not a valid regular expression';

/** The check of a pattern's `path`, or why it can never match. */
function pathCheck(path: string, paths: PathModel | undefined): Check | string {
  const read = readPath(path, paths ?? { operations: [], basePath: '' });
  if (!read.ok) return read.message;
  if (read.match.kind === 'exact') {
    return (e) => (e.path === path ? undefined : { field: 'path', expected: path, actual: e.path });
  }
  // An entry names the operation it reached: one of the template's operations is a request to it.
  const ids = new Set(read.match.operations.map((op) => op.id));
  return (e) => (e.operationId !== undefined && ids.has(e.operationId) ? undefined : { field: 'path', expected: path, actual: e.path });
}

const isMatcherList = (body: BodyMatcher | readonly BodyMatcher[]): body is readonly BodyMatcher[] => Array.isArray(body);

/** A pattern's (or a rule's) body matchers as a list: none, one, or the list given. */
export const bodyMatchers = (body: BodyMatcher | readonly BodyMatcher[] | undefined): readonly BodyMatcher[] =>
  body === undefined ? [] : isMatcherList(body) ? body : [body];

/** A JSON pointer (RFC 6901 §3): empty (the whole document), or starting with `/`. */
export const isJsonPointer = (text: string): boolean => /^(\/.*)?$/su.test(text);

/**
 * The test a string matcher makes of a value (its regular expression compiled once, over the whole
 * value), or undefined when its `matches` is not a valid regular expression. Shared by journal
 * patterns and admin rules, so both read `{equalTo}`, `{contains}` and `{matches}` alike.
 */
export function stringTest(matcher: StringMatcher): ((value: string) => boolean) | undefined {
  if ('equalTo' in matcher) return (value) => value === matcher.equalTo;
  if ('contains' in matcher) return (value) => value.includes(matcher.contains);
  const re = wholeValue(matcher.matches);
  return re && ((value) => re.test(value));
}

/** The decoded values of one query parameter (`+` as a space, as forms send it). */
export function queryValues(query: string, name: string): string[] {
  if (query === '') return [];
  try {
    return new URLSearchParams(query).getAll(name);
  } catch {
    return [];
  }
}

const NOT_JSON = Symbol('not JSON');

/** The request body as JSON, or `NOT_JSON` when it is absent, cut, binary or not JSON. */
function bodyJson(entry: JournalEntry): unknown {
  const body = entry.request.body;
  if (!body || body.truncated || body.encoding === 'base64') return NOT_JSON;
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function bodyCheck(matcher: BodyMatcher): Check {
  if ('equalToJson' in matcher) {
    return (e) => {
      const actual = bodyJson(e);
      if (actual !== NOT_JSON && bodyMatcherHolds(matcher, actual)) return undefined;
      return actual === NOT_JSON
        ? { field: 'body', expected: matcher.equalToJson }
        : { field: 'body', expected: matcher.equalToJson, actual };
    };
  }
  const field = `body${matcher.pointer}`;
  return (e) => {
    const json = bodyJson(e);
    if (json !== NOT_JSON && bodyMatcherHolds(matcher, json)) return undefined;
    const actual = json === NOT_JSON ? undefined : pointerValue(json, matcher.pointer);
    return actual === undefined ? { field, expected: matcher.equalTo } : { field, expected: matcher.equalTo, actual };
  };
}

/** Whether a body matcher holds of a body read as JSON: equal to the whole of it, or to the value at its pointer. */
export function bodyMatcherHolds(matcher: BodyMatcher, json: unknown): boolean {
  if ('equalToJson' in matcher) return jsonEqual(json, matcher.equalToJson);
  const actual = pointerValue(json, matcher.pointer);
  return actual !== undefined && jsonEqual(actual, matcher.equalTo);
}

/** The value at a JSON pointer (RFC 6901 §4: `~1` is `/`, `~0` is `~`), or undefined. */
export function pointerValue(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else return undefined;
  }
  return node;
}

/** JSON equality: objects by their members in any order, arrays in order, numbers by value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item: unknown, i) => jsonEqual(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const left = Object.entries(a).filter(([, v]) => v !== undefined);
  const right = new Map(Object.entries(b).filter(([, v]) => v !== undefined));
  return left.length === right.size && left.every(([k, v]) => right.has(k) && jsonEqual(v, right.get(k)));
}
