/**
 * Timed transitions of a record field: `placed → approved after 10m`, `approved → delivered after
 * 2d`. Declared in the config (`transitions`) or on the record schema's property
 * (`x-understudy-transitions`); read here into one list of rules.
 */
export interface TransitionRule {
  /** The collection, as `understudy explain` names it (`pets`, `store/orders`). */
  readonly collection: string;
  readonly field: string;
  readonly from: string;
  readonly to: string;
  /** How long a record stays in `from` before it moves to `to`, in milliseconds of its workspace's sandbox clock. */
  readonly afterMs: number;
}

/** A transition as written: `after` is a duration (`30s`, `10m`, `2h`, `2d`, or a number of seconds). */
export interface WrittenTransition {
  /** A state as the field holds it: text, or a number or boolean a document may write unquoted (compared as JSON text). */
  readonly from: string | number | boolean;
  readonly to: string | number | boolean;
  readonly after: string | number;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration in milliseconds, or undefined when the text is not one (`10m`, `2d`, `1.5h`, `90`). */
export function durationMs(written: string | number): number | undefined {
  if (typeof written === 'number') return Number.isFinite(written) && written >= 0 ? written * 1_000 : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(written);
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1_000);
}

/**
 * One field's written transitions as rules, or the problem with the first that does not read: a
 * duration that is not one, a state moving to itself, or two transitions out of one state (which one
 * a record took would depend on the order they were written in).
 */
export function readTransitions(
  collection: string,
  field: string,
  written: readonly WrittenTransition[],
): { readonly rules: TransitionRule[] } | { readonly problem: string } {
  const rules: TransitionRule[] = [];
  for (const [index, { from, to, after }] of written.entries()) {
    const afterMs = durationMs(after);
    if (afterMs === undefined) return { problem: `${index}.after must be a duration (30s, 10m, 2h, 2d), not ${JSON.stringify(after)}` };
    if (String(from) === String(to)) return { problem: `${index} moves ${JSON.stringify(from)} to itself` };
    if (rules.some((rule) => rule.from === String(from)))
      return { problem: `${index}: ${JSON.stringify(from)} already has a transition out of it` };
    rules.push({ collection, field, from: String(from), to: String(to), afterMs });
  }
  return { rules };
}
