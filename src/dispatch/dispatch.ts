import type { Lookup, RecordStore } from '../store/record-store.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { ResolvedBinding } from './resolve-binding.js';

export interface DispatchContext {
  readonly store: RecordStore;
  /** The caller's workspace: the records it reads and writes. */
  readonly workspace: string;
  readonly basePath: string;
  /** The request's query as received, to carry into `Link: rel="next"`. */
  readonly rawQuery: ReadonlyMap<string, readonly string[]>;
  /** The answer from the document, for operations with no state behind them. */
  readonly generatedAnswer: () => SandboxResponse;
}

const DEFAULT_PAGE_SIZE = 20;

/** Runs a validated request against the store, or has the document answer it. */
export async function dispatch(binding: ResolvedBinding, input: ValidInput, ctx: DispatchContext): Promise<SandboxResponse> {
  const { action, resource } = binding.operation.binding;
  if (action === 'mock' || resource === undefined) return ctx.generatedAnswer();
  const { store, workspace } = ctx;
  switch (action) {
    case 'list': {
      const limit = binding.limitParam ? (input.query[binding.limitParam] as number | undefined) : undefined;
      const after = binding.afterParam ? (input.query[binding.afterParam] as number | undefined) : undefined;
      const filters = binding.filters.filter((name) => input.query[name] !== undefined).map((name) => [name, input.query[name]] as const);
      const page = await store.list(workspace, resource, { after, limit: limit ?? DEFAULT_PAGE_SIZE, filters });
      const headers: Record<string, string> = {};
      if (page.nextAfter !== undefined && binding.afterParam) headers.link = `<${nextUrl(ctx, binding, page.nextAfter)}>; rel="next"`;
      return { status: binding.successStatus, headers, body: page.items };
    }
    case 'create': {
      const row = await store.create(workspace, resource, pick(input.body, binding.writable));
      const headers: Record<string, string> = {};
      if (binding.itemPath) headers.location = ctx.basePath + binding.itemPath.replace(/\{[^}]+\}/, encodeURIComponent(String(row.id)));
      return { status: binding.successStatus, headers, body: row };
    }
    case 'read':
    case 'replace':
    case 'delete': {
      const id = Number(binding.idParam === undefined ? NaN : input.path[binding.idParam]);
      let found: Lookup;
      if (action === 'read') found = await store.get(workspace, resource, id);
      else if (action === 'delete') found = await store.delete(workspace, resource, id);
      else found = await store.replace(workspace, resource, id, pick(input.body, binding.writable));
      if (found.kind === 'not-found') {
        return {
          status: 404,
          headers: {},
          body: errorBody('resource_not_found', `No ${resource} record has id ${String(input.path[binding.idParam ?? ''])}`),
        };
      }
      return action === 'delete' && binding.successStatus === 204
        ? { status: 204, headers: {} }
        : { status: binding.successStatus, headers: {}, body: found.row };
    }
  }
}

/** Only the fields a client may write; anything else in the body is dropped, never stored. */
function pick(body: unknown, writable: ReadonlySet<string> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof body !== 'object' || body === null || !writable) return out;
  for (const name of writable) {
    if (Object.hasOwn(body, name)) out[name] = (body as Record<string, unknown>)[name];
  }
  return out;
}

/** The URL of the next page: the same query, with the cursor moved past this page (RFC 8288 §3.2). */
function nextUrl(ctx: DispatchContext, binding: ResolvedBinding, nextAfter: number): string {
  const parts: string[] = [];
  for (const [name, values] of ctx.rawQuery) {
    if (name === binding.afterParam) continue;
    for (const value of values) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  parts.push(`${encodeURIComponent(binding.afterParam ?? 'after')}=${nextAfter}`);
  return `${ctx.basePath}${binding.operation.pathTemplate}?${parts.join('&')}`;
}
