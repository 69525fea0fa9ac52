import type { FaultSpec } from './fault-spec.js';
import { FAULT_KINDS, isFaultKind, parseFaultList, parseFaultSpec } from './fault-spec.js';
import { parseLatency, type LatencyModel } from './latency.js';
import { invalid, isFields, isMs, parsed, type Parsed } from './parsed.js';

/**
 * What one source says about latency and faults. A field left out leaves the decision to the sources
 * below it; `faults: []` says "no faults" and overrides them (as `latency: { fixed: 0 }` does for delays).
 */
export interface FaultSettings {
  readonly latency?: LatencyModel;
  readonly faults?: readonly FaultSpec[];
}

/** The `faults` section of the configuration. */
export interface FaultsConfig {
  /** Honour `Prefer: delay=` and `Prefer: fault=` from clients (off for a shared sandbox). */
  readonly allowClientChoice: boolean;
  /** The longest a `timeout` fault holds a connection before closing it. */
  readonly timeoutCapMs: number;
  /** The longest delay, and the longest dribble, from any source. */
  readonly maxDelayMs: number;
  /** The default latency for every operation, or null for none. */
  readonly latency: LatencyModel | null;
  /** The default faults for every operation. */
  readonly faults: readonly FaultSpec[];
}

/** The configuration's defaults as a source, or undefined when it sets none (the common case). */
export function configSettings(config: FaultsConfig): FaultSettings | undefined {
  if (config.latency === null && config.faults.length === 0) return undefined;
  return {
    ...(config.latency === null ? {} : { latency: config.latency }),
    ...(config.faults.length === 0 ? {} : { faults: config.faults }),
  };
}

/**
 * The settings one node of the document gives (the document root, or an operation): its
 * `x-understudy-latency` (a latency model), `x-understudy-faults` (a fault list) and Microcks's
 * `x-microcks-operation: { delay: ms }` (a fixed delay; `x-understudy-latency` wins when both are
 * there, and a Microcks delay of 0, its default, sets nothing). Undefined when it has none. `field`
 * names the node in errors (`GET /pets`).
 */
export function documentSettings(node: unknown, field: string): Parsed<FaultSettings | undefined> {
  if (!isFields(node)) return parsed(undefined);
  let latency: LatencyModel | undefined;
  const own = node['x-understudy-latency'];
  const microcks = node['x-microcks-operation'];
  if (own !== undefined) {
    const read = parseLatency(own, `${field} x-understudy-latency`);
    if (!read.ok) return read;
    latency = read.value;
  } else if (isFields(microcks) && microcks.delay !== undefined) {
    if (!isMs(microcks.delay)) return invalid(`${field} x-microcks-operation.delay`, 'must be a whole number of milliseconds, 0 or more');
    if (microcks.delay > 0) latency = { fixed: microcks.delay };
  }
  let faults: readonly FaultSpec[] | undefined;
  if (node['x-understudy-faults'] !== undefined) {
    const read = parseFaultList(node['x-understudy-faults'], `${field} x-understudy-faults`);
    if (!read.ok) return read;
    faults = read.value;
  }
  if (latency === undefined && faults === undefined) return parsed(undefined);
  return parsed({ ...(latency === undefined ? {} : { latency }), ...(faults === undefined ? {} : { faults }) });
}

/** An operation's settings over the document root's, field by field (compile once per operation). */
export function layered(operation: FaultSettings | undefined, root: FaultSettings | undefined): FaultSettings | undefined {
  if (operation === undefined || root === undefined) return operation ?? root;
  return { ...root, ...operation };
}

/** The value of `Prefer: delay=<ms>` (RFC 7240 preference), as a fixed latency. */
export function parsePreferredDelay(value: string): Parsed<LatencyModel> {
  if (!/^\d{1,9}$/.test(value)) return invalid('delay', 'must be a whole number of milliseconds, 0 or more');
  return parsed({ fixed: Number(value) });
}

/**
 * The value of `Prefer: fault=<kind>`: a fault kind, chosen for this request (probability 1). A
 * dribble gets its defaults (5 chunks over 2000 ms); a timeout is held up to `faults.timeoutCapMs`.
 */
export function parsePreferredFault(value: string): Parsed<FaultSpec> {
  if (!isFaultKind(value)) return invalid('fault', `must be one of ${FAULT_KINDS.join(', ')}`);
  return parseFaultSpec(value, 'fault');
}

/** A request's preferences as a source: undefined when it prefers neither. */
export function requestSettings(delay: LatencyModel | undefined, fault: FaultSpec | undefined): FaultSettings | undefined {
  if (delay === undefined && fault === undefined) return undefined;
  return { ...(delay === undefined ? {} : { latency: delay }), ...(fault === undefined ? {} : { faults: [fault] }) };
}
