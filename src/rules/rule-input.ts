import type { PathModel } from '../journal/path-match.js';
import type { RuleMatch } from './rule.js';
import type { Violation } from '../vocabulary/errors.js';
import type { OperationSpec } from '../vocabulary/operation.js';

/**
 * A rule as `POST /__sandbox/rules` takes it, in the shape `openapi/admin.yaml` has already checked
 * (types, required fields, bounds, no unknown fields). What the document cannot know (which
 * operations, statuses, examples and keys exist, whether a body fits its schema) is `parseRule`'s.
 */
export interface RuleInput {
  /** As the rule keeps it, except that `key` may be the key itself (kept as its id) and `method` any case. */
  readonly match: RuleMatch;
  readonly respond?: {
    readonly status: number;
    readonly example?: string;
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
  };
  /** A latency model (`faults/latency.ts`), read by `parseLatency`. */
  readonly latency?: unknown;
  /** One fault entry or a list (`faults/fault-spec.ts`), read by `parseFaultSpec` / `parseFaultList`. */
  readonly fault?: unknown;
  readonly probability?: number;
  readonly times?: number;
  /** ISO 8601 date-times on the sandbox clock. */
  readonly from?: string;
  readonly until?: string;
}

/** What a rule is checked against: the served document, and the keys. */
export interface RuleModel extends PathModel {
  readonly document: unknown;
  /**
   * The operations a request to this literal path (as sent, percent-encoded) reaches: with a method,
   * at most that method's; without, one per method served there.
   */
  readonly reached: (path: string, method: string | undefined) => readonly OperationSpec[];
  /** The safe id of the key named by its value or its id, or undefined when no key has either. */
  readonly keyId: (given: string) => string | undefined;
  /** Whether a workspace with this id exists. */
  readonly hasWorkspace: (id: string) => boolean;
}

/** Collects violations, each at a location under the rule's own (`body`). */
export interface Problems {
  readonly at: string;
  readonly list: Violation[];
  add(where: string, message: string): void;
}

export function problems(at: string): Problems {
  const list: Violation[] = [];
  return { at, list, add: (where, message) => list.push({ location: where === '' ? at : `${at}.${where}`, message }) };
}

/** A settings parser's error (`body.latency.fixed must be …`) as a violation: the field, then the problem. */
export function addParsed(found: Problems, error: string): void {
  const space = error.indexOf(' ');
  found.list.push(
    space < 0 ? { location: found.at, message: error } : { location: error.slice(0, space), message: error.slice(space + 1) },
  );
}
