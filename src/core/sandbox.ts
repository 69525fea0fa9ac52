import { performance } from 'node:perf_hooks';
import { ADMIN_PREFIX, adminSurface } from '../admin/admin-surface.js';
import { KeyRegistry } from '../auth/key-registry.js';
import { credentialQueryNames, redactQuery } from '../auth/redact.js';
import { tokenEndpoint, type TokenAnswer } from '../auth/token-endpoint.js';
import { isTokenRequest, tokenRoutes } from '../auth/token-routes.js';
import { TokenStore } from '../auth/token-store.js';
import type { SandboxClock } from '../clock/clock.js';
import { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import { createDrawStreams } from '../faults/draws.js';
import { configSettings } from '../faults/settings.js';
import { buildGeneration, EAGER_OPERATIONS, type Generation } from '../generation/generation.js';
import { Journal, toJournalEntry } from '../journal/journal.js';
import { redactionFor } from '../journal/redaction.js';
import { MemoryCounterStore } from '../limits/counter-store.js';
import { Limiter } from '../limits/limiter.js';
import { exampleWarnings } from '../mock/example-check.js';
import { buildApiModel } from '../openapi/build-model.js';
import { readDocument } from '../openapi/load-document.js';
import { RuleStore } from '../rules/rule-store.js';
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
import { WorkspaceRegistry } from '../workspaces/registry.js';
import { Workspaces } from '../workspaces/workspaces.js';
import type { SandboxOptions } from './startup-progress.js';

/** Something that happened while the sandbox ran, for the log. */
export interface Notice {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

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
  /** Told of what happens while the sandbox runs that an operator should know (a workspace evicted). */
  onNotice(listener: (notice: Notice) => void): void;
  /** Back to the seeded state: store, issued keys, workspaces, counters, bans, clocks, journal and rules. */
  reset(): Promise<void>;
  /** The workspaces: each key's own records, clock, journal entries and rules. */
  readonly workspaces: Workspaces;
}

/**
 * Builds a sandbox from its configuration: everything is loaded and compiled here, once, and each
 * part is handed only the slice of configuration and the services it uses.
 */
export async function createSandbox(config: SandboxConfig, options: SandboxOptions = {}): Promise<Sandbox> {
  const { onProgress } = options;
  const loaded = await readDocument(config.spec, onProgress);
  const built = buildApiModel(loaded.document, loaded.locate);
  // Examples that break their own schemas are reported at start and set aside (unless the config
  // serves them). A large document's examples are checked when first served instead: compiling
  // every example's schema costs seconds on GitHub's description (measured), and an invalid one
  // is never served either way (mock/mock-answer.ts checks before serving).
  const checkExamples = !config.validation.serveInvalidExamples && built.operations.length <= EAGER_OPERATIONS;
  const model = checkExamples ? { ...built, warnings: [...built.warnings, ...exampleWarnings(built)] } : built;
  for (const message of model.warnings) onProgress?.({ phase: 'warning', message });
  const fixtures = config.fixtures ? await loadFixtures(config.fixtures) : NO_FIXTURES;
  const generation = buildGeneration(
    model,
    1,
    {
      basePath: config.basePath,
      seed: config.seed,
      referenceDate: fixtures.referenceDate,
      validation: config.validation,
      serveInvalidExamples: config.validation.serveInvalidExamples,
    },
    onProgress,
  );
  for (const message of generation.warnings) onProgress?.({ phase: 'warning', message });
  const frozenAt = config.clock.frozenAt === null ? undefined : Date.parse(config.clock.frozenAt);
  const clocks = new WorkspaceClocks(Date.now, frozenAt);
  const store = await MemoryRecordStore.open(model, fixtures, config.seed, config.data, (done, total) =>
    onProgress?.({ phase: 'seeding', done, total }),
  );
  const keys = new KeyRegistry(config.keys);
  const tokens = new TokenStore();
  const limiter = new Limiter(config.plans, config.bans, new MemoryCounterStore());
  // The OAuth 2 token endpoint is answered before either surface: under the admin prefix (even with
  // the admin API off) and at the document's own tokenUrl; API keys are redacted from journaled queries.
  const mintToken = tokenEndpoint({ keys, tokens, clocks, limiter, anonymousPlan: config.anonymousPlan });
  const toTokenEndpoint = tokenRoutes(model.securitySchemes, generation.basePath, `${ADMIN_PREFIX}/oauth/token`);
  const secretQuery = credentialQueryNames(model.securitySchemes);
  // The journal redacts the document's apiKey names and every literal secret it knows, when an entry is read.
  const secrets = [
    ...(config.adminToken === null ? [] : [config.adminToken]),
    ...config.keys.flatMap((k) => (k.password === undefined ? [k.key] : [k.key, k.password])),
  ];
  const journal = new Journal(config.journalSize, redactionFor(model.securitySchemes, secrets));
  const listeners: ((exchange: Exchange) => void)[] = [listenerOf(journal, clocks)];
  const noticeListeners: ((notice: Notice) => void)[] = [];
  const rules = new RuleStore();
  const configured = config.keys.flatMap((k) => (k.workspace === undefined ? [] : [k.workspace]));
  const workspaces = new Workspaces({
    registry: new WorkspaceRegistry(config.maxWorkspaces, configured),
    store,
    clocks,
    keys,
    limiter,
    rules,
    journal,
    onEvicted: (evicted) => {
      const message = `workspace ${evicted.id} was evicted to make room (maxWorkspaces ${config.maxWorkspaces}); its keys no longer work`;
      for (const listener of noticeListeners) listener({ level: 'warn', message });
    },
  });
  const current = (): Generation => generation;
  let inFlight = 0;

  const draws = createDrawStreams(config.seed);

  const reset = async (): Promise<void> => {
    await store.reset();
    keys.reset();
    workspaces.resetAll();
    tokens.reset();
    await limiter.reset();
    clocks.reset();
    draws.reset();
    rules.reset();
    journal.clear();
  };

  const api = apiSurface({
    generation: current,
    faults: { policy: config.faults, defaults: configSettings(config.faults), draws },
    rules,
    keys,
    tokens,
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
          {
            reset,
            clocks,
            keys,
            plans: Object.keys(config.plans),
            limiter,
            journal,
            rules,
            workspaces,
            api: current,
            inFlight: () => inFlight,
          },
        );

  const handle = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const started = performance.now();
    let result: PipelineResult;
    let failure: { error: unknown } | undefined;
    const toToken = isTokenRequest(toTokenEndpoint, req);
    const toAdmin = !toToken && (req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`));
    // In flight: API requests only (the admin API's metrics report it).
    if (!toAdmin) inFlight++;
    try {
      if (toToken) result = tokenResult(req, await mintToken(req));
      else if (!toAdmin) result = await runPipeline(api, req);
      else if (admin) result = await runPipeline(admin, req);
      else result = bare(req, errorBody('route_not_found', 'The admin API is disabled: start the sandbox with an admin token'));
    } catch (error) {
      result = bare(req, errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`));
      failure = { error };
    } finally {
      if (!toAdmin) inFlight--;
    }
    const { response, operation, caller, requestBody, applied, change } = result;
    if (caller !== undefined && !toAdmin) workspaces.touch(caller.workspace);
    const done: Exchange = {
      request: secretQuery.size === 0 ? req : { ...req, query: redactQuery(req.query, secretQuery) },
      response,
      operationId: operation?.id,
      keyId: caller?.keyId,
      workspace: caller?.workspace ?? DEFAULT_WORKSPACE,
      durationMs: performance.now() - started,
      ...failure,
      requestBody,
      applied,
      change,
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
    onNotice: (listener) => noticeListeners.push(listener),
    workspaces,
  };
}

/** The journal hangs off the exchange events like any other listener; an entry's time is its workspace's. */
function listenerOf(journal: Journal, clocks: WorkspaceClocks): (exchange: Exchange) => void {
  return (exchange) => journal.add(toJournalEntry(exchange, clocks.of(exchange.workspace).now()));
}

/** An answer the sandbox gives outside any surface: the Error shape, the standard headers. */
function bare(req: SandboxRequest, body: ErrorBody): PipelineResult {
  return {
    response: { status: body.status, headers: answerHeaders({ own: {}, requestId: req.id, hasBody: true }), body },
    operation: undefined,
    caller: undefined,
  };
}

/** The token endpoint's answer with the standard headers, counted against the client's key in the journal. */
function tokenResult(req: SandboxRequest, answer: TokenAnswer): PipelineResult {
  const { response, key } = answer;
  return {
    response: { ...response, headers: answerHeaders({ own: response.headers, requestId: req.id, hasBody: true }) },
    operation: undefined,
    caller: key && { client: key, keyId: key.id, workspace: key.workspace },
  };
}
