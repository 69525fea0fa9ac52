import type { KeyRegistry } from '../auth/key-registry.js';
import type { Generation } from '../generation/generation.js';
import type { Journal, JournalEntry, JournalRecord } from '../journal/journal.js';
import { buildReport, type Deprecation, type Subject, type TimeRange } from '../report/report.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import { parseSince } from './journal-handlers.js';
import { namedKey } from './named-key.js';

/** What the report reads of the journal: its records, their views, and what its retention dropped. */
export type ReportJournal = Pick<Journal, 'records' | 'view' | 'dropped' | 'retention'>;

export interface ReportCapabilities {
  readonly journal: ReportJournal;
  readonly keys: Pick<KeyRegistry, 'find' | 'byId' | 'byName'>;
  readonly workspaces: Pick<Workspaces, 'has'>;
  /** The served API's current generation: its deprecated operations and their sunsets. */
  readonly api: () => Generation;
}

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

/**
 * Where the admin API is served (`ADMIN_PREFIX` in `admin-surface.ts`, which imports this file
 * through `handlers.ts`): a finding links each entry to `GET <prefix>/requests/{id}`, and the admin
 * API's own requests are not the client's.
 */
const ADMIN_PATH = '/__sandbox';

const answer = (status: number, body: unknown): SandboxResponse => ({ status, headers: {}, body });
const failure = (code: 'validation_failed' | 'resource_not_found', message: string, details?: readonly Violation[]): SandboxResponse => {
  const error = errorBody(code, message, details);
  return answer(error.status, error);
};
const invalid = (violations: readonly Violation[]): SandboxResponse =>
  failure('validation_failed', `Invalid report request: ${violations.map((v) => v.location).join(', ')}`, violations);

/** The document's deprecated operations, as the report reads them. */
function deprecationsOf(generation: Generation): ReadonlyMap<string, Deprecation> {
  const found = new Map<string, Deprecation>();
  for (const op of generation.model.operations) {
    const { deprecated, sunset, replacedBy } = op.lifecycle;
    if (!deprecated && sunset === undefined) continue;
    found.set(op.id, {
      ...(sunset === undefined ? {} : { sunset: sunset.getTime() }),
      ...(replacedBy === undefined ? {} : { replacedBy }),
    });
  }
  return found;
}

/** The range asked for, or the violations of its ends. */
function rangeOf(query: Readonly<Record<string, unknown>>): { readonly range: TimeRange } | { readonly violations: Violation[] } {
  const violations: Violation[] = [];
  const end = (name: 'from' | 'to'): number | undefined => {
    const text = query[name] as string | undefined;
    if (text === undefined) return undefined;
    const ms = parseSince(text);
    if (ms === undefined) violations.push({ location: `query.${name}`, message: 'must be an ISO 8601 date-time or Unix milliseconds' });
    return ms;
  };
  const from = end('from');
  const to = end('to');
  if (from !== undefined && to !== undefined && from > to) violations.push({ location: 'query.to', message: 'must not be before from' });
  if (violations.length > 0) return { violations };
  return { range: { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) } };
}

/** The admin API's own requests (under its prefix, made with no key) are not the client's. */
const isAdmin = (record: JournalRecord): boolean =>
  record.exchange.keyId === undefined &&
  (record.exchange.request.path === ADMIN_PATH || record.exchange.request.path.startsWith(`${ADMIN_PATH}/`));

/** `GET /report`: the integration report card of a key or a workspace, over the journal it still holds. */
export function reportHandlers(c: ReportCapabilities): Readonly<Record<string, Handler>> {
  return {
    getReport: (input) => {
      const given = { key: input.query.key as string | undefined, workspace: input.query.workspace as string | undefined };
      if (given.key === undefined && given.workspace === undefined) {
        return Promise.resolve(invalid([{ location: 'query', message: 'name a key (key) or a workspace (workspace)' }]));
      }
      const asked = rangeOf(input.query);
      if ('violations' in asked) return Promise.resolve(invalid(asked.violations));
      const key = given.key === undefined ? undefined : namedKey(c.keys, given.key);
      if (given.key !== undefined && key === undefined)
        return Promise.resolve(failure('resource_not_found', 'No key has this value, id or name'));
      const workspace = given.workspace;
      if (workspace !== undefined && !c.workspaces.has(workspace)) {
        return Promise.resolve(failure('resource_not_found', `No workspace ${workspace}: it was deleted, evicted, or cleared by a reset`));
      }
      const subject: Subject = key
        ? { kind: 'key', keyId: key.id, keyName: key.name }
        : { kind: 'workspace', workspace: workspace as string };
      const { from, to } = asked.range;
      const mine = (record: JournalRecord): boolean =>
        (key === undefined || record.exchange.keyId === key.id) &&
        (workspace === undefined || record.exchange.workspace === workspace) &&
        !isAdmin(record);
      const inRange = (entry: JournalEntry): boolean =>
        (from === undefined || entry.time >= from) && (to === undefined || entry.time <= to);
      const entries = c.journal
        .records()
        .filter(mine)
        .map((record) => c.journal.view(record))
        // A webhook attempt the sandbox sent is not the client's request.
        .filter((entry) => entry.outbound === undefined && inRange(entry));
      const report = buildReport({
        subject,
        entries,
        range: asked.range,
        dropped: c.journal.dropped(key ? { keyId: key.id } : { workspace }),
        journalSize: c.journal.retention,
        deprecations: deprecationsOf(c.api()),
        link: (id) => `${ADMIN_PATH}/requests/${encodeURIComponent(id)}`,
      });
      return Promise.resolve(answer(200, report));
    },
  };
}
