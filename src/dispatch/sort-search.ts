import type { ValidInput } from '../validation/request-validator.js';
import type { Row } from '../vocabulary/record.js';

/**
 * Sorting and searching a list, where its operation declares the parameters for them: `sort`,
 * `sort_by`, `order_by`, `orderBy` name a record field (`-name`, `name:desc` or `name,desc` for
 * descending), `order`, `direction` or `dir` say `asc` or `desc`; `q`, `search`, `query` or `term`
 * keeps the records with a text field containing the words asked for (case-insensitive).
 */
export interface SortSearch {
  readonly by: string | undefined;
  readonly direction: string | undefined;
  readonly search: string | undefined;
}

const BY = ['sort', 'sort_by', 'sortBy', 'order_by', 'orderBy', 'sortField'];
const DIRECTION = ['order', 'direction', 'dir', 'sort_order', 'sortOrder', 'sort_direction'];
const SEARCH = ['q', 'search', 'query', 'term', 'keyword', 'filter_text'];

/** The sort and search parameters a list declares; a name that is a record field stays a filter. */
export function sortSearchOf(queryNames: readonly string[], fields: ReadonlySet<string>): SortSearch {
  const pick = (names: readonly string[]): string | undefined => names.find((n) => queryNames.includes(n) && !fields.has(n));
  return { by: pick(BY), direction: pick(DIRECTION), search: pick(SEARCH) };
}

/** What this request asks for: a field to sort by and its direction, and words to search for. */
export function askedOf(s: SortSearch, input: ValidInput): { sort?: { field: string; descending: boolean }; words?: string[] } {
  const text = (name: string | undefined): string | undefined => {
    const value = name === undefined ? undefined : input.query[name];
    return typeof value === 'string' && value !== '' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  };
  const out: { sort?: { field: string; descending: boolean }; words?: string[] } = {};
  const by = text(s.by);
  if (by !== undefined) {
    const match = /^([-+]?)([^:,\s]+)(?:[:,\s](asc|desc))?$/i.exec(by);
    if (match) {
      const direction = match[3] ?? text(s.direction) ?? 'asc';
      out.sort = { field: match[2] as string, descending: match[1] === '-' || direction.toLowerCase() === 'desc' };
    }
  }
  const search = text(s.search);
  if (search !== undefined) out.words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return out;
}

/** The rows with every word in some text field (a top-level string, or a string in a list). */
export function searched(rows: readonly Row[], words: readonly string[]): Row[] {
  return rows.filter((row) => {
    const texts: string[] = [];
    for (const value of Object.values(row)) {
      if (typeof value === 'string') texts.push(value.toLowerCase());
      else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') texts.push(v.toLowerCase());
    }
    return words.every((word) => texts.some((t) => t.includes(word)));
  });
}

/** The rows ordered by a field (numbers as numbers, the rest as text; missing values last), stable. */
export function sorted(rows: readonly Row[], field: string, descending: boolean): Row[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a[field];
    const y = b[field];
    if (x === undefined || x === null) return y === undefined || y === null ? 0 : 1;
    if (y === undefined || y === null) return -1;
    if (typeof x === 'number' && typeof y === 'number') return sign * (x - y);
    return sign * text(x).localeCompare(text(y));
  });
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
