import type { ApiKeyRecord, KeyRegistry } from '../auth/key-registry.js';
import { unixSeconds } from '../clock/clock.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { Generation } from '../generation/generation.js';
import type { Limiter } from '../limits/limiter.js';
import type { RuleStore } from '../rules/rule-store.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody } from '../vocabulary/errors.js';
import { stateModel } from '../resources/model.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { journalHandlers, type JournalCapability } from './journal-handlers.js';
import { namedKey } from './named-key.js';
import { eventLoopDelayMs } from './process-metrics.js';
import type { ReloadOutcome, SandboxStatus } from '../vocabulary/reload.js';
import { reportHandlers, type ReportJournal } from './report-handlers.js';
import { ruleHandlers } from './rule-handlers.js';
import { workspaceHandlers } from './workspace-handlers.js';
import { webhookHandlers, type WebhookCapability } from './webhook-handlers.js';
import { transitionHandlers } from './transition-handlers.js';
import { snapshotHandlers, type SnapshotCapability } from './snapshot-handlers.js';
import type { Transitions } from '../transitions/transitions.js';
import type { Workspaces } from '../workspaces/workspaces.js';

/** What the admin handlers act on, and nothing more. */
export interface AdminCapabilities {
  /** Back to the seeded state: store, issued keys, counters, bans, clock, journal and rules. */
  readonly reset: () => Promise<void>;
  readonly clocks: Pick<WorkspaceClocks, 'of' | 'forget'>;
  readonly keys: Pick<KeyRegistry, 'issue' | 'find' | 'byId' | 'byName' | 'inWorkspace' | 'list'>;
  /** The configured plans' names (a reload may change them). */
  readonly plans: () => readonly string[];
  /** Reads the document, its `$ref`'d files, the fixtures and the config again, and swaps the result in. */
  readonly reload: () => Promise<ReloadOutcome>;
  /** The generation serving, its files, and the last reload. */
  readonly status: () => SandboxStatus;
  readonly limiter: Pick<Limiter, 'inspect' | 'forget'>;
  /** The request journal: listed, queried, verified, streamed, exported, cleared and reported on. */
  readonly journal: JournalCapability & ReportJournal;
  /** The admin rules: created, listed, read, deleted and cleared. */
  readonly rules: Pick<RuleStore, 'add' | 'list' | 'get' | 'remove' | 'clear' | 'size'>;
  /** The workspaces: new keys get one, and each is listed, reset, deleted and has its clock moved. */
  readonly workspaces: Workspaces;
  /** The served API's current generation, which rules are checked against. */
  readonly api: () => Generation;
  /** API requests being answered right now. */
  readonly inFlight: () => number;
  /** Webhook subscriptions and their deliveries. */
  readonly webhooks: WebhookCapability;
  /** Records' timed transitions: forced from the admin API. */
  readonly transitions: Pick<Transitions, 'force' | 'rules'>;
  /** Each workspace's named snapshots: taken, listed, exported, imported, deleted and restored. */
  readonly snapshots: SnapshotCapability;
}

/** One admin operation's handler: the validated input in, the answer out. */
export type AdminHandler = (input: ValidInput) => Promise<SandboxResponse>;

const ok = (body: unknown, status = 200): SandboxResponse => ({ status, headers: {}, body });

const noSuchKey = (): SandboxResponse => {
  const error = errorBody('resource_not_found', 'No key has this value, id or name');
  return { status: error.status, headers: {}, body: error };
};

/** A key as inspection shows it: its id, its name when it has one, its plan, windows and ban. */
async function inspected(c: AdminCapabilities, record: ApiKeyRecord): Promise<object> {
  const windows = await c.limiter.inspect(record, c.clocks.of(record.workspace).now());
  return { id: record.id, ...(record.name === undefined ? {} : { name: record.name }), ...windows };
}

/**
 * The serving generation's document, its servers the one base path it is served under (`/` for
 * none). Made once per generation: a tool reads it whenever it asks what the API is.
 */
const documents = new WeakMap<Generation, unknown>();
function servedDocument(generation: Generation): unknown {
  let shown = documents.get(generation);
  if (shown === undefined) {
    const servers = [{ url: generation.basePath === '' ? '/' : generation.basePath, description: 'This sandbox' }];
    shown = { ...(generation.model.document as object), servers };
    documents.set(generation, shown);
  }
  return shown;
}

/**
 * The admin operations, by the operationId `openapi/admin.yaml` gives them. The document has
 * already validated every input (types, required fields, bounds); handlers check only what the
 * document cannot know, such as which plans the configuration has.
 */
