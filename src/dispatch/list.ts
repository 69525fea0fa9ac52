import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { KEY_FIELD, keyOf, SCOPE_FIELD, type Row } from '../vocabulary/record.js';
import type { PageQuery } from '../store/paging.js';
import { askedOf, searched, sorted } from './sort-search.js';
import { answer, shown, type DispatchContext } from './context.js';
import { wrapPage } from './envelope.js';
import type { ResolvedBinding } from './resolve-binding.js';

/**
 * A list: the stored records that pass the request's filters, one page of them in the operation's
 * own paging style (paging-style.ts), with `Link: rel="next"` (RFC 8288) and, in an envelope, the
 * next cursor, `has_more` and `total` filled from the store. Walking the next links visits every
 * matching record once: cursors continue after a row number, which never changes.
 */
export async function list(
  binding: ResolvedBinding,
  input: ValidInput,
  ctx: DispatchContext,
  scope: string | undefined,
  parents: readonly [string, unknown][] = [],
): Promise<SandboxResponse> {
  const { paging } = binding;
  const asked = paging.size === undefined ? undefined : input.query[paging.size];
  const size = typeof asked === 'number' ? asked : typeof asked === 'string' && /^\d+$/.test(asked) ? Number(asked) : paging.pageSize;
  const filters = [
    ...binding.filters.filter((name) => input.query[name] !== undefined).map((name) => [name, input.query[name]] as const),
    ...bodyFilters(binding, input.body),
  ];
  // A nested view lists the records naming its parent, whether the field holds the path's text or a number.
  const parented = parents.map(([field, value]) => [field, [value, typeof value === 'number' ? String(value) : value]] as const);
  const scoped =
    scope === undefined && parented.length === 0
      ? filters
      : [...filters, ...parented, ...(scope === undefined ? [] : [[SCOPE_FIELD, scope] as const])];
  const envelope = binding.envelope;
  const wanted = askedOf(binding.sortSearch, input);
  let window: Window;
  if (wanted.sort !== undefined || wanted.words !== undefined) {
    const arranged = await arrangedWindow(binding, input, ctx, scoped, size, wanted);
    if (arranged.kind === 'refused') return arranged.answer;
    window = arranged;
  } else {
    const start = await startOf(binding, input, ctx, scope, size);
    if (start.kind === 'refused') return start.answer;
    const page = await ctx.store.list(ctx.workspace, binding.operation.binding.resource ?? '', {
      after: start.after,
      limit: start.skip + size,
      filters: scoped,
      count: envelope?.total !== undefined,
    });
    const rows = start.skip === 0 ? page.items : page.items.slice(start.skip);
    const next = page.nextAfter === undefined ? undefined : nextCursor(binding, start, size, rows.at(-1));
    window = { kind: 'window', rows, next, total: page.total };
  }
  const { rows, next, total } = window;
  const headers: Record<string, string> = {};
  const url = next === undefined || paging.kind === 'none' ? undefined : nextUrl(ctx, binding, input.path, paging.param, String(next));
  if (url !== undefined) headers.link = `<${url}>; rel="next"`;
  const items: Readonly<Record<string, unknown>>[] = [];
  for (const row of rows) items.push(shown(binding, row));
  if (!envelope) return answer(binding, binding.successStatus, items, headers);
  const base = ctx.generatedAnswer().body;
  return answer(binding, binding.successStatus, wrapPage(envelope, base, { items, next, nextUrl: url, total }), headers);
}

/** A QUERY's filters from its body (decision 0021): each record field it names, to equal the value (or any of a list). */
function bodyFilters(binding: ResolvedBinding, body: unknown): (readonly [string, unknown])[] {
  if (binding.bodyFilters.length === 0 || typeof body !== 'object' || body === null) return [];
  const given = body as Readonly<Record<string, unknown>>;
  return binding.bodyFilters
    .filter((name) => given[name] !== undefined && given[name] !== null)
    .map((name) => [name, given[name]] as const);
}

/** One page's records, the next page's cursor (none on the last), and how many match, where counted. */
interface Window {
  readonly kind: 'window';
  readonly rows: readonly Row[];
  readonly next: string | number | undefined;
  readonly total: number | undefined;
}

/**
 * A sorted or searched list: every matching record read, searched and sorted here, then paged over
 * the result. Offsets, page numbers and tokens count places in it; `after` names the record the
 * page follows. The next page's cursor is valid with the same query, which its URL keeps.
 */
