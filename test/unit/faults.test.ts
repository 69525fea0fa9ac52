import { describe, expect, it } from 'vitest';
import { decide, NO_DECISION, type FaultPolicy, type FaultSources } from '../../src/faults/decide.js';
import { drawStream, type Draws } from '../../src/faults/draws.js';
import { parseFaultList, parseFaultSpec, type FaultSpec } from '../../src/faults/fault-spec.js';
import {
  configSettings,
  documentSettings,
  layered,
  parsePreferredDelay,
  parsePreferredFault,
  requestSettings,
  type FaultSettings,
} from '../../src/faults/settings.js';

const POLICY: FaultPolicy = { allowClientChoice: true, timeoutCapMs: 30_000, maxDelayMs: 30_000 };
const N = 20_000;

/** A stream that counts what is taken from it. */
function counting(draws: Draws = drawStream(1, 'key')): Draws & { taken: number } {
  const counted = {
    taken: 0,
    next: () => {
      counted.taken++;
      return draws.next();
    },
  };
  return counted;
}

const refused = (read: { ok: boolean; error?: string }): string => (read.ok ? '(accepted)' : (read.error ?? ''));

describe('parseFaultSpec', () => {
  it.each<[unknown, FaultSpec]>([
    ['timeout', { fault: 'timeout' }],
    ['connection_reset', { fault: 'connection_reset' }],
    [
      { fault: 'empty_response', probability: 0.05 },
      { fault: 'empty_response', probability: 0.05 },
    ],
    [
      { fault: 'timeout', capMs: 200 },
      { fault: 'timeout', capMs: 200 },
    ],
    ['dribble', { fault: 'dribble', chunks: 5, durationMs: 2000 }],
    [
      { fault: 'dribble', chunks: 3 },
      { fault: 'dribble', chunks: 3, durationMs: 2000 },
    ],
    [
      { status: 503, probability: 0.1 },
      { status: 503, probability: 0.1 },
    ],
    [{ status: 429 }, { status: 429 }],
  ])('reads %j', (value, expected) => {
    expect(parseFaultSpec(value, 'f')).toEqual({ ok: true, value: expected });
  });

  it.each([
    [5, 'f must be { fault:'],
    [{ fault: 'explode' }, 'f.fault must be one of connection_reset, empty_response'],
    ['explode', 'f.fault must be one of'],
    [{ status: 200 }, 'f.status must be an error status from 400 to 599'],
    [{ status: '503' }, 'f.status must be an error status'],
    [{ status: 503, probability: 1.5 }, 'f.probability must be a number from 0 to 1'],
    [{ fault: 'timeout', probability: 'often' }, 'f.probability must be a number from 0 to 1'],
    [{ status: 503, fault: 'timeout' }, 'f.fault is not a field of a status fault'],
    [{ fault: 'dribble', chunks: 0 }, 'f.chunks must be a whole number from 1 to 1000'],
    [{ fault: 'dribble', durationMs: -5 }, 'f.durationMs must be a whole number'],
    [{ fault: 'timeout', capMs: 0 }, 'f.capMs must be a whole number of milliseconds above 0'],
    [{ fault: 'connection_reset', chunks: 3 }, 'f.chunks is not a field of a connection_reset fault'],
  ])('refuses %j, naming the field', (value, message) => {
    expect(refused(parseFaultSpec(value, 'f'))).toContain(message);
  });
});

describe('parseFaultList', () => {
  it('reads a list, entry by entry', () => {
    expect(parseFaultList([{ fault: 'connection_reset', probability: 0.05 }, { status: 503, probability: 0.1 }, 'dribble'], 'f')).toEqual({
      ok: true,
      value: [
        { fault: 'connection_reset', probability: 0.05 },
        { status: 503, probability: 0.1 },
        { fault: 'dribble', chunks: 5, durationMs: 2000 },
      ],
    });
    expect(parseFaultList([], 'f')).toEqual({ ok: true, value: [] });
  });

  it.each([
    [{ fault: 'timeout' }, 'f must be a list of faults'],
    [[{ status: 503 }, { fault: 'timeout' }], 'f.1 can never be chosen'],
    [[{ status: 503, probability: 0.5 }, { status: 500, probability: 0.5 }, 'timeout'], 'f.2 can never be chosen'],
    [
      [
        { fault: 'timeout', probability: 0.5 },
        { status: 503, probability: 'x' },
      ],
      'f.1.probability must be',
    ],
  ])('refuses %j, naming the entry', (value, message) => {
    expect(refused(parseFaultList(value, 'f'))).toContain(message);
  });
});

