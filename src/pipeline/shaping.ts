import { decide, NO_DECISION, type FaultDecision } from '../faults/decide.js';
import type { FaultSpec } from '../faults/fault-spec.js';
import type { LatencyModel } from '../faults/latency.js';
import { parsePreferredDelay, parsePreferredFault, requestSettings } from '../faults/settings.js';
import type { PreparedOperation } from '../generation/generation.js';
import type { Force } from '../mock/forced-answer.js';
import type { Rule, RuleRequest, RuleRespond } from '../rules/rule.js';
import type { RuleLookup } from '../rules/rule-store.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Applied } from '../vocabulary/exchange.js';
import { preferenceApplied, readPreferences, type Preferences } from './preferences.js';
import type { SurfaceFaults } from './surface.js';

/** What a valid request asks of its answer beyond the document: a forced status or example, a delay, a fault. */
export interface Shaping {
  /** The answer to force, when the request, an admin rule or a drawn fault forces one. */
  readonly force: Force | undefined;
  /** Where the forced status came from: the request's own preference, the rule's `respond`, or a fault list's draw. */
  readonly codeFrom?: 'request' | 'rule' | 'fault';
  readonly faults: FaultDecision;
  /** The preferences this request gave (for Preference-Applied). */
  readonly preferences: Preferences;
  /** The admin rule that applied, if one did. */
  readonly rule?: Rule;
  /** The rule's answer, when its status is the one answered: its body and headers go on the answer. */
  readonly ruleAnswer?: RuleRespond;
}

/** The admin rules to try on a request; undefined when there are none (then nothing about rules is done). */
export interface RuleCandidates {
  readonly store: RuleLookup;
  readonly request: RuleRequest;
}

const NOTHING: Shaping = Object.freeze({ force: undefined, faults: NO_DECISION, preferences: Object.freeze({}) });

/**
 * Reads the request's preferences (RFC 7240 `Prefer`, Postman's headers, the `__code` query
 * fallbacks), picks the admin rule that applies (`chooseRule`), and decides latency and faults
 * (request > rule > document > config). The status answered is, first given: the request's
 * `code`; a status drawn from the request's or the rule's fault list; the rule's `respond.status`;
 * a status drawn from the document's or the config's fault list. A malformed
 * preference is a 400 `invalid_preference`; `delay` and `fault` preferences are read only where the
 * config lets clients choose them (otherwise ignored, malformed or not). Most requests prefer
 * nothing and no source sets faults: they get the shared NOTHING, with nothing allocated.
 */
export function shapeRequest(
  headers: Readonly<Record<string, string | undefined>>,
  rawQuery: string,
  prepared: PreparedOperation,
  faults: SurfaceFaults | undefined,
  drawKey: string,
  rules?: RuleCandidates,
): Shaping | ErrorBody {
  const read = readPreferences(headers, rawQuery);
  if (!read.ok) return read.error;
  const preferences = read.preferences;
  let request: ReturnType<typeof requestSettings>;
  if (faults?.policy.allowClientChoice && (preferences.delay !== undefined || preferences.fault !== undefined)) {
    let delay: LatencyModel | undefined;
    let fault: FaultSpec | undefined;
    if (preferences.delay !== undefined) {
      const parsed = parsePreferredDelay(preferences.delay);
      if (!parsed.ok) return invalid(parsed.error);
      delay = parsed.value;
    }
    if (preferences.fault !== undefined) {
      const parsed = parsePreferredFault(preferences.fault);
      if (!parsed.ok) return invalid(parsed.error);
      fault = parsed.value;
    }
    request = requestSettings(delay, fault);
  }
  const rule = rules && chooseRule(rules, preferences, faults, drawKey);
  const sources = { request, rule: rule?.faults, document: prepared.faults, config: faults?.defaults };
  const decision =
    faults && (sources.request || sources.rule || sources.document || sources.config)
      ? decide(sources, faults.draws.stream(drawKey), faults.policy)
      : NO_DECISION;
  const respond = rule?.respond !== undefined && !respondOverridden(preferences) ? rule.respond : undefined;
  let code = preferences.code;
  let codeFrom: Shaping['codeFrom'] = code === undefined ? undefined : 'request';
  if (code === undefined && decision.status !== undefined) {
    // A rule's own fault list outranks its `respond`; the document's and the config's do not.
    const ownDraw = decision.decidedBy.faults === 'request' || decision.decidedBy.faults === 'rule';
    if (ownDraw || respond === undefined) {
      code = decision.status;
      codeFrom = 'fault';
    }
  }
  if (code === undefined && respond !== undefined) {
    code = respond.status;
    codeFrom = 'rule';
  }
  const ruleAnswer = codeFrom === 'rule' ? respond : undefined;
  const example = preferences.example ?? ruleAnswer?.example;
  const forced = code !== undefined || example !== undefined || preferences.dynamic !== undefined || preferences.seed !== undefined;
  if (!forced && decision === NO_DECISION && preferences.delay === undefined && preferences.fault === undefined && rule === undefined) {
    return NOTHING;
  }
  const force: Force | undefined = forced
    ? {
        ...(code === undefined ? {} : { code }),
        ...(example === undefined ? {} : { example }),
        ...(preferences.dynamic === undefined ? {} : { dynamic: preferences.dynamic }),
        ...(preferences.seed === undefined ? {} : { seed: preferences.seed }),
      }
    : undefined;
  return {
    force,
    ...(codeFrom && { codeFrom }),
    faults: decision,
    preferences,
    ...(rule && { rule }),
    ...(ruleAnswer && { ruleAnswer }),
  };
}

