import { ADMIN_PREFIX } from '../admin/admin-surface.js';
import { KeyRegistry } from '../auth/key-registry.js';
import { redactQuery } from '../auth/redact.js';
import { isTokenRequest } from '../auth/token-routes.js';
import { TokenStore } from '../auth/token-store.js';
import { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import { createDrawStreams } from '../faults/draws.js';
import type { Generation } from '../generation/generation.js';
import { Journal } from '../journal/journal.js';
import { Limiter } from '../limits/limiter.js';
import { banHint } from './ban-hint.js';
import { RuleStore } from '../rules/rule-store.js';
import type { Replication } from '../replicas/replication.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { WorkspaceRegistry } from '../workspaces/registry.js';
import { Workspaces } from '../workspaces/workspaces.js';
import type { ReloadOutcome, SandboxStatus } from '../vocabulary/reload.js';
import { keptState, restoreKept } from './kept-state.js';
import { wireApi, type Wired } from './api-wiring.js';
import { wireOutbound } from './outbound.js';
import { journalRedaction, listenerOf } from './journal-wiring.js';
import { restoreAtStart, workspaceSnapshots } from './snapshots.js';
import { SnapshotBook } from '../workspaces/snapshot-book.js';
import { forgetWorkspace, resetBackendParts, resetReplicaParts, sharedParts, stateParts } from './state-parts.js';
import { readDocument } from '../openapi/load-document.js';
import { createPages } from '../pages/pages.js';
import { loadServed } from './served.js';
import { Events } from './events.js';
import type { Sandbox } from './contract.js';
import { Reloader } from './reloader.js';
import { frontDoor } from './front-door.js';
import { adminDoor, apiDoor, healthDoor, pagesDoor, READS, tokenDoor } from './doors.js';
import { openBackend } from './backend.js';
import { MCP_PATH } from '../mcp/door.js';
import { lazyAdmin, mcpDoorOf } from './admin-wiring.js';
import type { SandboxOptions } from './startup-progress.js';

export type { Notice } from './events.js';

export type { Sandbox } from './contract.js';

/**
 * Builds a sandbox from its configuration: everything is loaded and compiled here, once, and each
 * part is handed only the slice of configuration and the services it uses. What serves (the config,
 * the generation) is the reloader's; how a request gets in is the front door's.
 */
export async function createSandbox(initialConfig: SandboxConfig, options: SandboxOptions = {}): Promise<Sandbox> {
  const { onProgress } = options;
  const events = new Events();
  const { notify } = events;
  const initial = await loadServed(initialConfig, 1, onProgress);
  const { model } = initial;
  const frozenAt = initialConfig.clock.frozenAt === null ? undefined : Date.parse(initialConfig.clock.frozenAt);
  const clocks = new WorkspaceClocks(Date.now, frozenAt);
  const backend = await openBackend(
    initialConfig,
    initial.seeder,
    (done, total) => onProgress?.({ phase: 'seeding', done, total }),
    (error) => notify({ level: 'warn', message: `rate limits decided without Redis (${initialConfig.redis.outage}): ${error.message}` }),
  );
  const { store } = backend;
  initial.keptSeed?.save();
  const keys = new KeyRegistry(initialConfig.keys);
  const tokens = new TokenStore();
  const limiter = new Limiter(initialConfig.plans, initialConfig.bans, backend.counters, banHint(initialConfig.adminToken !== null));
  let redaction = journalRedaction(initialConfig, model);
  const journal = new Journal(initialConfig.journalSize, redaction);
  const rules = new RuleStore();
  const draws = createDrawStreams(initialConfig.seed);

  const apiParts = { generation: () => current(), draws, rules, keys, tokens, limiter, clocks, store };
  let wired: Wired;
  const serving = new Reloader(initialConfig, initial, {
    store,
    options,
    notify,
    apply: (conf, from) => {
      store.useSeeder(from.seeder);
      limiter.setPlans(conf.plans, conf.bans);
      keys.setConfigured(conf.keys);
      workspaces.addConfigured(configuredWorkspaces(conf));
      redaction = journalRedaction(conf, from.model);
      journal.setRedaction(redaction);
      wired = wireApi(conf, from, apiParts);
    },
  });
  const current = (): Generation => serving.generation;
  const config = (): SandboxConfig => serving.config;
  wired = wireApi(initialConfig, initial, apiParts);

  // The journal's readers are the admin API and the console (and, on Redis, the other replicas'):
  // with neither, nothing could ever read it, and it is not kept (an admin token takes a restart).
  const journaled = initialConfig.adminToken !== null || initialConfig.redis.url !== null;
  if (journaled) events.on('exchange', listenerOf(journal, clocks));
  // Webhooks on store changes, timed transitions and OpenAPI callbacks (outbound.ts).
  const { webhooks, transitions, sendCallbacksOf } = wireOutbound({
    config: initialConfig,
    current,
    seed: () => config().seed,
    clocks,
    store,
    backend,
    events,
    journal: journaled ? journal : undefined,
    redaction: () => redaction,
    onProgress,
  });
  const workspaces = new Workspaces({
    registry: new WorkspaceRegistry(
      // Read at each creation: a reloaded config's visitor settings apply at once.
      () => ({ max: config().maxWorkspaces, visitors: config().pages.visitorWorkspaces, idleMs: config().workspaceIdleSeconds * 1000 }),
      configuredWorkspaces(initialConfig),
      () => clocks.of(DEFAULT_WORKSPACE).now(),
    ),
    store,
    clocks,
    keys,
    forget: (scope) => forgetWorkspace(parts, scope),
    onEvicted: (evicted) =>
      notify({
        level: 'warn',
        message: `workspace ${evicted.id} was evicted to make room (maxWorkspaces ${config().maxWorkspaces}); its keys no longer work`,
      }),
  });
  // Every part of the state, in one list that a reset, a workspace's reset, the data file and the
  // replicas each go through (state-parts.ts).
  const book = new SnapshotBook((id) => workspaces.has(id));
  const parts = stateParts({
    store,
    limiter,
    keys,
    workspaces,
    clocks,
    rules,
    tokens,
    draws,
    journal,
    webhooks,
    transitions,
    snapshots: book,
  });
  // Each workspace's named snapshots, taken from and put back into the same parts (snapshots.ts).
  const snapshots = workspaceSnapshots(parts, book, { scope: (id) => workspaces.scope(id), now: (id) => clocks.of(id).now() });
  /** With Redis: this replica among the others (set once every part exists, below). */
  let replication: Replication | undefined;
  // With a data file, the durable parts (keys issued, workspaces, clock offsets, rules, tokens) are kept beside the records.
  if (initialConfig.data !== null) restoreKept(store.kept(), parts, initialConfig.data);
  /** Writes them after each admin change (rare: the whole state is small). */
  const keepState = async (): Promise<void> => {
    // With replicas, Redis keeps it (see the front door).
    if (initialConfig.data === null || replication) return;
    try {
      await store.keep(keptState(parts));
    } catch (error) {
      notify({ level: 'error', message: `the data file could not be written: ${(error as Error).message}` });
    }
  };

  /** What this process holds of the state back to the start (with replicas, each does this itself). */
  const resetOwn = (): void => resetReplicaParts(parts);
  const reset = async (): Promise<void> => {
    // Records, counters and deliveries, shared or not, are reset once, here.
    await resetBackendParts(parts);
    resetOwn();
    replication?.note({ kind: 'reset' });
  };
  const reload = (): Promise<ReloadOutcome> => serving.reload();
  if (backend.links && initialConfig.redis.url !== null) {
    const { startReplication } = await import('../replicas/replication.js');
    replication = await startReplication(
      backend.links,
      { url: initialConfig.redis.url, prefix: initialConfig.redis.prefix, journalSize: initialConfig.journalSize },
      { parts: sharedParts(parts), journal, rules },
      {
        resetOwn,
        reload,
        dueNow: async () => {
          await transitions.due();
          webhooks.clockMoved();
        },
      },
    );
  }
  if (initialConfig.snapshot !== null) {
    const file = initialConfig.snapshot;
    const restore = (): Promise<void> => restoreAtStart(file, snapshots, book, (id) => workspaces.has(id));
    // With replicas, the others have it before this one answers; with a data file, it is kept.
    await (replication ? replication.change(restore) : restore());
    await keepState();
  }
  const status = (): SandboxStatus => serving.status();
  const touch = (workspace: string): void => workspaces.touch(workspace);
  const api = apiDoor({
    surface: () => wired.api,
    touch,
    answered: sendCallbacksOf,
  });

  // The admin API, built on its first request (admin-wiring.ts), and MCP beside it.
  const admin = lazyAdmin(initialConfig, {
    reset,
    // Asked of one replica, a reload reaches them all (each reads its own files).
    reload: () => {
      replication?.note({ kind: 'reload' });
      return reload();
    },
    status,
    clocks,
    keys,
    plans: () => Object.keys(config().plans),
    limiter,
    journal,
    rules,
    workspaces,
    api: current,
    inFlight: api.inFlight,
    webhooks,
    transitions,
    snapshots,
  });
  const mcp = mcpDoorOf(initialConfig, { handle: (req) => handle(req), generation: current }, notify);

  // The pages a browser opens: served before the API, never journaled or counted against a key.
  const pages = createPages(
    {
      docsPath: initialConfig.pages.docs,
      visitorPlan: initialConfig.pages.visitorKeys ? (initialConfig.pages.visitorPlan ?? initialConfig.anonymousPlan) : null,
      visitorKeysPerMinute: initialConfig.pages.visitorKeysPerMinute,
      consolePath: admin && initialConfig.pages.console ? `${ADMIN_PREFIX}/console` : null,
      tokenPath: `${ADMIN_PREFIX}/oauth/token`,
    },
    {
      generation: current,
      document: async () => (await readDocument(config().spec, { cacheDir: config().cacheDir })).document,
      keys,
      workspaces,
      clock: clocks.of(DEFAULT_WORKSPACE),
      keep: keepState,
      warn: (message) => notify({ level: 'warn', message }),
    },
  );

  const label = (): string => current().label;
  const handle = frontDoor({
    doors: [
      healthDoor(() => replication?.problem(), label),
      pagesDoor(pages),
      tokenDoor(() => wired, label, touch),
      ...(mcp === undefined ? [] : [mcp]),
      adminDoor({
        surface: admin,
        generation: label,
        cut: () => replication?.problem(),
        changed: async () => {
          // Kept before it is answered; a clock moved (or a workspace reset, a delivery replayed):
          // transitions and retries now due go at once.
          await keepState();
          await transitions.due();
          webhooks.clockMoved();
        },
      }),
      api,
    ],
    events,
    generation: label,
    redactQuery: (req) => (wired.secretQuery.size === 0 ? req : { ...req, query: redactQuery(req.query, wired.secretQuery) }),
    replication: () => replication,
    // A change the replicas share: the admin API's changes, a token or a visitor key minted.
    // An MCP call is not one: each tool call it makes comes back through the front door, and is shared then.
    sharesChange: (req) =>
      !READS.has(req.method) &&
      req.path !== MCP_PATH &&
      (req.path.startsWith(`${ADMIN_PREFIX}/`) ||
        isTokenRequest(wired.routes, req) ||
        (config().pages.docs !== null && req.path.startsWith(`${config().pages.docs}/`))),
  });

  return {
    generation: current,
    get model() {
      return current().model;
    },
    get basePath() {
      return current().basePath;
    },
    bodyLimit: initialConfig.bodyLimit,
    store,
    clock: clocks.of(DEFAULT_WORKSPACE),
    handle,
    reset,
    onExchange: (listener) => events.on('exchange', listener),
    onNotice: (listener) => events.on('notice', listener),
    workspaces,
    reload,
    status,
    redaction: () => redaction,
    webhooks,
    close: async () => {
      serving.served.keptSeed?.save();
      webhooks.close();
      transitions.close();
      await store.close();
      await replication?.close();
    },
  };
}

/** The workspaces the config's keys name (created at start, permanent). */
const configuredWorkspaces = (config: SandboxConfig): string[] =>
  config.keys.flatMap((k) => (k.workspace === undefined ? [] : [k.workspace]));
