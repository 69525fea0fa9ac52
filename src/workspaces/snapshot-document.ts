/**
 * A named snapshot of one workspace as it travels: what `GET /__sandbox/workspaces/{id}/snapshots/{name}`
 * exports, `PUT` imports and `--snapshot FILE` reads at start. Versioned JSON, one part per state
 * part that keeps something per workspace (`parts`: records, counters, clocks, rules; see
 * core/state-parts.ts), so a suite can keep its starting state beside its tests.
 */

export const SNAPSHOT_FORMAT = 'understudy-snapshot';
export const SNAPSHOT_VERSION = 1;

export interface SnapshotDocument {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  readonly name: string;
  /** The workspace it was taken in (it may be imported into another). */
  readonly workspace: string;
  /** When it was taken, on that workspace's sandbox clock (ISO 8601). */
  readonly takenAt: string;
  /** Each part's capture, under the part's name. */
  readonly parts: Readonly<Record<string, unknown>>;
}

/** A violation of the document's shape, named by where it is (`body.parts.records.pets.rows[2].id`). */
export interface SnapshotProblem {
  readonly location: string;
  readonly message: string;
}

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: a name that is its own path segment. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isInstant = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Checks one part's value; answers its problems, each located under `at`. */
export type PartCheck = (value: unknown, at: string) => SnapshotProblem[];

const problem = (location: string, message: string): SnapshotProblem[] => [{ location, message }];

/** `{ collection: { next, rows: [{ id, … }] } }`: rows in ascending row numbers, `next` past the last. */
export const checkRecords: PartCheck = (value, at) => {
  if (!isObject(value)) return problem(at, 'must be an object of collections');
  return Object.entries(value).flatMap(([name, collection]) => {
    const here = `${at}.${name}`;
    if (!isObject(collection) || !Array.isArray(collection.rows)) return problem(here, 'must be an object with next and rows');
    const { next, rows } = collection as { next: unknown; rows: unknown[] };
    let last = 0;
    for (const [i, row] of rows.entries()) {
      const id = isObject(row) ? row.id : undefined;
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= last) {
        return problem(`${here}.rows[${i}].id`, 'must be a whole number above the row before');
      }
      last = id;
    }
    if (!isCount(next) || next <= last) return problem(`${here}.next`, `must be a whole number above the last row's id (${last})`);
    return [];
  });
};

const checkWindow = (value: unknown, at: string): SnapshotProblem[] =>
  isObject(value) && isInstant(value.start) && isCount(value.count) ? [] : problem(at, 'must be { start, count }');

/** `{ key_…: { windows: [{ start, count }], refusals: { start, count }, bannedUntil } }`. */
export const checkCounters: PartCheck = (value, at) => {
  if (!isObject(value)) return problem(at, 'must be an object of key ids');
  return Object.entries(value).flatMap(([client, state]) => {
    const here = `${at}.${client}`;
    if (!isObject(state) || !Array.isArray(state.windows)) return problem(here, 'must be an object with windows, refusals and bannedUntil');
    return [
      ...state.windows.flatMap((window, i) => checkWindow(window, `${here}.windows[${i}]`)),
      ...checkWindow(state.refusals, `${here}.refusals`),
      ...(isInstant(state.bannedUntil) ? [] : problem(`${here}.bannedUntil`, 'must be a number (Unix ms, 0 for none)')),
    ];
  });
};

/** `{ now, follows }`: the workspace's time (Unix ms) and whether it followed the shared clock. */
export const checkClock: PartCheck = (value, at) => {
  if (!isObject(value)) return problem(at, 'must be { now, follows }');
  return [
    ...(isInstant(value.now) ? [] : problem(`${at}.now`, 'must be a number (Unix ms)')),
    ...(typeof value.follows === 'boolean' ? [] : problem(`${at}.follows`, 'must be true or false')),
  ];
};

