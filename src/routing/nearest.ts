import type { Violation } from '../vocabulary/errors.js';
import type { DeclaredParameter, Routable } from './router.js';
import { compileSegment, compileTemplate, type SegmentMatcher } from './template.js';

/**
 * Helpful misses: for a request that found no operation (404) or not its method (405), the
 * documented operations nearest to it, as `details` of the Error body:
 * `{ location: 'path', message: 'GET /v1/pets/{petId}' }`.
 *
 * Nearness is read segment by segment, position by position: a template expression (`{petId}`)
 * matches any non-empty value at a small cost (0.1: `/user/repo` is nearer `/user/repos` than
 * `/users/{username}`), a literal costs its edit distance to the sent segment over the
 * longer length (0 to 1; a difference of case alone costs 0.1), each segment one side has and the
 * other has not costs 1, and another method costs 0.5. A key that asks for a query value
 * (`/#Op=ListThings`, `Op` a declared query parameter) costs the value's distance to
 * the nearest one sent under that name, or 0.5 when none is. An operation is suggested only when it
 * costs at most half the longer segment count and query conditions plus the method (so `/v1/zzz` suggests nothing) and
 * at most 0.5 more than the best one; at most three, cheapest first, then in document order.
 *
 * Built once per document (`nearestIndex`, about 6 ms for GitHub's); a miss then costs one pass
 * over the operations, with the distance to each distinct literal computed once per position, each
 * segment compared on its first 32 characters, at most 16 segments, and a budget of edit-distance
 * cells on the whole: about 0.2 ms per miss on GitHub's document (measured), hostile paths included,
 * so a 404 storm stays a rate-limit problem, not a CPU one.
 */

/** How many operations a miss suggests. */
export const NEAREST_LIMIT = 3;
/** Characters of a segment compared (a longer one is compared on its start). */
const SEGMENT_CHARS = 32;
/** Segments of a request path compared; the rest count as missing. */
const MAX_SEGMENTS = 16;
/** Edit-distance cells one miss may compute; past it a literal that differs counts as wholly different. */
const CELL_BUDGET = 100_000;
const METHOD_COST = 0.5;
/** A path without the base path: `/pets/1` for `/v1/pets/1`. */
const BASE_COST = 0.5;
const TRAILING_SLASH_COST = 0.25;
/** Suggestions cost at most this more than the best one: another method on the best path, not the noise around it. */
const MARGIN = 0.5;
/** A template expression takes any value, but a literal spelt almost right is the likelier meaning. */
const PARAM_COST = 0.1;
/** A query value a key asks for (`/#Op=X`) and the request lacks: the right path, the operation unnamed. */
const MISSING_QUERY_COST = 0.5;

type Slot =
  | { readonly kind: 'literal'; readonly id: number }
  | { readonly kind: 'param' }
  | { readonly kind: 'partial'; readonly matcher: SegmentMatcher };

interface Candidate {
  readonly method: string;
  readonly label: string;
  readonly slots: readonly Slot[];
  /** The query values its key asks for (`/#Op=X`): `[name, value]`. */
  readonly query: readonly (readonly [string, string])[];
}

/** A routable operation, with the parameters it declares when known (a key's `#Name=…` may name one). */
export type Suggestible = Routable & { readonly parameters?: readonly DeclaredParameter[] };

export interface NearestIndex {
  readonly basePath: string;
  readonly baseSegments: readonly string[];
  readonly candidates: readonly Candidate[];
  /** The distinct literal texts at each position: distances are computed once per text per miss. */
  readonly literals: readonly (readonly string[])[];
}

