import { errorBody } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { Lookup } from '../store/collection.js';
import type { Store } from '../store/store.js';
import type { ValidInput } from '../validation/request-validator.js';
import type { DispatchPlan } from './plan.js';

export interface DispatchContext {
  readonly store: Store;
  readonly basePath: string;
  /** The request's query as received, to carry into `Link: rel="next"`. */
  readonly rawQuery: ReadonlyMap<string, readonly string[]>;
  /** Answers operations with no state behind them, from the document. */
  readonly mock: (plan: DispatchPlan) => SandboxResponse;
}

const DEFAULT_PAGE_SIZE = 20;

/** Runs a validated request against the store, or has the document answer it. */
export async function dispatch(plan: DispatchPlan, input: ValidInput, ctx: DispatchContext): Promise<SandboxResponse> {
  const { action, resource } = plan.operation.binding;
  const collection = resource === undefined ? undefined : ctx.store.collection(resource);
  if (action === 'mock' || !collection) return ctx.mock(plan);
  switch (action) {
    case 'list': {
      const limit = plan.limitParam ? (input.query[plan.limitParam] as number | undefined) : undefined;
      const after = plan.afterParam ? (input.query[plan.afterParam] as number | undefined) : undefined;
      const filters = plan.filters.filter((name) => input.query[name] !== undefined).map((name) => [name, input.query[name]] as const);
      const page = collection.list({ after, limit: limit ?? DEFAULT_PAGE_SIZE, filters });
      const headers: Record<string, string> = {};
      if (page.nextAfter !== undefined && plan.afterParam) headers.link = `<${nextUrl(ctx, plan, page.nextAfter)}>; rel="next"`;
      return { status: plan.successStatus, headers, body: page.items };
    }
    case 'create': {
      const row = collection.create(pick(input.body, plan.writable));
      await commitOr(ctx, () => collection.delete(row.id));
      const headers: Record<string, string> = {};
      if (plan.itemPath) headers.location = ctx.basePath + plan.itemPath.replace(/\{[^}]+\}/, encodeURIComponent(String(row.id)));
      return { status: plan.successStatus, headers, body: row };
    }
    case 'read':
    case 'replace':
    case 'delete': {
      const id = Number(plan.idParam === undefined ? NaN : input.path[plan.idParam]);
      let found: Lookup;
      if (action === 'read') found = collection.get(id);
      else if (action === 'delete') {
        const removed = collection.delete(id);
        if (removed.kind === 'found') await commitOr(ctx, () => collection.restore(removed.row));
        found = removed;
      } else {
        const replaced = collection.replace(id, pick(input.body, plan.writable));
        if (replaced.kind === 'found') await commitOr(ctx, () => collection.restore(replaced.before));
        found = replaced;
      }
      if (found.kind === 'not-found') {
        return { status: 404, headers: {}, body: errorBody('resource_not_found', `No ${resource} record has id ${String(input.path[plan.idParam ?? ''])}`) };
      }
      return action === 'delete' && plan.successStatus === 204
        ? { status: 204, headers: {} }
        : { status: plan.successStatus, headers: {}, body: found.row };
    }
  }
}

/**
 * Makes a change durable before it is answered; if the write fails, the change is undone in memory
 * too (and the request fails with a 500), so memory never holds what the file does not.
 */
async function commitOr(ctx: DispatchContext, undo: () => unknown): Promise<void> {
  try {
    await ctx.store.commit();
  } catch (error) {
    undo();
    throw error;
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
function nextUrl(ctx: DispatchContext, plan: DispatchPlan, nextAfter: number): string {
  const parts: string[] = [];
  for (const [name, values] of ctx.rawQuery) {
    if (name === plan.afterParam) continue;
    for (const value of values) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  parts.push(`${encodeURIComponent(plan.afterParam ?? 'after')}=${nextAfter}`);
  return `${ctx.basePath}${plan.operation.pathTemplate}?${parts.join('&')}`;
}
