import { decide, NO_DECISION, type FaultDecision } from '../faults/decide.js';
import type { FaultSpec } from '../faults/fault-spec.js';
import type { LatencyModel } from '../faults/latency.js';
import { parsePreferredDelay, parsePreferredFault, requestSettings } from '../faults/settings.js';
import type { PreparedOperation } from '../generation/generation.js';
import type { Force } from '../mock/forced-answer.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Applied } from '../vocabulary/exchange.js';
import { preferenceApplied, readPreferences, type Preferences } from './preferences.js';
import type { SurfaceFaults } from './surface.js';

/** What a valid request asks of its answer beyond the document: a forced status or example, a delay, a fault. */
export interface Shaping {
  /** The answer to force, when the request or a drawn fault forces one. */
  readonly force: Force | undefined;
  readonly faults: FaultDecision;
  /** The preferences this request gave (for Preference-Applied). */
  readonly preferences: Preferences;
}

const NOTHING: Shaping = Object.freeze({ force: undefined, faults: NO_DECISION, preferences: Object.freeze({}) });

/**
 * Reads the request's preferences (RFC 7240 `Prefer`, Postman's headers, the `__code` query
 * fallbacks) and decides latency and faults (request > rule > document > config). A malformed
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
  const sources = { request, document: prepared.faults, config: faults?.defaults };
  const decision =
    faults && (sources.request || sources.document || sources.config)
      ? decide(sources, faults.draws.stream(drawKey), faults.policy)
      : NO_DECISION;
  const code = preferences.code ?? decision.status;
  const forced =
    code !== undefined || preferences.example !== undefined || preferences.dynamic !== undefined || preferences.seed !== undefined;
  if (!forced && decision === NO_DECISION && preferences.delay === undefined && preferences.fault === undefined) return NOTHING;
  const force: Force | undefined = forced
    ? {
        ...(code === undefined ? {} : { code }),
        ...(preferences.example === undefined ? {} : { example: preferences.example }),
        ...(preferences.dynamic === undefined ? {} : { dynamic: preferences.dynamic }),
        ...(preferences.seed === undefined ? {} : { seed: preferences.seed }),
      }
    : undefined;
  return { force, faults: decision, preferences };
}

const invalid = (message: string): ErrorBody =>
  errorBody('invalid_preference', `Invalid preference: ${message}`, [{ location: 'header.prefer', message }]);

/**
 * `Preference-Applied` (RFC 7240 §3) for what was applied: the forced answer's preferences, and the
 * request's own delay or fault when they decided (a rule or the document may have overridden neither).
 */
export function appliedHeader(shaping: Shaping, forced: Force | undefined): string | undefined {
  const { preferences, faults } = shaping;
  // A status drawn from a fault list was not preferred: it is not named.
  const { code, ...rest } = forced ?? {};
  const applied: Preferences = {
    ...rest,
    ...(code !== undefined && preferences.code === code ? { code } : {}),
    ...(faults.decidedBy.latency === 'request' && preferences.delay !== undefined ? { delay: preferences.delay } : {}),
    ...(faults.decidedBy.faults === 'request' && preferences.fault !== undefined ? { fault: preferences.fault } : {}),
  };
  return preferenceApplied(applied);
}

/** What the journal records as applied to the answer. */
export function appliedRecord(preference: string | undefined, faults: FaultDecision): Applied | undefined {
  const { delayMs, fault } = faults.applied;
  if (preference === undefined && delayMs === undefined && fault === undefined && faults.status === undefined) return undefined;
  return {
    ...(preference === undefined ? {} : { preference }),
    ...faults.applied,
    ...(faults.status === undefined ? {} : { injectedStatus: faults.status }),
  };
}