describe('document extensions', () => {
  it('reads x-understudy-latency, x-understudy-faults and a Microcks delay', () => {
    expect(documentSettings({ 'x-understudy-latency': { fixed: 5 }, 'x-understudy-faults': ['timeout'] }, 'GET /pets')).toEqual({
      ok: true,
      value: { latency: { fixed: 5 }, faults: [{ fault: 'timeout' }] },
    });
    expect(documentSettings({ 'x-microcks-operation': { delay: 120, dispatcher: 'FALLBACK' } }, 'GET /pets')).toEqual({
      ok: true,
      value: { latency: { fixed: 120 } },
    });
  });

  it('prefers x-understudy-latency to a Microcks delay, and reads a Microcks delay of 0 (its default) as none', () => {
    const both = { 'x-understudy-latency': { fixed: 5 }, 'x-microcks-operation': { delay: 120 } };
    expect(documentSettings(both, 'GET /pets')).toEqual({ ok: true, value: { latency: { fixed: 5 } } });
    expect(documentSettings({ 'x-microcks-operation': { delay: 0 } }, 'GET /pets')).toEqual({ ok: true, value: undefined });
    expect(documentSettings({ summary: 'no extensions' }, 'GET /pets')).toEqual({ ok: true, value: undefined });
  });

  it.each([
    [{ 'x-understudy-latency': { fixed: -3 } }, 'GET /pets x-understudy-latency.fixed must be'],
    [{ 'x-understudy-faults': [{ status: 503, probability: 2 }] }, 'GET /pets x-understudy-faults.0.probability must be'],
    [{ 'x-microcks-operation': { delay: 'slow' } }, 'GET /pets x-microcks-operation.delay must be'],
  ])('refuses %j, naming the operation and the field', (node, message) => {
    expect(refused(documentSettings(node, 'GET /pets'))).toContain(message);
  });

  it('layers an operation over the document root, field by field', () => {
    const root: FaultSettings = { latency: { fixed: 100 }, faults: [{ fault: 'timeout' }] };
    expect(layered({ faults: [] }, root)).toEqual({ latency: { fixed: 100 }, faults: [] });
    expect(layered(undefined, root)).toBe(root);
    expect(layered({ latency: { fixed: 1 } }, undefined)).toEqual({ latency: { fixed: 1 } });
  });
});

describe('per-request preferences', () => {
  it('reads Prefer: delay=<ms> and fault=<kind>', () => {
    expect(parsePreferredDelay('250')).toEqual({ ok: true, value: { fixed: 250 } });
    expect(parsePreferredFault('timeout')).toEqual({ ok: true, value: { fault: 'timeout' } });
    expect(parsePreferredFault('dribble')).toEqual({ ok: true, value: { fault: 'dribble', chunks: 5, durationMs: 2000 } });
    expect(requestSettings({ fixed: 250 }, { fault: 'timeout' })).toEqual({ latency: { fixed: 250 }, faults: [{ fault: 'timeout' }] });
    expect(requestSettings(undefined, undefined)).toBeUndefined();
  });

  it.each([
    ['-1', 'delay must be a whole number'],
    ['1.5', 'delay must be a whole number'],
    ['soon', 'delay must be a whole number'],
    ['', 'delay must be a whole number'],
  ])('refuses delay=%j, naming it', (value, message) => {
    expect(refused(parsePreferredDelay(value))).toContain(message);
  });

  it.each([['explode'], ['503'], ['']])('refuses fault=%j, naming it and the kinds', (value) => {
    expect(refused(parsePreferredFault(value))).toContain('fault must be one of connection_reset');
  });
});

