import { bodyMatcherHolds, bodyMatchers, queryValues, stringTest, type StringMatcher } from '../journal/patterns.js';
import type { RuleDefinition, RuleRequest } from './rule.js';

type Check = (request: RuleRequest) => boolean;

const never = (): boolean => false;
/** A matcher's test; one whose regular expression does not compile (refused by `parseRule`) matches nothing. */
const testOf = (matcher: StringMatcher): ((value: string) => boolean) => stringTest(matcher) ?? never;

/**
 * The test a rule makes of a request, compiled once when the rule is stored: every field of `match`
 * given must hold (the same string and body matchers as the journal's patterns), and the caller's
 * sandbox clock must be within `from` (inclusive) and `until` (exclusive). The key, the operation
 * and the method are checked first: they are cheap, and most rules are scoped by them.
 */
export function ruleTest(definition: RuleDefinition): Check {
  const { match, pathTemplates, from, until } = definition;
  const checks: Check[] = [];
  const { key, workspace, operationId, method, path } = match;
  if (key !== undefined) checks.push((r) => r.keyId === key);
  if (workspace !== undefined) checks.push((r) => r.workspace === workspace);
  if (operationId !== undefined) checks.push((r) => r.operationId === operationId);
  if (method !== undefined) checks.push((r) => r.method === method);
  if (pathTemplates !== undefined) {
    const templates = new Set(pathTemplates);
    checks.push((r) => templates.has(r.pathTemplate));
  } else if (path !== undefined) checks.push((r) => r.path === path);
  if (from !== undefined) checks.push((r) => r.now >= from);
  if (until !== undefined) checks.push((r) => r.now < until);
  for (const [name, matcher] of Object.entries(match.query ?? {})) {
    const test = testOf(matcher);
    // Per query parameter: one of its values must match, as in the journal's patterns.
    checks.push((r) => queryValues(r.query, name).some(test));
  }
  for (const [name, matcher] of Object.entries(match.headers ?? {})) {
    const test = testOf(matcher);
    checks.push((r) => {
      const value = r.headers[name];
      return value !== undefined && test(value);
    });
  }
  for (const matcher of bodyMatchers(match.body)) checks.push((r) => r.body !== undefined && bodyMatcherHolds(matcher, r.body));
  return (request) => checks.every((check) => check(request));
}