/** `[{ rule: { id, match, … }, applied }]`, as `GET /__sandbox/rules` shows rules with their uses. */
export const checkRules: PartCheck = (value, at) => {
  if (!Array.isArray(value)) return problem(at, 'must be a list of rules with their uses');
  return value.flatMap((status, i) => {
    const here = `${at}[${i}]`;
    if (!isObject(status) || !isObject(status.rule)) return problem(here, 'must be { rule, applied }');
    const { rule } = status;
    if (typeof rule.id !== 'string' || !/^rule_\d+$/.test(rule.id)) return problem(`${here}.rule.id`, 'must be rule_ and a number');
    if (!isObject(rule.match)) return problem(`${here}.rule.match`, 'must be an object');
    return isCount(status.applied) ? [] : problem(`${here}.applied`, 'must be a whole number');
  });
};

/** `[{ collection, key, field, state, enteredAt }]`: the records whose states move on the clock, and since when. */
export const checkTransitions: PartCheck = (value, at) => {
  if (!Array.isArray(value)) return problem(at, 'must be a list of the records followed');
  return value.flatMap((tracked, i) => {
    const here = `${at}[${i}]`;
    if (!isObject(tracked)) return problem(here, 'must be { collection, key, field, state, enteredAt }');
    const texts = (['collection', 'key', 'field', 'state'] as const).flatMap((name) =>
      typeof tracked[name] === 'string' ? [] : problem(`${here}.${name}`, 'must be a string'),
    );
    return [...texts, ...(isInstant(tracked.enteredAt) ? [] : problem(`${here}.enteredAt`, 'must be a number (Unix ms)'))];
  });
};

/**
 * The document's problems, or none: its envelope, then each part's, by `checks` (the parts that
 * take snapshots); a part it does not name is missing, and one it names that no check knows is refused.
 */
export function snapshotProblems(value: unknown, checks: Readonly<Record<string, PartCheck>>, at = 'body'): SnapshotProblem[] {
  if (!isObject(value)) return problem(at, 'must be a snapshot document (a JSON object)');
  const envelope = [
    ...(value.format === SNAPSHOT_FORMAT ? [] : problem(`${at}.format`, `must be ${JSON.stringify(SNAPSHOT_FORMAT)}`)),
    ...(value.version === SNAPSHOT_VERSION ? [] : problem(`${at}.version`, `must be ${SNAPSHOT_VERSION}: this version reads no other`)),
    ...(typeof value.workspace === 'string' ? [] : problem(`${at}.workspace`, 'must be a string')),
    ...(typeof value.takenAt === 'string' && !Number.isNaN(Date.parse(value.takenAt))
      ? []
      : problem(`${at}.takenAt`, 'must be an ISO 8601 date-time')),
  ];
  if (!isObject(value.parts)) return [...envelope, ...problem(`${at}.parts`, 'must be an object of the parts')];
  const parts = value.parts;
  const unknown = Object.keys(parts)
    .filter((name) => !Object.hasOwn(checks, name))
    .flatMap((name) => problem(`${at}.parts.${name}`, `is no part a snapshot holds (${Object.keys(checks).join(', ')})`));
  const checked = Object.entries(checks).flatMap(([name, check]) =>
    Object.hasOwn(parts, name) ? check(parts[name], `${at}.parts.${name}`) : problem(`${at}.parts.${name}`, 'is missing'),
  );
  return [...envelope, ...unknown, ...checked];
}

/** What the list shows of a snapshot's size: its records, keys counted, rules, and its JSON's bytes. */
export interface SnapshotSizes {
  readonly collections: number;
  readonly records: number;
  readonly keys: number;
  readonly rules: number;
  readonly bytes: number;
}

export function sizesOf(document: SnapshotDocument, json: string): SnapshotSizes {
  const { records, counters, rules } = document.parts;
  const collections = isObject(records) ? Object.values(records) : [];
  return {
    collections: collections.length,
    records: collections.reduce((sum: number, c) => sum + (isObject(c) && Array.isArray(c.rows) ? c.rows.length : 0), 0),
    keys: isObject(counters) ? Object.keys(counters).length : 0,
    rules: Array.isArray(rules) ? rules.length : 0,
    bytes: Buffer.byteLength(json),
  };
}
