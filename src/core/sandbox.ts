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
import type { Generation } from '../generation/generation.js';
import { Journal, toJournalEntry } from '../journal/journal.js';
import { redactionFor, type Redaction } from '../journal/redaction.js';
import { Limiter } from '../limits/limiter.js';
import { banHint } from './ban-hint.js';
import { webhooksPart, type WebhooksPart } from './webhooks.js';
import { sendCallbacks } from './callbacks.js';
import { tiedWebhooks, webhookBody } from './document-events.js';
import { declaredTransitions, transitionsPart } from './transitions.js';
import { RuleStore } from '../rules/rule-store.js';
import { answerHeaders } from '../answers/answer-headers.js';
import { apiSurface } from '../pipeline/api-surface.js';
import { runPipeline, type PipelineResult } from '../pipeline/pipeline.js';
import type { Surface } from '../pipeline/surface.js';
import type { RecordStore } from '../store/record-store.js';
import type { Replication } from '../replicas/replication.js';
import { errorBody, Unavailable, type ErrorBody } from '../vocabulary/errors.js';
import type { Exchange, SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { ApiModel } from '../vocabulary/operation.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { WorkspaceRegistry } from '../workspaces/registry.js';
import { Workspaces } from '../workspaces/workspaces.js';
import type { ReloadOutcome, SandboxStatus } from '../vocabulary/reload.js';
import { keptState, restoreKept } from './kept-state.js';
import { readDocument } from '../openapi/load-document.js';
import { createPages } from '../pages/pages.js';
import { invalidRecords, loadServed, type Served } from './served.js';
import { healthAnswer } from './health.js';
import { openBackend } from './backend.js';
import { mcpDoor } from '../mcp/door.js';
import type { SandboxOptions, StartupProgress } from './startup-progress.js';

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
  /**
   * Reads the document, its `$ref`'d files, the fixtures (and the config, given `reloadConfig`)
   * again, builds the next generation aside and swaps it in; on failure the last good one serves.
   * State is kept. Reloads run one at a time.
   */
  reload(): Promise<ReloadOutcome>;
  /** The generation serving, its files, the last reload. */
  status(): SandboxStatus;
  /**
   * What the journal redacts as of the last reload (the document's credential names, the config's
   * secrets): the request log shows a query string redacted the same way.
   */
  readonly redaction: () => Redaction;
  /** Webhook subscriptions to store changes and their deliveries (docs/webhooks.md). */
  readonly webhooks: Pick<WebhooksPart, 'subscriptions' | 'deliveries'>;
  /** Stops: the store's acknowledged changes made durable, its files and connections closed. */
  close(): Promise<void>;
}

/**
 * Builds a sandbox from its configuration: everything is loaded and compiled here, once, and each
 * part is handed only the slice of configuration and the services it uses.
 */
