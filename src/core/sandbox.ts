import { performance } from 'node:perf_hooks';
import { ADMIN_PREFIX, adminSurface } from '../admin/admin-surface.js';
import { KeyRegistry } from '../auth/key-registry.js';
import type { SandboxClock } from '../clock/clock.js';
import { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import { buildGeneration, type Generation } from '../generation/generation.js';
import { Journal, toJournalEntry } from '../journal/journal.js';
import { MemoryCounterStore } from '../limits/counter-store.js';
import { Limiter } from '../limits/limiter.js';
import { buildApiModel } from '../openapi/build-model.js';
import { loadDocument } from '../openapi/load-document.js';
import { answerHeaders } from '../pipeline/answer-headers.js';
import { apiSurface } from '../pipeline/api-surface.js';
import { runPipeline, type PipelineResult } from '../pipeline/pipeline.js';
import type { Surface } from '../pipeline/surface.js';
import { loadFixtures, NO_FIXTURES } from '../seeding/fixtures.js';
import { MemoryRecordStore } from '../store/memory-store.js';
import type { RecordStore } from '../store/record-store.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Exchange, SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { ApiModel } from '../vocabulary/operation.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

export interface Sandbox {
  /** The document's current generation (model, routes, validators). */
  readonly generation: () => Generation;
  /** The current generation's operation model. */
  readonly model: ApiModel;
  /** The path prefix the API is served under. */
  readonly basePath: string;
  /** Largest request body accepted, in bytes (the edge refuses larger ones before reading them). */
  readonly bodyLimit: number;
  /** The records, behind the record-store contract. */
  readonly store: RecordStore;
  /** The default workspace's clock. */
  readonly clock: SandboxClock;
  /** Answers one request. Never throws: a bug becomes a 500 in the Error shape. */
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  onExchange(listener: (exchange: Exchange) => void): void;
  /** Back to the seeded state: store, issued keys, counters, bans, clock and journal. */
  reset(): Promise<void>;
}

/**
 * Builds a sandbox from its configuration: everything is loaded and compiled here, once, and each
 * part is handed only the slice of configuration and the services it uses.
 */
export async function createSandbox(config: SandboxConfig): Promise<Sandbox> {
  const model = buildApiModel(await loadDocument(config.spec));
  const fixtures = config.fixtures ? await loadFixtures(config.fixtures) : NO_FIXTURES;
  const generation = buildGeneration(model, 1, {
    basePath: config.basePath,
    seed: config.seed,
    referenceDate: fixtures.referenceDate,
    validation: config.validation,
  });
  const frozenAt = config.clock.frozenAt === null ? undefined : Date.parse(config.clock.frozenAt);
  const clocks = new WorkspaceClocks(Date.now, frozenAt);
  const store = await MemoryRecordStore.open(model, fixtures, config.seed, config.data);
  const keys = new KeyRegistry(config.keys);
  const limiter = new Limiter(config.plans, config.bans, new MemoryCounterStore());
  const journal = new Journal(config.journalSize);
  const listeners: ((exchange: Exchange) => void)[] = [listenerOf(journal, clocks)];
  const current = (): Generation => generation;
  let inFlight = 0;

  const reset = async (): Promise<void> => {
    await store.reset();
    keys.reset();
    await limiter.reset();
    clocks.reset();
    journal.clear();
  };

  const api = apiSurface({
    generation: current,
    keys,
    limiter,
    clocks,
    store,
    settings: {
      cors: config.cors,
      bodyLimit: config.bodyLimit,
      anonymousPlan: config.anonymousPlan,
      checkResponses: config.validation.checkResponses,
    },
  });
  const admin: Surface | undefined =
    config.adminToken === null
      ? undefined
      : await adminSurface(
          { token: config.adminToken, checkResponses: config.validation.checkResponses },
          { reset, clocks, keys, plans: Object.keys(config.plans), limiter, journal, inFlight: () => inFlight },
        );

  const handle = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const started = performance.now();
    let result: PipelineResult;
    let failure: { error: unknown } | undefined;
    const toAdmin = req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`);
    // In flight: API requests only (the admin API's metrics report it).
    if (!toAdmin) inFlight++;
    try {
      if (!toAdmin) result = await runPipeline(api, req);
      else if (admin) result = await runPipeline(admin, req);
      else result = bare(req, errorBody('route_not_found', 'The admin API is disabled: start the sandbox with an admin token'));
    } catch (error) {
      result = bare(req, errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`));
      failure = { error };
    } finally {
      if (!toAdmin) inFlight--;
    }
    const { response, operation, caller } = result;
    const done: Exchange = {
      request: req,
      response,
      operationId: operation?.id,
      keyId: caller?.keyId,
      durationMs: performance.now() - started,
      ...failure,
    };
    for (const listener of listeners) listener(done);
    return response;
  };

  return {
    generation: current,
    get model() {
      return current().model;
    },
    get basePath() {
      return current().basePath;
    },
    bodyLimit: config.bodyLimit,
    store,
    clock: clocks.of(DEFAULT_WORKSPACE),
    handle,
    reset,
    onExchange: (listener) => listeners.push(listener),
  };
}

/** The journal hangs off the exchange events like any other listener. */
function listenerOf(journal: Journal, clocks: WorkspaceClocks): (exchange: Exchange) => void {
  const clock = clocks.of(DEFAULT_WORKSPACE);
  return (exchange) => journal.add(toJournalEntry(exchange, clock.now()));
}

/** An answer the sandbox gives outside any surface: the Error shape, the standard headers. */
function bare(req: SandboxRequest, body: ErrorBody): PipelineResult {
  return {
    response: { status: body.status, headers: answerHeaders({ own: {}, requestId: req.id, hasBody: true }), body },
    operation: undefined,
    caller: undefined,
  };
}