async function arrangedWindow(
  binding: ResolvedBinding,
  input: ValidInput,
  ctx: DispatchContext,
  filters: PageQuery['filters'],
  size: number,
  wanted: ReturnType<typeof askedOf>,
): Promise<Window | { readonly kind: 'refused'; readonly answer: SandboxResponse }> {
  const all = await ctx.store.list(ctx.workspace, binding.operation.binding.resource ?? '', { after: undefined, limit: Infinity, filters });
  let rows: readonly Row[] = wanted.words === undefined ? all.items : searched(all.items, wanted.words);
  if (wanted.sort !== undefined) {
    const { field, descending } = wanted.sort;
    rows = sorted(rows, field === binding.idProperty && binding.keyed ? KEY_FIELD : field, descending);
  }
  const { paging } = binding;
  const raw = paging.kind === 'none' ? undefined : input.query[paging.param];
  let skip = 0;
  let at = paging.kind === 'page' ? paging.first : 0;
  if (raw !== undefined && paging.kind !== 'none') {
    const param = paging.param;
    if (paging.kind === 'after') {
      const index = rows.findIndex(
        (row) => (binding.keyed ? keyOf(row) : String(row.id)) === (typeof raw === 'string' ? raw : JSON.stringify(raw)),
      );
      if (index < 0) return { kind: 'refused', answer: badCursor(param, 'names no record of this list') };
      skip = index + 1;
    } else {
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || n < (paging.kind === 'page' ? paging.first : 0))
        return { kind: 'refused', answer: badCursor(param, 'is not a place in this list') };
      at = n;
      skip = paging.kind === 'page' ? (n - paging.first) * size : n;
    }
  }
  const page = rows.slice(skip, skip + size);
  const more = rows.length > skip + size;
  const last = page.at(-1);
  const next = !more
    ? undefined
    : paging.kind === 'page'
      ? at + 1
      : paging.kind === 'after'
        ? last === undefined
          ? undefined
          : binding.keyed
            ? keyOf(last)
            : last.id
        : skip + size;
  return { kind: 'window', rows: page, next: paging.kind === 'token' && next !== undefined ? String(next) : next, total: rows.length };
}

type Start =
  | { readonly kind: 'start'; readonly after: number | undefined; readonly skip: number; readonly at: number }
  | { readonly kind: 'refused'; readonly answer: SandboxResponse };

const FIRST = { kind: 'start', after: undefined, skip: 0, at: 0 } as const;

/** Where the page starts: after a row number (a cursor), or after skipping matches (an offset, a page number). */
async function startOf(
  binding: ResolvedBinding,
  input: ValidInput,
  ctx: DispatchContext,
  scope: string | undefined,
  size: number,
): Promise<Start> {
  const { paging } = binding;
  if (paging.kind === 'none') return FIRST;
  const raw = input.query[paging.param];
  if (raw === undefined) return paging.kind === 'page' ? { ...FIRST, at: paging.first } : FIRST;
  const refuse = (why: string): Start => ({ kind: 'refused', answer: badCursor(paging.param, why) });
  // A keyed collection's `after` names a record by its id: the page continues after that record.
  if (paging.kind === 'after' && binding.keyed) {
    const found = await ctx.store.get(
      ctx.workspace,
      binding.operation.binding.resource ?? '',
      typeof raw === 'string' ? raw : JSON.stringify(raw),
    );
    if (found.kind === 'not-found' || found.row[SCOPE_FIELD] !== scope) return refuse('names no record of this list');
    return { kind: 'start', after: found.row.id, skip: 0, at: 0 };
  }
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    return refuse(paging.kind === 'offset' ? 'is not a whole number' : 'is not a cursor this API issued');
  if (paging.kind === 'offset') return { kind: 'start', after: undefined, skip: n, at: n };
  if (paging.kind === 'page') {
    if (n < paging.first) return refuse(`pages are counted from ${paging.first}`);
    return { kind: 'start', after: undefined, skip: (n - paging.first) * size, at: n };
  }
  return { kind: 'start', after: n, skip: 0, at: 0 };
}

/** The next page's cursor, offset or page number, as the style's parameter takes it. */
function nextCursor(
  binding: ResolvedBinding,
  start: Extract<Start, { kind: 'start' }>,
  size: number,
  last: Row | undefined,
): string | number | undefined {
  const { paging } = binding;
  if (paging.kind === 'offset') return start.at + size;
  if (paging.kind === 'page') return start.at + 1;
  if (last === undefined) return undefined;
  if (paging.kind === 'token') return String(last.id);
  return binding.keyed ? keyOf(last) : last.id;
}

const badCursor = (param: string, why: string): SandboxResponse => {
  const location = `query.${param}`;
  return { status: 400, headers: {}, body: errorBody('validation_failed', `Invalid request: ${location}`, [{ location, message: why }]) };
};

/** The URL of the next page: the same query, with the paging parameter moved on (RFC 8288 §3.2). */
function nextUrl(
  ctx: DispatchContext,
  binding: ResolvedBinding,
  path: Readonly<Record<string, unknown>>,
  param: string,
  value: string,
): string {
  const parts: string[] = [];
  for (const [name, values] of ctx.rawQuery) {
    if (name === param) continue;
    for (const v of values) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
  }
  parts.push(`${encodeURIComponent(param)}=${encodeURIComponent(value)}`);
  const template = binding.operation.pathTemplate;
  // A top-level collection's path has no parameter to fill in.
  const route = template.includes('{')
    ? template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(path[name])))
    : template;
  return `${ctx.basePath}${route}?${parts.join('&')}`;
}