export async function createSandbox(initialConfig: SandboxConfig, options: SandboxOptions = {}): Promise<Sandbox> {
  const { onProgress } = options;
  let config = initialConfig;
  let served = await loadServed(config, 1, onProgress);
  /** When the serving generation was loaded: at start, then at each reload that loads. */
  let loadedAt = Date.now();
  let generation = served.generation;
  const { model } = served;
  const frozenAt = config.clock.frozenAt === null ? undefined : Date.parse(config.clock.frozenAt);
  const clocks = new WorkspaceClocks(Date.now, frozenAt);
  // Notices go to listeners the CLI adds after start; the backend may need to report before.
  const noticeListeners: ((notice: Notice) => void)[] = [];
  const notify = (notice: Notice): void => {
    for (const listener of noticeListeners) listener(notice);
  };
  const backend = await openBackend(
    config,
    served.seeder,
    (done, total) => onProgress?.({ phase: 'seeding', done, total }),
    (error) => notify({ level: 'warn', message: `rate limits decided without Redis (${config.redis.outage}): ${error.message}` }),
  );
  const { store } = backend;
  served.keptSeed?.save();
  const keys = new KeyRegistry(config.keys);
  const tokens = new TokenStore();
  const limiter = new Limiter(config.plans, config.bans, backend.counters, banHint(config.adminToken !== null));
  let redaction = journalRedaction(config, model);
  const journal = new Journal(config.journalSize, redaction);
  // The journal's readers are the admin API and the console (and, on Redis, the other replicas'):
  // with neither, nothing could ever read it, and it is not kept (an admin token takes a restart).
  const journaled = config.adminToken !== null || config.redis.url !== null;
  const listeners: ((exchange: Exchange) => void)[] = journaled ? [listenerOf(journal, clocks)] : [];
  const rules = new RuleStore();
  // The document's own webhooks, tied to store changes at start (a reload does not tie them again).
  const documentEvents = tiedWebhooks(generation);
  for (const message of documentEvents.warnings) onProgress?.({ phase: 'warning', message });
  const webhooks = webhooksPart(config.webhooks, config.seed, clocks, (message) => notify({ level: 'warn', message }), {
    event: (name) => documentEvents.tied.get(name)?.event,
    body: (name, change, at) => {
      const webhook = documentEvents.tied.get(name);
      return webhook === undefined ? undefined : webhookBody(generation, webhook, change, config.seed, at);
    },
  });
  // A store change a subscription listens for is queued after its answer is made (src/webhooks/).
  listeners.push(webhooks.listener);
  // Records that move through their states on the clock (src/transitions/): what the config and the
  // document declare, read once at start; a change a transition makes is delivered like a request's.
  const declared = declaredTransitions(config.transitions, generation);
  if (declared.problems.length > 0) throw new Error(`timed transitions: ${declared.problems.join('; ')}`);
  const transitions = transitionsPart(declared.rules, {
    store,
    clocks,
    generation: () => generation,
    emit: webhooks.changed,
    warn: (message) => notify({ level: 'warn', message }),
  });
  if (transitions.declared) {
    listeners.push((exchange) => {
      if (exchange.change !== undefined) transitions.observe(exchange.change);
    });
  }
  /** What a workspace reset or removal clears of the webhooks and transitions. */
  const outbound = {
    forget: async (workspace: string): Promise<void> => {
      transitions.forget(workspace);
      await webhooks.forget(workspace);
    },
  };
  const workspaces = new Workspaces({
    registry: new WorkspaceRegistry(
      // Read at each creation: a reloaded config's visitor settings apply at once.
      () => ({ max: config.maxWorkspaces, visitors: config.pages.visitorWorkspaces, idleMs: config.workspaceIdleSeconds * 1000 }),
      configuredWorkspaces(config),
      () => clocks.of(DEFAULT_WORKSPACE).now(),
    ),
    store,
    clocks,
    keys,
    limiter,
    rules,
    journal,
    webhooks: outbound,
    onEvicted: (evicted) =>
      notify({
        level: 'warn',
        message: `workspace ${evicted.id} was evicted to make room (maxWorkspaces ${config.maxWorkspaces}); its keys no longer work`,
      }),
  });
  // With a data file, issued keys, created workspaces and clock offsets are kept beside the records.
  const keptParts = { keys, workspaces, clocks };
  /** With Redis: this replica among the others (set once every part exists, below). */
  let replication: Replication | undefined;
  if (config.data !== null) restoreKept(store.kept(), keptParts, config.data);
  /** Writes them after each admin change (rare: the whole state is small). */
  const keepState = async (): Promise<void> => {
    // With replicas, Redis keeps it (see `handle`).
    if (config.data === null || replication) return;
    try {
      await store.keep(keptState(keptParts));
    } catch (error) {
      notify({ level: 'error', message: `the data file could not be written: ${(error as Error).message}` });
    }
  };
  const current = (): Generation => generation;
  let inFlight = 0;

  const draws = createDrawStreams(config.seed);

  /** What this process holds of the state back to the start (with replicas, each does this itself). */
  const resetOwn = (): void => {
    keys.reset();
    workspaces.resetAll();
    tokens.reset();
    clocks.reset();
    draws.reset();
    rules.reset();
    journal.clear();
    webhooks.subscriptions.reset();
    transitions.reset();
  };
  const reset = async (): Promise<void> => {
    // Records and counters, shared or not, are reset once, here.
    await store.reset();
    await limiter.reset();
    await webhooks.deliveries.reset();
    resetOwn();
    replication?.note({ kind: 'reset' });
  };

  /** What the config and the document decide of the API surface and the token endpoint: rebuilt on a reload. */
  const wire = (conf: SandboxConfig, from: Served) => ({
    api: apiSurface({
      generation: current,
      faults: { policy: conf.faults, defaults: configSettings(conf.faults), draws },
      rules,
      keys,
      tokens,
      limiter,
      clocks,
      store,
      settings: {
        cors: conf.cors,
        bodyLimit: conf.bodyLimit,
        anonymousPlan: conf.anonymousPlan,
        checkResponses: conf.validation.checkResponses,
      },
    }),
    // The OAuth 2 token endpoint is answered before either surface: under the admin prefix (even with
    // the admin API off) and at the document's own tokenUrl; API keys are redacted from journaled queries.
    mintToken: tokenEndpoint({ keys, tokens, clocks, limiter, anonymousPlan: conf.anonymousPlan }),
    toTokenEndpoint: tokenRoutes(from.model.securitySchemes, from.generation.basePath, `${ADMIN_PREFIX}/oauth/token`),
    secretQuery: credentialQueryNames(from.model.securitySchemes),
  });
  let wired = wire(config, served);

  let lastReload: ReloadOutcome | undefined;
  let reloads: Promise<unknown> = Promise.resolve();
  /** Builds the next generation aside from the files as they are now, and swaps it in; the last good one serves on failure. */
  const reloadOnce = async (): Promise<ReloadOutcome> => {
    const at = new Date().toISOString();
    let next: { readonly conf: SandboxConfig; readonly from: Served };
    try {
      const conf = options.reloadConfig ? await options.reloadConfig() : config;
      // The new document's warnings (an example that breaks its schema, an unreachable operation) are logged.
      const warn = (event: StartupProgress): void => {
        if (event.phase === 'warning') notify({ level: 'warn', message: event.message });
      };
      next = { conf, from: await loadServed(conf, generation.number + 1, warn) };
    } catch (error) {
      const outcome: ReloadOutcome = { ok: false, at, generation: generation.number, errors: [(error as Error).message] };
      notify({ level: 'error', message: `reload failed; generation ${generation.number} still serves: ${outcome.errors.join('; ')}` });
      return outcome;
    }
    const { conf, from } = next;
    const restartNeeded = RESTART_FIELDS.filter((field) => JSON.stringify(conf[field]) !== JSON.stringify(config[field]));
    store.useSeeder(from.seeder);
    limiter.setPlans(conf.plans, conf.bans);
    keys.setConfigured(conf.keys);
    workspaces.addConfigured(configuredWorkspaces(conf));
    redaction = journalRedaction(conf, from.model);
    journal.setRedaction(redaction);
    wired = wire(conf, from);
    // One reference: a request in flight finishes on the generation it started on.
    generation = from.generation;
    loadedAt = Date.now();
    served.keptSeed?.save();
    served = from;
    config = { ...conf, ...Object.fromEntries(restartNeeded.map((field) => [field, config[field]])) };
    const invalid = invalidRecords(from.generation, await collect(store.stored()));
    const outcome: ReloadOutcome = {
      ok: true,
      at,
      generation: from.generation.number,
      errors: [],
      operations: from.model.operations.length,
      invalidRecords: invalid,
      ...(restartNeeded.length > 0 ? { restartNeeded } : {}),
    };
    const broken = invalid.reduce((sum, { count }) => sum + count, 0);
    notify({
      level: broken > 0 || restartNeeded.length > 0 ? 'warn' : 'info',
      message:
        `reloaded: generation ${outcome.generation}, ${outcome.operations ?? 0} operations` +
        (broken > 0 ? `; ${broken} stored records no longer match the document (kept as they are)` : '') +
        (restartNeeded.length > 0 ? `; ${restartNeeded.join(', ')} changed and take effect only after a restart` : ''),
    });
    return outcome;
  };
  // Reloads run one at a time; one asked for while another runs starts after it, from the files as they are then.
  const reload = (): Promise<ReloadOutcome> => {
    const run = reloads.then(reloadOnce).then((outcome) => (lastReload = outcome));
    reloads = run.catch(() => undefined);
    return run;
  };
  if (backend.links && config.redis.url !== null) {
    const { startReplication } = await import('../replicas/replication.js');
    replication = await startReplication(
      backend.links,
      { url: config.redis.url, prefix: config.redis.prefix, journalSize: config.journalSize },
      { keys, workspaces, clocks, rules, tokens, journal },
      { resetOwn, reload },
    );
  }
  const status = (): SandboxStatus => ({
    generation: generation.number,
    loadedAt: new Date(loadedAt).toISOString(),
    // What a reload reads again: the served files and the config file.
    files:
      options.configFile === undefined || served.files.includes(options.configFile) ? served.files : [...served.files, options.configFile],
    ...(lastReload === undefined ? {} : { lastReload }),
  });

  // The admin API is built (its document read, its validators compiled) on the first request under
  // its prefix, not at start: an admin token costs a start nothing (about 130 ms here), and the first
  // admin request pays it once. The document is ours; every admin test builds it.
  let adminBuilt: Promise<Surface> | undefined;
  const adminToken = config.adminToken;
  const admin: (() => Promise<Surface>) | undefined =
    adminToken === null
      ? undefined
      : () =>
          (adminBuilt ??= adminSurface(
            { token: adminToken, checkResponses: config.validation.checkResponses, cacheDir: config.cacheDir },
            {
              reset,
              // Asked of one replica, a reload reaches them all (each reads its own files).
              reload: () => {
                replication?.note({ kind: 'reload' });
                return reload();
              },
              status,
              clocks,
              keys,
              plans: () => Object.keys(config.plans),
              limiter,
              journal,
              rules,
              workspaces,
              api: current,
              inFlight: () => inFlight,
              webhooks,
              transitions,
            },
          ));

  // MCP for coding agents (docs/mcp.md), with the admin API: each tool call comes back in through `handle`.
  const mcp =
    adminToken === null
      ? undefined
      : mcpDoor(
          { handle: (req) => handle(req), generation: current },
          {
            adminToken,
            cacheDir: config.cacheDir,
            fail: (error) => notify({ level: 'error', message: `MCP: ${(error as Error).message}` }),
          },
        );

  // The pages a browser opens: served before the API, never journaled or counted against a key.
  const pages = createPages(
    {
      docsPath: config.pages.docs,
      visitorPlan: config.pages.visitorKeys ? (config.pages.visitorPlan ?? config.anonymousPlan) : null,
      visitorKeysPerMinute: config.pages.visitorKeysPerMinute,
      consolePath: admin && config.pages.console ? `${ADMIN_PREFIX}/console` : null,
      tokenPath: `${ADMIN_PREFIX}/oauth/token`,
    },
    {
      generation: current,
      document: async () => (await readDocument(config.spec, { cacheDir: config.cacheDir })).document,
      keys,
      workspaces,
      clock: clocks.of(DEFAULT_WORKSPACE),
      keep: keepState,
      warn: (message) => notify({ level: 'warn', message }),
    },
  );

  /** Whether a request may change what the replicas share (the admin API's changes, a token or a visitor key minted). */
  const sharesChange = (req: SandboxRequest): boolean =>
    !READS.has(req.method) &&
    (req.path.startsWith(`${ADMIN_PREFIX}/`) ||
      isTokenRequest(wired.toTokenEndpoint, req) ||
      (config.pages.docs !== null && req.path.startsWith(`${config.pages.docs}/`)));

  const handle = (req: SandboxRequest): Promise<SandboxResponse> => {
    const viaMcp = mcp?.(req);
    if (viaMcp !== undefined) return viaMcp;
    if (replication === undefined || !sharesChange(req)) return serve(req);
    // Every replica has the change before it is answered.
    return replication
      .change(() => serve(req))
      .catch((error: unknown) => {
        if (error instanceof Unavailable) {
          notify({ level: 'error', message: `a change could not be shared with the other replicas: ${error.message}` });
          return unavailable(
            req,
            'Redis cannot be reached: the change was made on this replica only, and is undone when Redis is back',
            generation.label,
          );
        }
        notify({ level: 'error', message: `sharing a change failed: ${(error as Error).message}` });
        return bare(
          req,
          errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`),
          generation.label,
        ).response;
      });
  };

  const serve = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const probe = healthAnswer(req, () => replication?.problem(), generation.label);
    if (probe !== undefined) return probe;
    const page = pages.answer(req);
    if (page !== undefined) {
      return page.catch(
        (): SandboxResponse =>
          bare(req, errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`), generation.label)
            .response,
      );
    }
    const started = performance.now();
    let result: PipelineResult;
    let failure: { error: unknown } | undefined;
    const { api, mintToken, toTokenEndpoint, secretQuery } = wired;
    const toToken = isTokenRequest(toTokenEndpoint, req);
    const toAdmin = !toToken && (req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`));
    // An admin change made while the other replicas cannot be told would hold on this one only.
    const cut = toAdmin && admin && !READS.has(req.method) ? replication?.problem() : undefined;
    if (cut !== undefined) return unavailable(req, `${cut}: admin changes wait until it is back`, generation.label);
    // In flight: API requests only (the admin API's metrics report it).
    if (!toAdmin) inFlight++;
    try {
      if (toToken) result = tokenResult(req, await mintToken(req), generation.label);
      else if (!toAdmin) result = await runPipeline(api, req);
      else if (admin) result = await runPipeline(await admin(), req);
      else
        result = bare(
          req,
          errorBody('route_not_found', 'The admin API is disabled: start the sandbox with an admin token'),
          generation.label,
        );
    } catch (error) {
      result = bare(
        req,
        errorBody('internal_error', `The sandbox failed on this request (id ${req.id}); it has been logged`),
        generation.label,
      );
      failure = { error };
    } finally {
      if (!toAdmin) inFlight--;
    }
    const { response, operation, caller, requestBody, applied, change } = result;
    if (caller !== undefined && !toAdmin) workspaces.touch(caller.workspace);
    // An admin change (a key issued, a workspace made or removed, a clock moved) is kept before it is answered.
    if (toAdmin && !READS.has(req.method) && response.status < 400) {
      await keepState();
      // A clock moved (or a workspace reset, a delivery replayed): transitions and retries now due go at once.
      await transitions.due();
      webhooks.clockMoved();
    }
    const done: Exchange = {
      request: secretQuery.size === 0 ? req : { ...req, query: redactQuery(req.query, secretQuery) },
      response,
      operationId: operation?.id,
      keyId: caller?.keyId,
      keyName: caller?.keyName,
      workspace: caller?.workspace ?? DEFAULT_WORKSPACE,
      durationMs: performance.now() - started,
      ...failure,
      requestBody,
      applied,
      change,
    };
    for (const listener of listeners) listener(done);
    if (result.callbacks !== undefined && caller !== undefined) {
      try {
        sendCallbacks(result.callbacks, {
          workspace: caller.workspace,
          generation,
          deliveries: webhooks.deliveries,
          secret: webhooks.callbackSecret,
          seed: config.seed,
          now: clocks.of(caller.workspace).now(),
          warn: (message) => notify({ level: 'warn', message }),
        });
      } catch (error) {
        // A callback that cannot be made is the log's to say; the answer is made already.
        notify({ level: 'warn', message: `callbacks: ${(error as Error).message}` });
      }
    }
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
    reload,
    status,
    redaction: () => redaction,
    webhooks,
    close: async () => {
      served.keptSeed?.save();
      webhooks.close();
      transitions.close();
      await store.close();
      await replication?.close();
    },
  };
}

/** Every item of a list read synchronously or not. */
async function collect<T>(items: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Admin requests that change nothing. */
const READS = new Set(['GET', 'HEAD']);

/** 503 for a change the replicas cannot be told of. */
function unavailable(req: SandboxRequest, problem: string, generation: string): SandboxResponse {
  const answer = bare(req, errorBody('service_unavailable', problem), generation).response;
  return { ...answer, headers: { ...answer.headers, 'retry-after': '1' } };
}

/** Config fields a running sandbox cannot take on: a reload that changes them says a restart is needed. */
const RESTART_FIELDS = [
  'host',
  'port',
  'adminToken',
  'data',
  'fsync',
  'seed',
  'clock',
  'bodyLimit',
  'journalSize',
  'maxWorkspaces',
  'log',
  'redis',
  'webhooks',
] as const;

/** The workspaces the config's keys name (created at start, permanent). */
const configuredWorkspaces = (config: SandboxConfig): string[] =>
  config.keys.flatMap((k) => (k.workspace === undefined ? [] : [k.workspace]));

/** The journal redacts the document's apiKey names and every literal secret it knows, when an entry is read. */
function journalRedaction(config: SandboxConfig, model: ApiModel): Redaction {
  const secrets = [
    ...(config.adminToken === null ? [] : [config.adminToken]),
    ...config.keys.flatMap((k) => (k.password === undefined ? [k.key] : [k.key, k.password])),
  ];
  return redactionFor(model.securitySchemes, secrets);
}

/**
 * The journal hangs off the exchange events like any other listener; an entry's time is its
 * workspace's. The admin API's reads are not journaled: a console or a suite polling them would push
 * the API's own requests out of the journal; its changes (a reset, a clock move, a rule) are.
 */
function listenerOf(journal: Journal, clocks: WorkspaceClocks): (exchange: Exchange) => void {
  return (exchange) => {
    if (!journal.wants()) return;
    const { method, path } = exchange.request;
    if ((method === 'GET' || method === 'HEAD') && (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`))) return;
    journal.add(toJournalEntry(exchange, clocks.of(exchange.workspace).now()));
  };
}

/** An answer the sandbox gives outside any surface: the Error shape, the standard headers. */
function bare(req: SandboxRequest, body: ErrorBody, generation: string): PipelineResult {
  return {
    response: { status: body.status, headers: answerHeaders({ own: {}, requestId: req.id, generation, hasBody: true }), body },
    operation: undefined,
    caller: undefined,
  };
}

/** The token endpoint's answer with the standard headers, counted against the client's key in the journal. */
function tokenResult(req: SandboxRequest, answer: TokenAnswer, generation: string): PipelineResult {
  const { response, key } = answer;
  return {
    response: { ...response, headers: answerHeaders({ own: response.headers, requestId: req.id, generation, hasBody: true }) },
    operation: undefined,
    caller: key && { client: key, keyId: key.id, keyName: key.name, workspace: key.workspace },
  };
}