describe('configSettings', () => {
  it('is no source at all for the default config, and a source for the defaults it sets', () => {
    const config = { ...POLICY, latency: null, faults: [] };
    expect(configSettings(config)).toBeUndefined();
    expect(configSettings({ ...config, latency: { fixed: 5 } })).toEqual({ latency: { fixed: 5 } });
    expect(configSettings({ ...config, faults: [{ status: 503 }] })).toEqual({ faults: [{ status: 503 }] });
  });
});

describe('decide: precedence, request > rule > document > config, field by field', () => {
  const REQUEST: FaultSettings = { latency: { fixed: 1 }, faults: [{ fault: 'empty_response' }] };
  const RULE: FaultSettings = { latency: { fixed: 2 }, faults: [{ fault: 'connection_reset' }] };
  const DOCUMENT: FaultSettings = { latency: { fixed: 3 }, faults: [{ fault: 'malformed_response' }] };
  const CONFIG: FaultSettings = { latency: { fixed: 4 }, faults: [{ fault: 'truncated_body' }] };
  const ALL: FaultSources = { request: REQUEST, rule: RULE, document: DOCUMENT, config: CONFIG };

  it.each<[string, FaultSources, boolean, number | undefined, string | undefined, object]>([
    ['every source: the request wins', ALL, true, 1, 'empty_response', { latency: 'request', faults: 'request' }],
    ['client choice off: the rule wins', ALL, false, 2, 'connection_reset', { latency: 'rule', faults: 'rule' }],
    ['no request: the rule', { rule: RULE, document: DOCUMENT, config: CONFIG }, true, 2, 'connection_reset', { latency: 'rule' }],
    ['no rule: the document', { document: DOCUMENT, config: CONFIG }, true, 3, 'malformed_response', { latency: 'document' }],
    ['only the config', { config: CONFIG }, true, 4, 'truncated_body', { latency: 'config', faults: 'config' }],
    [
      'a request delay over document faults',
      { request: { latency: { fixed: 1 } }, document: DOCUMENT },
      true,
      1,
      'malformed_response',
      { latency: 'request', faults: 'document' },
    ],
    [
      'a request fault over a config delay',
      { request: { faults: [{ fault: 'empty_response' }] }, config: CONFIG },
      true,
      4,
      'empty_response',
      { latency: 'config', faults: 'request' },
    ],
    ['a rule saying "no faults" over the document', { rule: { faults: [] }, document: DOCUMENT }, true, 3, undefined, { faults: 'rule' }],
    ['a request alone with client choice off: nothing', { request: REQUEST }, false, undefined, undefined, {}],
  ])('%s', (_name, sources, allowClientChoice, delayMs, fault, decidedBy) => {
    const decision = decide(sources, drawStream(1, 'key'), { ...POLICY, allowClientChoice });
    expect(decision.delivery?.delayMs).toBe(delayMs);
    expect(decision.delivery?.fault?.kind).toBe(fault);
    expect(decision.applied).toEqual({ ...(delayMs && { delayMs }), ...(fault && { fault }) });
    expect(decision.decidedBy).toMatchObject(decidedBy);
  });

  it('decides nothing, and draws nothing, when no source sets anything', () => {
    const draws = counting();
    expect(decide({}, draws, POLICY)).toBe(NO_DECISION);
    expect(decide({ request: { latency: { fixed: 5 } } }, draws, { ...POLICY, allowClientChoice: false })).toBe(NO_DECISION);
    expect(draws.taken).toBe(0);
  });

  it('takes exactly three draws whenever a source sets something', () => {
    for (const settings of [{ latency: { fixed: 5 } }, { faults: [{ status: 500 }] }, CONFIG] as const) {
      const draws = counting();
      decide({ config: settings }, draws, POLICY);
      expect(draws.taken).toBe(3);
    }
  });
});

