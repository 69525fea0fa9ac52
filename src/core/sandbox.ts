import { performance } from 'node:perf_hooks';
import { ADMIN_PREFIX, handleAdmin } from '../admin/admin-api.js';
import { Journal } from '../journal/journal.js';
import { KeyRegistry } from '../auth/key-registry.js';
import { SandboxClock } from '../clock/clock.js';
import type { SandboxConfig } from '../config/config.js';
import { planDispatch } from '../dispatch/plan.js';
import { MemoryCounterStore } from '../limits/counter-store.js';
import { Limiter } from '../limits/limiter.js';
import { mockAnswer } from '../mock/mock-answer.js';
import { Router } from '../routing/router.js';
import { compileOperations } from '../openapi/compile-operations.js';
import { loadDocument } from '../openapi/load-document.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';
import { loadFixtures, NO_FIXTURES } from '../seeding/fixtures.js';
import { Store } from '../store/store.js';
import { RequestValidator } from '../validation/request-validator.js';
import { ResponseCheck } from '../validation/response-check.js';
import { SchemaCompiler } from '../validation/schema-compiler.js';
import { errorBody } from '../vocabulary/errors.js';
import type { CompiledOperation, Parts } from './parts.js';
import { runPipeline } from '../pipeline/pipeline.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';

/** What happened to one request: what logging and the journal hang off. */
export interface Exchange {
  readonly request: SandboxRequest;
  readonly response: SandboxResponse;
  readonly operationId: string | undefined;
  readonly keyId: string | undefined;
  readonly durationMs: number;
  /** Set when the sandbox itself failed (a bug): the answer was a generic 500. */
  readonly error?: unknown;
}

export interface Sandbox {
  readonly config: SandboxConfig;
  readonly model: ApiModel;
  readonly basePath: string;
  readonly clock: SandboxClock;
  readonly store: Store;
  /** Answers one request. Never throws: a bug becomes a 500 in the Error shape. */
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  onExchange(listener: (exchange: Exchange) => void): void;
  /** Back to the seeded state: store, issued keys, counters, bans, clock and journal. */
  reset(): Promise<void>;
}

/** Builds a sandbox from its configuration: everything is loaded and compiled here, once. */
export async function createSandbox(config: SandboxConfig): Promise<Sandbox> {
  const model = compileOperations(await loadDocument(config.spec));
  const fixtures = config.fixtures ? await loadFixtures(config.fixtures) : NO_FIXTURES;
  const basePath = config.basePath ?? model.basePath;
  const compiler = new SchemaCompiler(model.document, model.dialect);
  const operations = new Map<OperationSpec, CompiledOperation>();
  for (const op of model.operations) {
    try {
      operations.set(op, compileOperation(model, op, compiler, config, basePath, fixtures.referenceDate));
    } catch (error) {
      throw new Error(`operation ${op.id} (${op.method} ${op.pathTemplate}): ${(error as Error).message}`);
    }
  }
  const frozenAt = config.clock.frozenAt === null ? undefined : Date.parse(config.clock.frozenAt);
  const clock = new SandboxClock(Date.now, frozenAt);
  const store = await Store.open(model, fixtures, config.seed, config.data);
  const keys = new KeyRegistry(config.keys);
  const limiter = new Limiter(config.plans, config.bans, new MemoryCounterStore(), clock);
  const journal = new Journal(config.journalSize);
  const parts: Parts = { config, model, basePath, router: new Router(model.operations, basePath), operations, clock, store, keys, limiter, journal, inFlight: { count: 0 } };
  const listeners: ((exchange: Exchange) => void)[] = [];

  const reset = async (): Promise<void> => {
    await store.reset();
    keys.reset();
    limiter.reset();
    clock.reset();
    journal.clear();
  };

  const handle = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const started = performance.now();
    let exchange: Omit<Exchange, 'durationMs' | 'request'>;
    try {
      if (req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`)) {
        exchange = { response: await handleAdmin(parts, { reset }, req), operationId: undefined, keyId: undefined };
      } else {
        parts.inFlight.count++;
        try {
          const result = await runPipeline(parts, req);
          exchange = { response: checked(parts, result.operation, result.response), operationId: result.operation?.id, keyId: result.keyId };
        } finally {
          parts.inFlight.count--;
        }
      }
    } catch (error) {
      const body = errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`);
      exchange = { response: { status: 500, headers: {}, body }, operationId: undefined, keyId: undefined, error };
    }
    const response = withStandardHeaders(exchange.response, req.id);
    const durationMs = performance.now() - started;
    const body = response.body as { code?: string } | undefined;
    journal.add({
      id: req.id,
      time: clock.now(),
      method: req.method,
      path: req.path,
      query: req.query,
      operationId: exchange.operationId,
      status: response.status,
      code: response.status >= 400 ? body?.code : undefined,
      keyId: exchange.keyId,
      durationMs,
    });
    for (const listener of listeners) listener({ ...exchange, response, request: req, durationMs });
    return response;
  };

  return { config, model, basePath, clock, store, handle, reset, onExchange: (listener) => listeners.push(listener) };
}

function compileOperation(model: ApiModel, op: OperationSpec, compiler: SchemaCompiler, config: SandboxConfig, basePath: string, referenceDate: Date): CompiledOperation {
  const plan = planDispatch(model, op);
  let mock: SandboxResponse | undefined;
  return {
    validator: new RequestValidator(op, compiler, model.document, config.validation),
    plan,
    check: new ResponseCheck(op, compiler),
    lifecycleHeaders: lifecycleHeaders(model, op, basePath),
    mock: () => (mock ??= mockAnswer(model.document, op, config.seed, referenceDate)),
  };
}

/**
 * Deprecation (RFC 9745, a structured-field date: `x-deprecated-since`, else `@0` for "already"),
 * Sunset (RFC 8594, from `x-sunset`) and a `successor-version` link to `x-replaced-by`.
 */
function lifecycleHeaders(model: ApiModel, op: OperationSpec, basePath: string): Record<string, string> {
  const { deprecated, deprecatedSince, sunset, replacedBy } = op.lifecycle;
  const headers: Record<string, string> = {};
  if (deprecated) headers.deprecation = `@${deprecatedSince ? Math.floor(deprecatedSince.getTime() / 1000) : 0}`;
  if (sunset) headers.sunset = sunset.toUTCString();
  const successor = replacedBy ? model.operations.find((o) => o.id === replacedBy) : undefined;
  if (replacedBy && !successor) throw new Error(`x-replaced-by names ${replacedBy}, which is not an operation`);
  if (successor) headers.link = `<${basePath}${successor.pathTemplate}>; rel="successor-version"`;
  return headers;
}

/** With `validation.checkResponses`, an answer that breaks the document becomes a 500 naming why. */
function checked(parts: Parts, operation: OperationSpec | undefined, response: SandboxResponse): SandboxResponse {
  if (!parts.config.validation.checkResponses || !operation) return response;
  const violations = parts.operations.get(operation)?.check.check(response) ?? [];
  if (violations.length === 0) return response;
  const summary = violations.map((v) => `${v.location} ${v.message}`).join('; ');
  return { status: 500, headers: {}, body: errorBody('response_contract_violation', `The sandbox's answer (${response.status}) breaks the document: ${summary}`, violations) };
}

function withStandardHeaders(response: SandboxResponse, requestId: string): SandboxResponse {
  const headers: Record<string, string> = { ...response.headers, 'x-request-id': requestId };
  if (response.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
  return { ...response, headers };
}