/** Everything about the operations that does not depend on the request, computed once per document. */
export function nearestIndex(operations: readonly Suggestible[], basePath: string): NearestIndex {
  const literals: string[][] = [];
  const ids: Map<string, number>[] = [];
  const candidates = operations.map((op): Candidate => {
    const template = compileTemplate(op.pathTemplate, (name) =>
      op.parameters?.some((p) => p.in === 'query' && p.name === name) ? 'query' : undefined,
    );
    const slots = template.segments.slice(0, MAX_SEGMENTS).map((segment, position): Slot => {
      if (segment.kind === 'param') return { kind: 'param' };
      if (segment.kind === 'partial') return { kind: 'partial', matcher: compileSegment(segment.shape) };
      const text = segment.text.slice(0, SEGMENT_CHARS);
      const known = (ids[position] ??= new Map());
      let id = known.get(text);
      if (id === undefined) {
        id = (literals[position] ??= []).push(text) - 1;
        known.set(text, id);
      }
      return { kind: 'literal', id };
    });
    const query = template.conditions.filter((c) => c.in === 'query').map((c) => [c.name, c.value] as const);
    return { method: op.method.toUpperCase(), label: `${op.method.toUpperCase()} ${basePath}${op.pathTemplate}`, slots, query };
  });
  return { basePath, baseSegments: segmentsOf(basePath), candidates, literals };
}

const cache = new WeakMap<readonly Suggestible[], NearestIndex>();

/** `nearest` over an index kept per operations array (a generation's), built on the first miss. */
export function nearestOperations(
  operations: readonly Suggestible[],
  basePath: string,
  method: string,
  rawPath: string,
  query = '',
): readonly Violation[] {
  let index = cache.get(operations);
  if (index?.basePath !== basePath) cache.set(operations, (index = nearestIndex(operations, basePath)));
  return nearest(index, method, rawPath, query);
}

/** The nearest documented operations to a request that did not route, as Error `details`. */
export function nearest(index: NearestIndex, method: string, rawPath: string, query = ''): readonly Violation[] {
  const views = viewsOf(index, segmentsOf(rawPath.length > 2048 ? rawPath.slice(0, 2048) : rawPath));
  const budget = { cells: CELL_BUDGET };
  let sent: URLSearchParams | undefined;
  const distances = views.map((view) => view.segments.map(() => new Map<number, number>()));
  const best: { readonly cost: number; readonly order: number; readonly label: string }[] = [];
  index.candidates.forEach((candidate, order) => {
    const asked = candidate.query.length;
    const methodCost = candidate.method === method ? 0 : METHOD_COST;
    const queryCost = asked === 0 ? 0 : queryDistance(candidate.query, (sent ??= sentQuery(query)), budget);
    // Only a cheaper candidate than the third best, and one near enough to the best, can be kept.
    let allowed = best.length < NEAREST_LIMIT ? Infinity : (best[NEAREST_LIMIT - 1]?.cost ?? Infinity);
    allowed = Math.min(allowed, (best[0]?.cost ?? Infinity) + MARGIN);
    let cost = Infinity;
    views.forEach((view, v) => {
      const within = Math.min(allowed, cost, (Math.max(view.segments.length, candidate.slots.length) + asked) / 2 + methodCost);
      const floor = view.offset + methodCost + queryCost + Math.abs(view.segments.length - candidate.slots.length);
      if (floor > within) return;
      const total = floor + slotsCost(index, candidate, view.segments, distances[v] ?? [], budget, within - floor);
      if (total <= within) cost = total;
    });
    if (cost === Infinity) return;
    best.push({ cost, order, label: candidate.label });
    best.sort((a, b) => a.cost - b.cost || a.order - b.order);
    if (best.length > NEAREST_LIMIT) best.pop();
  });
  const cutoff = (best[0]?.cost ?? 0) + MARGIN;
  return best.filter(({ cost }) => cost <= cutoff).map(({ label }) => ({ location: 'path', message: label }));
}

interface View {
  readonly segments: readonly string[];
  /** What reading the path this way costs already (a trailing slash, a missing or misspelt base path). */
  readonly offset: number;
}

/**
 * How a path is compared with the templates: below the base path when it is under it; otherwise
 * both as if the base path were left out (`/pets/1` for `/v1/pets/1`) and as if it were misspelt
 * (`/v2/pets/1`, costing the distance of the sent prefix to the base path). A trailing slash is
 * read as a slip (`/pets/` means `/pets` more likely than `/pets/{id}`).
 */