/** A preferred `code` or `example` overrides a rule's whole `respond` (its example, body and headers with it): request > rule. */
const respondOverridden = (preferences: Preferences): boolean => preferences.code !== undefined || preferences.example !== undefined;

/**
 * The admin rule that applies to the request: newest first, the first that matches, still changes
 * something the request's own preferences leave to it (request > rule, effect by effect), and wins
 * its `probability` draw, from a stream of its own per rule and caller, so that a rule's draws
 * neither shift the caller's latency and fault draws nor depend on other callers.
 */
function chooseRule(rules: RuleCandidates, preferences: Preferences, faults: SurfaceFaults | undefined, drawKey: string): Rule | undefined {
  const clientChoice = faults?.policy.allowClientChoice === true;
  const respond = !respondOverridden(preferences);
  const latency = !(clientChoice && preferences.delay !== undefined);
  const fault = !(clientChoice && preferences.fault !== undefined);
  return rules.store.apply(rules.request, {
    wanted: (rule) =>
      (rule.respond !== undefined && respond) || (rule.latency !== undefined && latency) || (rule.fault !== undefined && fault),
    draw: (rule) => faults?.draws.stream(`${rule.id}:${drawKey}`).next() ?? 0,
  });
}

const invalid = (message: string): ErrorBody =>
  errorBody('invalid_preference', `Invalid preference: ${message}`, [{ location: 'header.prefer', message }]);

/**
 * `Preference-Applied` (RFC 7240 §3) for what was applied: the forced answer's preferences, and the
 * request's own delay or fault when they decided (a rule or the document may have overridden neither),
 * the delay as applied: `Prefer: delay=5000` under a `maxDelayMs` of 200 is applied as `delay=200`.
 */
export function appliedHeader(shaping: Shaping, forced: Force | undefined): string | undefined {
  const { preferences, faults } = shaping;
  // A status drawn from a fault list, or a rule's status or example, was not preferred: it is not named.
  const { code, example, ...rest } = forced ?? {};
  const applied: Preferences = {
    ...rest,
    ...(code !== undefined && preferences.code === code ? { code } : {}),
    ...(example !== undefined && preferences.example === example ? { example } : {}),
    // The delay as applied (RFC 7240 §3), which `faults.maxDelayMs` may have cut short of the one preferred.
    ...(faults.decidedBy.latency === 'request' && preferences.delay !== undefined ? { delay: String(faults.applied.delayMs ?? 0) } : {}),
    ...(faults.decidedBy.faults === 'request' && preferences.fault !== undefined ? { fault: preferences.fault } : {}),
  };
  return preferenceApplied(applied);
}

/**
 * What the journal records as applied to the answer: the preferences, the admin rule, the delay, the
 * fault, and a status drawn from a fault list when it is the one answered.
 */
export function appliedRecord(preference: string | undefined, shaping: Shaping): Applied | undefined {
  const { faults, rule } = shaping;
  const { delayMs, fault } = faults.applied;
  const injected = shaping.codeFrom === 'fault' ? faults.status : undefined;
  if (preference === undefined && rule === undefined && delayMs === undefined && fault === undefined && injected === undefined) {
    return undefined;
  }
  return {
    ...(preference === undefined ? {} : { preference }),
    ...(rule === undefined ? {} : { rule: rule.id }),
    ...faults.applied,
    ...(injected === undefined ? {} : { injectedStatus: injected }),
  };
}
