import type { Draws } from './draws.js';
import { invalid, isFields, isMs, parsed, unknownField, type Parsed } from './parsed.js';

/**
 * How long to wait before answering, in wall-clock milliseconds. The JSON shapes, the same in config,
 * document extensions (`x-understudy-latency`) and admin rules:
 *
 *   { "fixed": 250 }                                           always 250 ms
 *   { "uniform": [100, 500] }                                  any whole ms from 100 to 500, evenly
 *   { "lognormal": { "median": 200, "sigma": 0.5, "cap": 3000 } }
 *       e^(ln median + sigma·Z), Z standard normal: half the draws below `median`, a long tail
 *       (sigma 0.5: one in ten above ~1.9 × median), never above `cap`
 */
export type LatencyModel =
  | { readonly fixed: number }
  | { readonly uniform: readonly [min: number, max: number] }
  | { readonly lognormal: { readonly median: number; readonly sigma: number; readonly cap: number } };

const SHAPES = '{ fixed: ms }, { uniform: [min, max] } or { lognormal: { median, sigma, cap } }';
const MS = 'must be a whole number of milliseconds, 0 or more';

/** Reads a latency model from its JSON shape; an error names the field at fault under `field`. */
export function parseLatency(value: unknown, field: string): Parsed<LatencyModel> {
  if (!isFields(value) || Object.keys(value).length !== 1) return invalid(field, `must be one of ${SHAPES}`);
  if ('fixed' in value) return isMs(value.fixed) ? parsed({ fixed: value.fixed }) : invalid(`${field}.fixed`, MS);
  if ('uniform' in value) return parseUniform(value.uniform, `${field}.uniform`);
  if ('lognormal' in value) return parseLognormal(value.lognormal, `${field}.lognormal`);
  return invalid(field, `must be one of ${SHAPES} (not ${Object.keys(value).join()})`);
}

function parseUniform(value: unknown, field: string): Parsed<LatencyModel> {
  if (!Array.isArray(value) || value.length !== 2) return invalid(field, 'must be [min, max], two whole numbers of milliseconds');
  const [min, max] = value as readonly unknown[];
  if (!isMs(min)) return invalid(`${field}.0`, MS);
  if (!isMs(max)) return invalid(`${field}.1`, MS);
  if (max < min) return invalid(`${field}.1`, `must be at least the minimum (${min})`);
  return parsed({ uniform: [min, max] });
}

function parseLognormal(value: unknown, field: string): Parsed<LatencyModel> {
  if (!isFields(value)) return invalid(field, 'must be { median, sigma, cap }');
  const extra = unknownField(value, ['median', 'sigma', 'cap']);
  if (extra !== undefined) return invalid(`${field}.${extra}`, 'is not a field of lognormal (median, sigma, cap)');
  const { median, sigma, cap } = value;
  if (typeof median !== 'number' || !Number.isFinite(median) || median <= 0)
    return invalid(`${field}.median`, 'must be a number of milliseconds above 0');
  if (typeof sigma !== 'number' || !Number.isFinite(sigma) || sigma < 0 || sigma > 10)
    return invalid(`${field}.sigma`, 'must be a number from 0 to 10');
  if (!isMs(cap)) return invalid(`${field}.cap`, MS);
  if (cap < median) return invalid(`${field}.cap`, `must be at least the median (${median})`);
  return parsed({ lognormal: { median, sigma, cap } });
}

/**
 * One delay from a model, in whole milliseconds. Always takes exactly two draws, whatever the model,
 * so the draws that follow (the fault decision) do not shift when the model changes.
 */
export function drawDelay(model: LatencyModel, draws: Draws): number {
  const u1 = draws.next();
  const u2 = draws.next();
  if ('fixed' in model) return model.fixed;
  if ('uniform' in model) {
    const [min, max] = model.uniform;
    // floor over max − min + 1 whole values: each equally likely, max included, never above it.
    return min + Math.floor(u1 * (max - min + 1));
  }
  const { median, sigma, cap } = model.lognormal;
  // Box–Muller: 1 − u1 is in (0, 1], so the logarithm is finite.
  const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
  return Math.min(cap, Math.round(median * Math.exp(sigma * z)));
}
