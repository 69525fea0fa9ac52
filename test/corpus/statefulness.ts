import { isDeepStrictEqual } from 'node:util';
import type { Agent } from 'node:http';
import { stateModel, type CollectionModel } from '../../src/resources/model.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import { buildValid } from './build.js';
import { isObject, type Json } from './document.js';
import type { Answer, SchemaJudge } from './judge.js';
import type { Operation, Parameter } from './operations.js';
import { toWire, type RequestParts } from './requests.js';
import { send } from './send.js';

/**
 * The statefulness figure: for each collection the sandbox keeps, the round trip a user makes —
 * create, read back equal, listed, filtered, updated and read back, deleted then 404, and a second
 * create with another id — each step built by the harness from the document alone (its own
 * request builder) and judged by what came back. Tallied per id kind.
 */

export type Step = 'create' | 'read back' | 'listed' | 'filtered' | 'updated' | 'deleted' | 'second create';

export interface StateOutcome {
  readonly collection: string;
  readonly idKind: string;
  readonly steps: readonly { readonly step: Step; readonly ok: boolean; readonly detail?: string }[];
}

interface Context {
  readonly judge: SchemaJudge;
  readonly operations: readonly Operation[];
  readonly port: number;
  readonly agent: Agent;
  readonly basePath: string;
}

export async function roundTrips(model: ApiModel, ctx: Context): Promise<StateOutcome[]> {
  const out: StateOutcome[] = [];
  for (const collection of stateModel(model).collections) {
    const outcome = await roundTrip(collection, ctx).catch((error: unknown) => ({
      collection: collection.name,
      idKind: collection.idKind,
      steps: [{ step: 'create' as const, ok: false, detail: `harness: ${String(error)}` }],
    }));
    if (outcome) out.push(outcome);
  }
  return out;
}

const json = (answer: Answer): Json | undefined => {
  try {
    return JSON.parse(answer.body.toString('utf8')) as Json;
  } catch {
    return undefined;
  }
};