describe('decide: what is delivered', () => {
  const once = (settings: FaultSettings, policy: FaultPolicy = POLICY) => decide({ config: settings }, drawStream(1, 'key'), policy);

  it('a drawn error status, with the delay that goes with it', () => {
    expect(once({ latency: { fixed: 10 }, faults: [{ status: 503 }] })).toEqual({
      delivery: { delayMs: 10, fault: undefined },
      status: 503,
      applied: { delayMs: 10 },
      decidedBy: { latency: 'config', faults: 'config' },
    });
    expect(once({ faults: [{ status: 503 }] })).toEqual({ status: 503, applied: {}, decidedBy: { faults: 'config' } });
  });

  it('no delivery for a delay of 0', () => {
    expect(once({ latency: { fixed: 0 } })).toEqual({ applied: {}, decidedBy: { latency: 'config' } });
  });

  it('caps delays and dribbles at maxDelayMs, timeouts at timeoutCapMs', () => {
    const policy = { ...POLICY, maxDelayMs: 1000, timeoutCapMs: 200 };
    expect(once({ latency: { fixed: 5000 } }, policy).delivery).toEqual({ delayMs: 1000, fault: undefined });
    expect(once({ faults: [{ fault: 'timeout', capMs: 60_000 }] }, policy).delivery?.fault).toEqual({ kind: 'timeout', capMs: 200 });
    expect(once({ faults: [{ fault: 'timeout', capMs: 50 }] }, policy).delivery?.fault).toEqual({ kind: 'timeout', capMs: 50 });
    expect(once({ faults: [{ fault: 'timeout' }] }, policy).delivery?.fault).toEqual({ kind: 'timeout', capMs: 200 });
    expect(once({ faults: [{ fault: 'dribble', chunks: 3, durationMs: 9000 }] }, policy).delivery?.fault).toEqual({
      kind: 'dribble',
      chunks: 3,
      durationMs: 1000,
    });
  });
});

describe('decide: draws', () => {
  const CHAOS: FaultSettings = {
    latency: { uniform: [0, 1000] },
    faults: [
      { fault: 'connection_reset', probability: 0.05 },
      { status: 503, probability: 0.1 },
      { fault: 'dribble', chunks: 5, durationMs: 2000 },
    ],
  };
  const run = (settings: FaultSettings, key: string, n: number) => {
    const draws = drawStream(42, key);
    return Array.from({ length: n }, () => decide({ config: settings }, draws, POLICY));
  };

  it('honours the probabilities over many requests', () => {
    const decisions = run(CHAOS, 'key', N);
    const share = (test: (d: (typeof decisions)[number]) => boolean): number => decisions.filter(test).length / N;
    // Within 0.01 of each probability: over 3.5 standard deviations at N = 20,000.
    expect(Math.abs(share((d) => d.applied.fault === 'connection_reset') - 0.05)).toBeLessThan(0.01);
    expect(Math.abs(share((d) => d.status === 503) - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(share((d) => d.applied.fault === 'dribble') - 0.85)).toBeLessThan(0.01);
  });

  it('leaves the share no entry takes to the answer as it is', () => {
    const decisions = run({ faults: [{ status: 500, probability: 0.2 }] }, 'key', N);
    const errors = decisions.filter((d) => d.status === 500).length / N;
    expect(Math.abs(errors - 0.2)).toBeLessThan(0.01);
    expect(decisions.every((d) => d.delivery === undefined)).toBe(true);
  });

  it('gives the same decisions for the same seed and key, others for another key', () => {
    expect(run(CHAOS, 'key', 300)).toEqual(run(CHAOS, 'key', 300));
    expect(run(CHAOS, 'other-key', 300)).not.toEqual(run(CHAOS, 'key', 300));
  });

  it('keeps the delays of a key the same when only its fault list changes', () => {
    const delays = (settings: FaultSettings) => run(settings, 'key', 300).map((d) => d.delivery?.delayMs);
    expect(delays({ latency: CHAOS.latency, faults: [] })).toEqual(delays(CHAOS));
  });
});