function viewsOf(index: NearestIndex, sent: readonly string[]): readonly View[] {
  const slash = sent.length > 0 && sent[sent.length - 1] === '' ? TRAILING_SLASH_COST : 0;
  const path = slash === 0 ? sent : sent.slice(0, -1);
  const base = index.baseSegments;
  const below = (offset: number): View => ({ segments: path.slice(base.length, base.length + MAX_SEGMENTS), offset: slash + offset });
  if (base.every((segment, i) => path[i] === segment)) return [below(0)];
  const views: View[] = [{ segments: path.slice(0, MAX_SEGMENTS), offset: slash + BASE_COST }];
  if (path.length >= base.length) {
    let offset = 0;
    base.forEach((segment, i) => (offset += distance(path[i] ?? '', segment, { cells: Infinity })));
    views.push(below(offset));
  }
  return views;
}

/** The cost of the aligned segments, stopping once it passes `allowed`. */
function slotsCost(
  index: NearestIndex,
  candidate: Candidate,
  segments: readonly string[],
  distances: readonly Map<number, number>[],
  budget: { cells: number },
  allowed: number,
): number {
  let cost = 0;
  const shared = Math.min(segments.length, candidate.slots.length);
  for (let i = 0; i < shared && cost <= allowed; i++) {
    const slot = candidate.slots[i] as Slot;
    const segment = segments[i] as string;
    if (slot.kind === 'param') cost += segment === '' ? 1 : PARAM_COST;
    else if (slot.kind === 'partial') cost += slot.matcher.match(segment) ? 0 : 0.5;
    else {
      const known = distances[i];
      let d = known?.get(slot.id);
      if (d === undefined) {
        d = distance(segment, index.literals[i]?.[slot.id] ?? '', budget);
        known?.set(slot.id, d);
      }
      cost += d;
    }
  }
  return cost;
}

/** The query as sent, on its first 2,048 characters (what a miss is compared on). */
const sentQuery = (query: string): URLSearchParams => new URLSearchParams(query.slice(0, 2048));

/** What the query values a key asks for cost: each its distance to the nearest sent under its name, or MISSING_QUERY_COST. */
function queryDistance(asked: Candidate['query'], sent: URLSearchParams, budget: { cells: number }): number {
  let cost = 0;
  for (const [name, value] of asked) {
    const values = sent.getAll(name);
    cost += values.length === 0 ? MISSING_QUERY_COST : Math.min(...values.map((v) => distance(v, value, budget)));
  }
  return cost;
}

/** The path's segments, percent-decoded where the encoding allows, at most 32 characters each. */
function segmentsOf(path: string): string[] {
  if (path === '' || path === '/') return [];
  const parts = path.split('/');
  if (parts[0] === '') parts.shift();
  return parts.map((part) => {
    let decoded = part;
    if (part.includes('%')) {
      try {
        decoded = decodeURIComponent(part);
      } catch {
        // Compared as sent.
      }
    }
    return decoded.slice(0, SEGMENT_CHARS);
  });
}

/** Two rows of the edit-distance table, reused: segments are at most SEGMENT_CHARS long. */
const previousRow = new Uint8Array(SEGMENT_CHARS + 1);
const currentRow = new Uint8Array(SEGMENT_CHARS + 1);

/** Levenshtein distance over the longer length (0 to 1); equal but for case: 0.1. */
function distance(sent: string, literal: string, budget: { cells: number }): number {
  if (sent === literal) return 0;
  const a = sent.toLowerCase().slice(0, SEGMENT_CHARS);
  const b = literal.toLowerCase().slice(0, SEGMENT_CHARS);
  if (a === b) return 0.1;
  const longer = Math.max(a.length, b.length);
  if (budget.cells < a.length * b.length) return 1;
  budget.cells -= a.length * b.length;
  let previous = previousRow;
  let current = currentRow;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] as number) + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitute);
    }
    const done = previous;
    previous = current;
    current = done;
  }
  return (previous[b.length] as number) / longer;
}