/** The records of a list answer: the array, or an envelope's one array. */
function itemsOf(body: Json | undefined): Json[] | undefined {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return undefined;
  const arrays = Object.values(body).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

async function roundTrip(c: CollectionModel, ctx: Context): Promise<StateOutcome | undefined> {
  const opFor = (action: string): Operation | undefined => {
    const view = c.views.find((v) => v.action === action && (action !== 'replace' && action !== 'patch' ? true : v.path.endsWith('}')));
    return view && ctx.operations.find((o) => o.method.toUpperCase() === view.method && o.path === view.path);
  };
  const createOp = opFor('create');
  const readOp = opFor('read');
  if (!createOp || !readOp) return undefined;
  const steps: { step: Step; ok: boolean; detail?: string }[] = [];
  const record = (step: Step, ok: boolean, detail?: string): boolean => {
    steps.push(detail === undefined ? { step, ok } : { step, ok, detail });
    return ok;
  };
  const built = buildValid(createOp, ctx.judge);
  if (built.kind !== 'built') return undefined;
  const parents = new Map([...built.parts.values].filter(([p]) => p.in === 'path').map(([p, v]) => [p.name, v]));
  const call = async (op: Operation, id?: Json, query: Record<string, Json> = {}): Promise<Answer | string> => {
    const made = buildValid(op, ctx.judge);
    if (made.kind !== 'built') return `unbuildable: ${made.reason}`;
    return sendParts(ctx, withValues(made.parts, op, parents, id, query));
  };
  const created = await sendParts(ctx, built.parts);
  if (typeof created === 'string' || created.status >= 300) return done(c, steps, record('create', false, status(created)));
  const body = json(created);
  const id = isObject(body) ? body[c.idProperty] : undefined;
  if (id === undefined || id === null) return done(c, steps, record('create', false, `no ${c.idProperty} in the answer`));
  record('create', true);
  const read = await call(readOp, id);
  record('read back', typeof read !== 'string' && read.status < 300 && agrees(json(read), body), status(read));
  // Before the delete: a client-named collection given the same id again answers 409, as it should.
  const again = await sendParts(ctx, built.parts);
  const second = typeof again === 'string' ? undefined : json(again);
  const otherId = isObject(second) ? second[c.idProperty] : undefined;
  const named = typeof again !== 'string' && again.status === 409 && c.ids.startsWith('the id the client sends');
  record('second create', named || (otherId !== undefined && !isDeepStrictEqual(otherId, id)), status(again));
  const listOp = opFor('list');
  if (listOp) {
    // A list that requires a filter (Netlify's `site_id`) is asked for the created record's own value, as its client would.
    const own: Record<string, Json> = {};
    for (const p of listOp.parameters)
      if (p.in === 'query' && p.required && isObject(body) && body[p.name] !== undefined) own[p.name] = body[p.name] as Json;
    const listed = await call(listOp, undefined, own);
    const items = typeof listed === 'string' ? undefined : itemsOf(json(listed));
    record('listed', items?.some((item) => isObject(item) && isDeepStrictEqual(item[c.idProperty], id)) === true, status(listed));
    const filter = c.filters.find((f) => isObject(body) && ['string', 'number', 'boolean'].includes(typeof body[f]));
    if (filter !== undefined && isObject(body)) {
      const value = body[filter] as Json;
      const answer = await call(listOp, undefined, { ...own, [filter]: value });
      const found = typeof answer === 'string' ? undefined : itemsOf(json(answer));
      const all = found?.every((item) => isObject(item) && isDeepStrictEqual(item[filter], value)) === true;
      record(
        'filtered',
        all && found?.some((item) => isObject(item) && isDeepStrictEqual(item[c.idProperty], id)) === true,
        status(answer),
      );
    }
  }
  const updateOp = opFor('replace') ?? opFor('patch');
  if (updateOp) {
    const updated = await call(updateOp, id);
    const after = await call(readOp, id);
    const shown = typeof updated === 'string' ? undefined : json(updated);
    const ok = typeof updated !== 'string' && updated.status < 300 && typeof after !== 'string' && after.status < 300;
    record('updated', ok && (shown === undefined || agrees(json(after as Answer), shown)), status(updated));
  }
  const deleteOp = opFor('delete');
  if (deleteOp) {
    const deleted = await call(deleteOp, id);
    const gone = await call(readOp, id);
    record('deleted', typeof deleted !== 'string' && deleted.status < 300 && typeof gone !== 'string' && gone.status === 404, status(gone));
  }
  return done(c, steps, true);
}

/**
 * Whether a read agrees with what the create answered: every field both answers have is equal (a
 * create may answer a receipt, `{orderId, externalOrderId}`, and the read the whole record).
 */
function agrees(read: Json | undefined, created: Json | undefined): boolean {
  if (!isObject(read) || !isObject(created)) return isDeepStrictEqual(read, created);
  const shared = Object.keys(created).filter((name) => Object.hasOwn(read, name));
  return shared.length > 0 && shared.every((name) => isDeepStrictEqual(read[name], created[name]));
}

const done = (c: CollectionModel, steps: StateOutcome['steps'], _last: boolean): StateOutcome => ({
  collection: c.name,
  idKind: c.ids.startsWith('the id the client sends') ? 'client-named' : c.idKind,
  steps,
});

const status = (answer: Answer | string): string => (typeof answer === 'string' ? answer : `status ${answer.status}`);

function sendParts(ctx: Context, parts: RequestParts): Promise<Answer | string> {
  const wire = toWire(parts, ctx.basePath);
  if (wire === undefined) return Promise.resolve('no wire form');
  return send(ctx.port, ctx.agent, wire).catch((e: unknown) => String(e));
}

/** The parts with the parent path parameters of the create, the record's id last, and query values set. */
function withValues(
  parts: RequestParts,
  op: Operation,
  parents: ReadonlyMap<string, Json>,
  id: Json | undefined,
  query: Record<string, Json>,
): RequestParts {
  const values = new Map<Parameter, Json>(parts.values);
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const last = op.path.endsWith('}') ? pathParams.find((p) => op.path.endsWith(`{${p.name}}`)) : undefined;
  for (const p of pathParams) {
    if (p === last && id !== undefined) values.set(p, id);
    else if (parents.has(p.name)) values.set(p, parents.get(p.name) as Json);
  }
  for (const [name, value] of Object.entries(query)) {
    const p = op.parameters.find((q) => q.in === 'query' && q.name === name);
    if (p) values.set(p, value);
  }
  return { ...parts, values };
}