export function adminHandlers(c: AdminCapabilities): Readonly<Record<string, AdminHandler>> {
  // The clock the admin API reads and moves is the default workspace's.
  const clock = c.clocks.of(DEFAULT_WORKSPACE);
  return {
    resetSandbox: async () => {
      await c.reset();
      return ok({ reset: true, now: unixSeconds(clock.now()) });
    },
    getClock: () => Promise.resolve(ok({ now: unixSeconds(clock.now()) })),
    advanceClock: (input) => {
      const { advanceSeconds } = input.body as { readonly advanceSeconds: number };
      return Promise.resolve(ok({ now: unixSeconds(clock.advance(advanceSeconds * 1000)) }));
    },
    resetClock: () => {
      c.clocks.forget(DEFAULT_WORKSPACE);
      return Promise.resolve(ok({ now: unixSeconds(clock.now()) }));
    },
    listKeys: async (input) => {
      const named = input.query.workspace as string | undefined;
      const listed = c.keys.list().filter(({ record }) => named === undefined || record.workspace === named);
      const keys = await Promise.all(
        listed.map(async ({ record, configured }) => ({ ...(await inspected(c, record)), workspace: record.workspace, configured })),
      );
      return ok({ keys });
    },
    issueKey: async (input) => {
      const { plan, workspace: named, name } = input.body as { readonly plan: string; readonly workspace?: string; readonly name?: string };
      const plans = c.plans().join(', ');
      const problems = [
        ...(c.plans().includes(plan) ? [] : [{ location: 'body.plan', message: `must be one of ${plans}` }]),
        ...(named === undefined || c.workspaces.has(named) ? [] : [{ location: 'body.workspace', message: 'no workspace has this id' }]),
      ];
      if (problems.length > 0) {
        const error = errorBody('validation_failed', `Invalid key request: ${problems.map((p) => p.location).join(', ')}`, problems);
        return { status: error.status, headers: {}, body: error };
      }
      // A name says which key is meant wherever the admin API takes one: two keys cannot share it.
      if (name !== undefined && c.keys.byName(name) !== undefined) {
        const error = errorBody('resource_exists', `Another key is named ${JSON.stringify(name)}`);
        return { status: error.status, headers: {}, body: error };
      }
      // Without a workspace named, the key gets a private one of its own.
      const workspace = named ?? (await c.workspaces.create());
      const issued = c.keys.issue(plan, workspace, name);
      return ok({ ...(name === undefined ? {} : { name }), key: issued.key, plan, id: issued.record.id, workspace }, 201);
    },
    inspectKey: async (input) => {
      const record = namedKey(c.keys, input.path.key as string);
      return record ? ok(await inspected(c, record)) : noSuchKey();
    },
    resetKey: async (input) => {
      const record = namedKey(c.keys, input.path.key as string);
      if (!record) return noSuchKey();
      await c.limiter.forget([record.id]);
      return ok(await inspected(c, record));
    },
    getStatus: () => Promise.resolve(ok(c.status())),
    getModel: () => Promise.resolve(ok(stateModel(c.api().model))),
    getDocument: () => Promise.resolve(ok(servedDocument(c.api()))),
    reloadSandbox: async () => {
      const outcome = await c.reload();
      if (outcome.ok) return ok(outcome);
      const details = outcome.errors.map((message) => ({ location: 'files', message }));
      const error = errorBody('reload_failed', `The files did not load; generation ${outcome.generation} still serves`, details);
      return { status: error.status, headers: {}, body: error };
    },
    getMetrics: (input) => {
      const memory = process.memoryUsage();
      const named = input.query.workspace as string | undefined;
      const workspace = named === undefined ? undefined : c.workspaces.view(named);
      if (named !== undefined && workspace === undefined) {
        const error = errorBody('resource_not_found', `No workspace ${named}: it was deleted, evicted, or cleared by a reset`);
        return Promise.resolve({ status: error.status, headers: {}, body: error });
      }
      return Promise.resolve(
        ok({
          now: unixSeconds(clock.now()),
          uptimeSeconds: Math.round(process.uptime()),
          inFlight: c.inFlight(),
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          eventLoopDelayMs: eventLoopDelayMs(),
          ...(workspace && {
            workspace: {
              id: workspace.id,
              requests: workspace.requests,
              recordsWritten: workspace.recordsWritten,
              lastUsedAt: workspace.lastUsedAt,
            },
          }),
        }),
      );
    },
    ...journalHandlers(c),
    ...reportHandlers(c),
    ...ruleHandlers(c),
    ...workspaceHandlers(c.workspaces),
    ...webhookHandlers(c),
    ...transitionHandlers(c),
    ...snapshotHandlers(c),
  };
}
