import { parseFaultList, parseFaultSpec, type FaultSpec } from '../faults/fault-spec.js';
import { parseLatency, type LatencyModel } from '../faults/latency.js';
import { readPath } from '../journal/path-match.js';
import { bodyMatchers, isJsonPointer, stringTest, type StringMatcher } from '../journal/patterns.js';
import type { Violation } from '../vocabulary/errors.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { parseRespond } from './parse-respond.js';
import type { RuleDefinition, RuleMatch } from './rule.js';
import { addParsed, problems, type Problems, type RuleInput, type RuleModel } from './rule-input.js';

export type ParsedRule =
  { readonly ok: true; readonly rule: RuleDefinition } | { readonly ok: false; readonly violations: readonly Violation[] };

/**
 * Checks a rule against the document and the keys, reporting every problem at once, each at its
 * field (`body.match.operationId`, `body.respond.status`, `body.latency.uniform.1`, `body.until`):
 * an unknown operation, a path or method no operation has, an unknown key, a regular expression or
 * JSON pointer that does not compile, a status or example some operation the rule can match does
 * not declare, a body its response schema refuses, a malformed latency or fault, `from` not before
 * `until`, a rule that does nothing.
 *
 * `match.path` is read as journal patterns read `path` (`readPath`): the request path as sent
 * (`/v1/pets/1`: requests to exactly that path), or a documented path template, with or without the
 * base path (`/v1/pets/{petId}`, `/pets/{id}`: requests to any value of its parameters).
 */
export function parseRule(input: RuleInput, model: RuleModel, at = 'body'): ParsedRule {
  const found = problems(at);
  const { match, pathTemplates, candidates } = parseMatch(input.match, model, found);
  const respond = input.respond && candidates && parseRespond(input.respond, candidates, model.document, found);
  let latency: LatencyModel | undefined;
  if (input.latency !== undefined) {
    const read = parseLatency(input.latency, `${at}.latency`);
    if (read.ok) latency = read.value;
    else addParsed(found, read.error);
  }
  let fault: FaultSpec | readonly FaultSpec[] | undefined;
  if (input.fault !== undefined) {
    const read = Array.isArray(input.fault) ? parseFaultList(input.fault, `${at}.fault`) : parseFaultSpec(input.fault, `${at}.fault`);
    if (read.ok) fault = read.value;
    else addParsed(found, read.error);
  }
  if (input.respond === undefined && input.latency === undefined && input.fault === undefined) {
    found.add('', 'a rule needs respond, latency or fault: it would change nothing');
  }
  const from = instant(input.from, 'from', found);
  const until = instant(input.until, 'until', found);
  if (from !== undefined && until !== undefined && from >= until) found.add('until', `must be after from (${input.from ?? ''})`);
  if (found.list.length > 0) return { ok: false, violations: found.list };
  const rule: RuleDefinition = {
    match,
    ...(pathTemplates && { pathTemplates }),
    ...(respond && { respond }),
    ...(latency && { latency }),
    ...(fault && { fault }),
    ...(input.probability !== undefined && { probability: input.probability }),
    ...(input.times !== undefined && { times: input.times }),
    ...(from !== undefined && { from }),
    ...(until !== undefined && { until }),
  };
  return { ok: true, rule };
}

interface MatchRead {
  readonly match: RuleMatch;
  readonly pathTemplates: readonly string[] | undefined;
  /** The operations the rule can match, or undefined when the match itself is wrong. */
  readonly candidates: readonly OperationSpec[] | undefined;
}

function parseMatch(given: RuleInput['match'], model: RuleModel, found: Problems): MatchRead {
  const before = found.list.length;
  const method = given.method?.toUpperCase();
  let candidates = model.operations;
  if (given.operationId !== undefined) {
    candidates = candidates.filter((op) => op.id === given.operationId);
    if (candidates.length === 0) found.add('match.operationId', `no operation has this operationId`);
  }
  if (method !== undefined && !model.operations.some((op) => op.method === method)) {
    found.add('match.method', `no operation has the method ${method}`);
  }
  if (method !== undefined) candidates = candidates.filter((op) => op.method === method);
  let pathTemplates: readonly string[] | undefined;
  const read = given.path === undefined ? undefined : readPath(given.path, model);
  if (read !== undefined && !read.ok) found.add('match.path', read.message);
  else if (read?.match.kind === 'template') {
    const { templates, operations } = read.match;
    pathTemplates = templates;
    candidates = candidates.filter((op) => operations.includes(op));
  } else if (read?.match.kind === 'exact') {
    const reached = model.reached(read.match.path, undefined);
    if (reached.length === 0) found.add('match.path', 'no operation is served at this path');
    candidates = candidates.filter((op) => reached.includes(op));
  }
  if (found.list.length === before && candidates.length === 0) {
    found.add('match', 'operationId, method and path name no operation together');
  }
  // The answer is checked against these operations whatever else is wrong with the match.
  const named = found.list.length === before;
  let key: string | undefined;
  if (given.key !== undefined) {
    key = model.keyId(given.key);
    if (key === undefined) found.add('match.key', 'no key has this value or id');
  }
  if (given.workspace !== undefined && !model.hasWorkspace(given.workspace)) found.add('match.workspace', 'no workspace has this id');
  const query = matchers(given.query, 'match.query', found, false);
  const headers = matchers(given.headers, 'match.headers', found, true);
  bodyMatchers(given.body).forEach((matcher, i) => {
    if ('pointer' in matcher && !isJsonPointer(matcher.pointer)) {
      found.add(
        Array.isArray(given.body) ? `match.body.${i}.pointer` : 'match.body.pointer',
        'must be a JSON pointer: empty, or starting with /',
      );
    }
  });
  const match: RuleMatch = {
    ...(given.operationId !== undefined && { operationId: given.operationId }),
    ...(method !== undefined && { method }),
    ...(given.path !== undefined && { path: given.path }),
    ...(key !== undefined && { key }),
    ...(given.workspace !== undefined && { workspace: given.workspace }),
    ...(query && { query }),
    ...(headers && { headers }),
    ...(given.body !== undefined && { body: given.body }),
  };
  return { match, pathTemplates, candidates: named ? candidates : undefined };
}

/**
 * Query or header matchers, their regular expressions checked; header names in lower case. A rule
 * never matches on `Authorization`: it names keys by `match.key`, and keeps no credential.
 */
function matchers(
  given: Readonly<Record<string, StringMatcher>> | undefined,
  where: string,
  found: Problems,
  headers: boolean,
): Readonly<Record<string, StringMatcher>> | undefined {
  if (given === undefined) return undefined;
  const out: Record<string, StringMatcher> = {};
  for (const [name, matcher] of Object.entries(given)) {
    const key = headers ? name.toLowerCase() : name;
    if (headers && key === 'authorization') found.add(`${where}.${name}`, 'is not matched by rules: scope a rule to a key with match.key');
    if (stringTest(matcher) === undefined) found.add(`${where}.${name}.matches`, 'is not a valid regular expression');
    out[key] = matcher;
  }
  return out;
}

/** An ISO 8601 date-time as Unix ms (the document checks the format; this reads it). */
function instant(text: string | undefined, field: string, found: Problems): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) found.add(field, 'must be an ISO 8601 date-time, e.g. 2026-11-22T10:05:00Z');
  return Number.isNaN(ms) ? undefined : ms;
}
