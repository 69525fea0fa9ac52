import type { KeyRegistry } from '../auth/key-registry.js';
import type { Generation } from '../generation/generation.js';
import { parseRule } from '../rules/parse-rule.js';
import type { RuleStatus } from '../rules/rule.js';
import type { RuleInput, RuleModel } from '../rules/rule-input.js';
import { MAX_RULES, type RuleStore } from '../rules/rule-store.js';
import type { ValidInput } from '../validation/request-validator.js';
import { errorBody, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import { namedKey } from './named-key.js';

/** What the rule handlers use: the rules, the served API's current generation (to check rules against), the keys. */
export interface RuleHandlerCapabilities {
  readonly rules: Pick<RuleStore, 'add' | 'list' | 'get' | 'remove' | 'clear' | 'size'>;
  /** The served API (not the admin API): rules name its operations, statuses and examples. */
  readonly api: () => Generation;
  readonly keys: Pick<KeyRegistry, 'find' | 'byId' | 'byName' | 'inWorkspace'>;
  /** Rules may be scoped to a workspace that exists. */
  readonly workspaces: Pick<Workspaces, 'has'>;
}

type Handler = (input: ValidInput) => Promise<SandboxResponse>;

const ok = (body: unknown, status = 200): SandboxResponse => ({ status, headers: {}, body });
const fail = (error: ReturnType<typeof errorBody>): SandboxResponse => ({ status: error.status, headers: {}, body: error });
const invalid = (violations: readonly Violation[]): SandboxResponse =>
  fail(errorBody('validation_failed', `Invalid rule: ${violations.map((v) => v.location).join(', ')}`, violations));

/**
 * The rules' admin operations. The document has checked each rule's shape; `parseRule` checks it
 * against the served document and the keys, and the store keeps it until it is deleted, used up
 * (`times`: it is then removed) or the sandbox is reset.
 */
export function ruleHandlers(c: RuleHandlerCapabilities): Readonly<Record<string, Handler>> {
  const model = (generation: Generation): RuleModel => ({
    document: generation.model.document,
    operations: generation.model.operations,
    basePath: generation.basePath,
    reached: (path, method) =>
      (method === undefined ? generation.router.methodsAt(path) : [method]).flatMap((m) => {
        const route = generation.router.match(m, path);
        return route.kind === 'found' ? [route.operation.operation] : [];
      }),
    keyId: (given) => namedKey(c.keys, given)?.id,
    hasWorkspace: (id) => c.workspaces.has(id),
  });
  const missing = (id: string): SandboxResponse =>
    fail(errorBody('resource_not_found', `No rule ${id}: it was deleted, used up (times), or cleared by a reset`));

  return {
    createRule: (input) => {
      if (c.rules.size >= MAX_RULES) {
        return Promise.resolve(
          invalid([{ location: 'body', message: `the sandbox holds ${MAX_RULES} rules, the most it keeps; delete some` }]),
        );
      }
      const parsed = parseRule(input.body as RuleInput, model(c.api()));
      if (!parsed.ok) return Promise.resolve(invalid(parsed.violations));
      return Promise.resolve(ok(shown(c.rules.add(parsed.rule)), 201));
    },
    listRules: (input) => {
      const workspace = input.query.workspace as string | undefined;
      if (workspace === undefined) return Promise.resolve(ok(c.rules.list().map(shown)));
      // A workspace's rules: those scoped to it, and those scoped to one of its keys.
      const keys = new Set(c.keys.inWorkspace(workspace).map((key) => key.id));
      const scoped = c.rules
        .list()
        .filter(({ rule: { match } }) => match.workspace === workspace || (match.key !== undefined && keys.has(match.key)));
      return Promise.resolve(ok(scoped.map(shown)));
    },
    getRule: (input) => {
      const id = input.path.id as string;
      const found = c.rules.get(id);
      return Promise.resolve(found ? ok(shown(found)) : missing(id));
    },
    deleteRule: (input) => {
      const id = input.path.id as string;
      return Promise.resolve(c.rules.remove(id) ? { status: 204, headers: {} } : missing(id));
    },
    clearRules: () => Promise.resolve(ok({ removed: c.rules.clear() })),
  };
}

/** A rule as the admin API shows it: as given (the key by its id, instants in ISO 8601), with its use so far. */
function shown({ rule, applied }: RuleStatus): Record<string, unknown> {
  const { respond } = rule;
  return {
    id: rule.id,
    match: rule.match,
    ...(respond && {
      respond: {
        status: respond.status,
        ...(respond.example !== undefined && { example: respond.example }),
        ...(respond.body && { body: respond.body.value }),
        ...(respond.headers && { headers: respond.headers }),
      },
    }),
    ...(rule.latency && { latency: rule.latency }),
    ...(rule.fault && { fault: rule.fault }),
    ...(rule.probability !== undefined && { probability: rule.probability }),
    ...(rule.times !== undefined && { times: rule.times, remaining: rule.times - applied }),
    ...(rule.from !== undefined && { from: new Date(rule.from).toISOString() }),
    ...(rule.until !== undefined && { until: new Date(rule.until).toISOString() }),
    applied,
  };
}
