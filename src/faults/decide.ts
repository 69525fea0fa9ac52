import type { Applied, Delivery, Fault } from '../vocabulary/exchange.js';
import type { Draws } from './draws.js';
import type { FaultSpec, WireFaultSpec } from './fault-spec.js';
import { drawDelay } from './latency.js';
import type { FaultSettings } from './settings.js';

/** Where a setting can come from, highest first. */
export const FAULT_SOURCES = ['request', 'rule', 'document', 'config'] as const;
export type FaultSource = (typeof FAULT_SOURCES)[number];

/**
 * Each source's settings, already read (undefined: it says nothing): the request's `Prefer`, the
 * admin rule that matched, the operation's document extensions (layered over the root's), the config.
 */
export type FaultSources = Partial<Readonly<Record<FaultSource, FaultSettings | undefined>>>;

/** The limits the configuration puts on every source (the `faults` section minus its defaults). */
export interface FaultPolicy {
  readonly allowClientChoice: boolean;
  readonly timeoutCapMs: number;
  readonly maxDelayMs: number;
}

export interface FaultDecision {
  /** How the edge delivers the answer; absent: at once and whole. */
  readonly delivery?: Delivery;
  /** An error status drawn from the fault list: the pipeline answers it instead of the operation's own. */
  readonly status?: number;
  /** What was applied, for the journal (`delayMs` only when above 0). */
  readonly applied: Pick<Applied, 'delayMs' | 'fault'>;
  /** Which source decided the latency and the faults, when one did (`request`: say so in Preference-Applied). */
  readonly decidedBy: { readonly latency?: FaultSource; readonly faults?: FaultSource };
}

/** Nothing to do: the answer as it is. */
export const NO_DECISION: FaultDecision = Object.freeze({ applied: Object.freeze({}), decidedBy: Object.freeze({}) });

/**
 * What to do to one answer. Precedence, field by field: request > rule > document > config (a
 * request's own choice only when the policy allows it). When some source sets latency or faults,
 * exactly three draws are taken from the key's stream (two for the delay, one for the fault), so the
 * same seed and key give the same sequence of decisions, and the delays' sequence does not shift
 * when the fault list changes. Delays and dribbles are capped at `maxDelayMs`, timeouts at `timeoutCapMs`.
 */
export function decide(sources: FaultSources, draws: Draws, policy: FaultPolicy): FaultDecision {
  const request = policy.allowClientChoice ? sources.request : undefined;
  const [latency, latencyFrom] = pick(request?.latency, sources.rule?.latency, sources.document?.latency, sources.config?.latency);
  const [faults, faultsFrom] = pick(request?.faults, sources.rule?.faults, sources.document?.faults, sources.config?.faults);
  if (latency === undefined && faults === undefined) return NO_DECISION;

  // Three draws, whichever sources are set: drawDelay takes two, the fault list one.
  let drawn = 0;
  if (latency === undefined) {
    draws.next();
    draws.next();
  } else drawn = drawDelay(latency, draws);
  const delayMs = Math.min(drawn, policy.maxDelayMs);
  const u = draws.next();
  const chosen = faults === undefined ? undefined : choose(faults, u);
  const decidedBy = { ...(latencyFrom && { latency: latencyFrom }), ...(faultsFrom && { faults: faultsFrom }) };
  if (chosen !== undefined && 'status' in chosen) {
    return {
      ...(delayMs > 0 ? { delivery: { delayMs, fault: undefined } } : {}),
      status: chosen.status,
      applied: delayMs > 0 ? { delayMs } : {},
      decidedBy,
    };
  }
  const fault = chosen === undefined ? undefined : onTheWire(chosen, policy);
  if (delayMs === 0 && fault === undefined) return { applied: {}, decidedBy };
  return {
    delivery: { delayMs, fault },
    applied: { ...(delayMs > 0 ? { delayMs } : {}), ...(fault ? { fault: fault.kind } : {}) },
    decidedBy,
  };
}

/** The first value set, and where it came from (the four arguments in FAULT_SOURCES order). */
function pick<T>(...values: readonly (T | undefined)[]): [T | undefined, FaultSource | undefined] {
  for (const [index, value] of values.entries()) if (value !== undefined) return [value, FAULT_SOURCES[index]];
  return [undefined, undefined];
}

/** The entry whose share of [0, 1) holds `u`, or none (the share no entry takes). */
function choose(faults: readonly FaultSpec[], u: number): FaultSpec | undefined {
  let upTo = 0;
  for (const spec of faults) {
    upTo += spec.probability ?? 1;
    if (u < upTo) return spec;
  }
  return undefined;
}

function onTheWire(spec: WireFaultSpec, policy: FaultPolicy): Fault {
  switch (spec.fault) {
    case 'timeout':
      return { kind: 'timeout', capMs: Math.min(spec.capMs ?? policy.timeoutCapMs, policy.timeoutCapMs) };
    case 'dribble':
      return { kind: 'dribble', chunks: spec.chunks, durationMs: Math.min(spec.durationMs, policy.maxDelayMs) };
    default:
      return { kind: spec.fault };
  }
}
