import type { FaultKind } from '../vocabulary/exchange.js';
import { invalid, isFields, isMs, parsed, unknownField, type Fields, type Parsed } from './parsed.js';

/**
 * One entry of a fault list: a fault on the wire or an error status, each with the share of
 * requests it hits. The JSON shapes, the same in config, `x-understudy-faults` and admin rules:
 *
 *   { "fault": "connection_reset" | "empty_response" | "malformed_response" | "truncated_body", "probability"?: p }
 *   { "fault": "timeout", "capMs"?: ms, "probability"?: p }          capMs: at most faults.timeoutCapMs
 *   { "fault": "dribble", "chunks"?: n, "durationMs"?: ms, "probability"?: p }   default 5 chunks over 2000 ms
 *   { "status": 400..599, "probability"?: p }                         the operation answers that status
 *
 * `probability` is from 0 to 1 and defaults to 1. A list is read with one draw per request: the entries
 * take consecutive shares of [0, 1) in order, so `[{reset, 0.05}, {status 503, 0.1}, {dribble}]` resets
 * 5 % of requests, answers 503 to 10 % and dribbles the other 85 %. An entry after the shares reach 1
 * could never be chosen and is refused.
 */
export type FaultSpec = WireFaultSpec | StatusFaultSpec;

export type WireFaultSpec =
  | { readonly fault: 'connection_reset' | 'empty_response' | 'malformed_response' | 'truncated_body'; readonly probability?: number }
  | { readonly fault: 'timeout'; readonly capMs?: number; readonly probability?: number }
  | { readonly fault: 'dribble'; readonly chunks: number; readonly durationMs: number; readonly probability?: number };

export interface StatusFaultSpec {
  readonly status: number;
  readonly probability?: number;
}

/** Every fault kind, in the order docs/control-surface.md lists them. */
export const FAULT_KINDS = [
  'connection_reset',
  'empty_response',
  'malformed_response',
  'truncated_body',
  'timeout',
  'dribble',
] as const satisfies readonly FaultKind[];

// A compile-time check that the list above misses no kind of the vocabulary's Fault.
const everyKind: Record<FaultKind, true> = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, true])) as Record<FaultKind, true>;

export const isFaultKind = (value: unknown): value is FaultKind => typeof value === 'string' && Object.hasOwn(everyKind, value);

/** A dribble given without its numbers. */
export const DRIBBLE_DEFAULTS = { chunks: 5, durationMs: 2000 } as const;
/** Most pieces a dribble is cut into. */
const MAX_CHUNKS = 1000;
const KINDS = FAULT_KINDS.join(', ');

/**
 * Reads one fault entry: an object as above, or a bare kind (`"timeout"`, `"dribble"`), which is the
 * same as `{ fault: kind }`. A dribble's missing numbers get their defaults.
 */
export function parseFaultSpec(value: unknown, field: string): Parsed<FaultSpec> {
  if (typeof value === 'string') return parseFaultSpec({ fault: value }, field);
  if (!isFields(value)) return invalid(field, `must be { fault: ${KINDS} } or { status: 400..599 }, with an optional probability`);
  const { probability } = value;
  if (probability !== undefined && (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)))
    return invalid(`${field}.probability`, 'must be a number from 0 to 1');
  const share = probability === undefined ? {} : { probability };
  if ('status' in value) {
    const extra = unknownField(value, ['status', 'probability']);
    if (extra !== undefined) return invalid(`${field}.${extra}`, 'is not a field of a status fault (status, probability)');
    if (typeof value.status !== 'number' || !Number.isInteger(value.status) || value.status < 400 || value.status > 599)
      return invalid(`${field}.status`, 'must be an error status from 400 to 599');
    return parsed({ status: value.status, ...share });
  }
  if (!isFaultKind(value.fault)) return invalid(`${field}.fault`, `must be one of ${KINDS}`);
  return parseWireFault(value, value.fault, field, share);
}

function parseWireFault(value: Fields, kind: FaultKind, field: string, share: { probability?: number }): Parsed<FaultSpec> {
  const known = kind === 'timeout' ? ['capMs'] : kind === 'dribble' ? ['chunks', 'durationMs'] : [];
  const extra = unknownField(value, ['fault', 'probability', ...known]);
  if (extra !== undefined)
    return invalid(`${field}.${extra}`, `is not a field of a ${kind} fault (${['fault', 'probability', ...known].join(', ')})`);
  if (kind === 'timeout') {
    if (value.capMs === undefined) return parsed({ fault: kind, ...share });
    if (!isMs(value.capMs) || value.capMs === 0) return invalid(`${field}.capMs`, 'must be a whole number of milliseconds above 0');
    return parsed({ fault: kind, capMs: value.capMs, ...share });
  }
  if (kind === 'dribble') {
    const { chunks = DRIBBLE_DEFAULTS.chunks, durationMs = DRIBBLE_DEFAULTS.durationMs } = value;
    if (typeof chunks !== 'number' || !Number.isInteger(chunks) || chunks < 1 || chunks > MAX_CHUNKS)
      return invalid(`${field}.chunks`, `must be a whole number from 1 to ${MAX_CHUNKS}`);
    if (!isMs(durationMs)) return invalid(`${field}.durationMs`, 'must be a whole number of milliseconds, 0 or more');
    return parsed({ fault: kind, chunks, durationMs, ...share });
  }
  return parsed({ fault: kind, ...share });
}

/** Reads a fault list (see FaultSpec for how one draw picks an entry). */
export function parseFaultList(value: unknown, field: string): Parsed<readonly FaultSpec[]> {
  if (!Array.isArray(value)) return invalid(field, 'must be a list of faults');
  const list: FaultSpec[] = [];
  let taken = 0;
  for (const [index, item] of (value as readonly unknown[]).entries()) {
    // A little under 1, so that shares such as 0.1 + 0.2 + 0.7 count as all of it.
    if (taken >= 1 - 1e-9) return invalid(`${field}.${index}`, 'can never be chosen: the entries before it already take every request');
    const entry = parseFaultSpec(item, `${field}.${index}`);
    if (!entry.ok) return entry;
    list.push(entry.value);
    taken += entry.value.probability ?? 1;
  }
  return parsed(list);
}
