import type { Row } from '../vocabulary/record.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

/**
 * The data file's format (`--data FILE`): what the memory store persists, how a file is checked
 * before it is read, and how a snapshot is written out in chunks.
 */

/** One workspace's own collections (the ones it has written), by name. */
export type OwnCollections = Record<string, Row[]>;

/** The data file's format version: files without it hold the default workspace's collections alone. */
export const FORMAT = 2;

/** The persisted document: only what the workspaces have written; everything else is the seed. */
export interface StoreData {
  readonly understudy: typeof FORMAT;
  readonly workspaces: Record<string, OwnCollections>;
  /** What the sandbox keeps beside the records (issued keys, workspaces, clocks), opaque to the store. */
  sandbox?: unknown;
}

/**
 * The row number each own collection takes next, by workspace and collection, where that is past
 * its last row (the last record was deleted, a snapshot was restored): absent, the one after the last row.
 */
export type NextNumbers = Record<string, Record<string, number>>;

/** A document with no writes. Null-prototype maps: any workspace name is a plain key (even `__proto__`). */
export const emptyDocument = (): StoreData => ({ understudy: FORMAT, workspaces: nullObject<OwnCollections>() });

export const nullObject = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** The workspaces a checked data file holds: the old format's collections are the default workspace's. */
export function savedWorkspaces(saved: Record<string, unknown>): Record<string, OwnCollections> {
  return isVersioned(saved) ? (saved.workspaces as Record<string, OwnCollections>) : { [DEFAULT_WORKSPACE]: saved as OwnCollections };
}

/** Whether a file is in the versioned format (in the old one, `understudy` could only be a collection: a list). */
export const isVersioned = (data: Record<string, unknown>): boolean => Object.hasOwn(data, 'understudy') && !Array.isArray(data.understudy);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a parsed data file is not a store, or undefined. Either format: `{ "understudy": 2,
 * "workspaces": { workspace: { collection: [rows] } } }`, or the old `{ collection: [rows] }`.
 */
export function storeProblem(data: unknown): string | undefined {
  if (!isObject(data)) return 'not a JSON object';
  if (!isVersioned(data)) return collectionsProblem(data, '');
  if (data.understudy !== FORMAT) return `understudy is ${JSON.stringify(data.understudy)}: this version reads format ${FORMAT}`;
  if (!isObject(data.workspaces)) return 'workspaces is not a JSON object';
  if (data.next !== undefined && !(isObject(data.next) && Object.values(data.next).every(isNumbers))) {
    return 'next is not an object of workspaces, each of collections and their next row numbers';
  }
  for (const [workspace, collections] of Object.entries(data.workspaces)) {
    const path = `workspaces.${workspace}`;
    const problem = isObject(collections) ? collectionsProblem(collections, `${path}.`) : `${path} is not a JSON object`;
    if (problem) return problem;
  }
  return undefined;
}

/** Why an object is not a set of collections (lists of records with ascending ids), or undefined. */
function collectionsProblem(collections: Record<string, unknown>, prefix: string): string | undefined {
  for (const [name, rows] of Object.entries(collections)) {
    if (!Array.isArray(rows)) return `${prefix}${name} is not a list`;
    let last = 0;
    for (const [i, row] of rows.entries()) {
      const id = (row as { id?: unknown } | null)?.id;
      if (typeof row !== 'object' || row === null || typeof id !== 'number' || !Number.isSafeInteger(id) || id <= last) {
        return `${prefix}${name}[${i}] has no id, or ids are not ascending`;
      }
      last = id;
    }
  }
  return undefined;
}

const isNumbers = (value: unknown): boolean =>
  isObject(value) && Object.values(value).every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n > 0);

/** The next row numbers a checked data file holds (none in a file written before they were kept). */
export const savedNext = (saved: Record<string, unknown>): NextNumbers =>
  isVersioned(saved) && isObject(saved.next) ? (saved.next as NextNumbers) : {};

/** Rows per chunk of a snapshot: about a megabyte of JSON for the Pet Store's records. */
const ROWS_PER_CHUNK = 10_000;

/**
 * The store as the snapshot's JSON text, in chunks. The lists are copied now (rows themselves are
 * never changed in place: a change stores a new row), so the text is the state at this moment
 * however long the writing takes.
 */
export function stateChunks(data: StoreData, next: NextNumbers): Iterable<string> {
  const workspaces = Object.entries(data.workspaces).map(([id, collections]) => ({
    id,
    collections: Object.entries(collections).map(([name, rows]) => ({ name, rows: [...rows] })),
  }));
  const kept =
    (Object.keys(next).length === 0 ? '' : `,"next":${JSON.stringify(next)}`) +
    (data.sandbox === undefined ? '' : `,"sandbox":${JSON.stringify(data.sandbox)}`);
  return (function* () {
    yield `{"understudy":${FORMAT},"workspaces":{`;
    for (const [w, { id, collections }] of workspaces.entries()) {
      yield `${w === 0 ? '' : ','}${JSON.stringify(id)}:{`;
      for (const [c, { name, rows }] of collections.entries()) {
        yield `${c === 0 ? '' : ','}${JSON.stringify(name)}:[`;
        for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
          yield `${i === 0 ? '' : ','}${rows
            .slice(i, i + ROWS_PER_CHUNK)
            .map((row) => JSON.stringify(row))
            .join(',')}`;
        }
        yield ']';
      }
      yield '}';
    }
    yield `}${kept}}`;
  })();
}
