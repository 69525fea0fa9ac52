/** `deprecated`: calls to operations the document marks deprecated, and calls after their sunset. */

import type { JournalEntry } from '../journal/journal.js';
import { behind, ENTRIES_PER_GROUP, plural, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

/** What the document says of a deprecated operation (OpenAPI `deprecated`, `x-sunset`, `x-replaced-by`). */
export interface Deprecation {
  /** When it is removed, Unix milliseconds. */
  readonly sunset?: number;
  /** The operationId that replaces it. */
  readonly replacedBy?: string;
}

export const DEPRECATED_CHECKS =
  'A call to an operation the document marks deprecated (or whose answer carried a Deprecation header) is a warn; ' +
  'a call made after its sunset (answered 410 operation_removed) is a fail.';

/** The code of an answer to an operation past its sunset (RFC 8594): the sandbox refuses it with 410. */
const REMOVED = 'operation_removed';

/** What an entry says of its operation's deprecation: the document's (as served now), else its answer's headers. */
function deprecationOf(entry: JournalEntry, deprecations: ReadonlyMap<string, Deprecation>): Deprecation | undefined {
  const known = entry.operationId === undefined ? undefined : deprecations.get(entry.operationId);
  if (known) return known;
  const headers = entry.response.headers;
  if (headers.deprecation === undefined && entry.code !== REMOVED) return undefined;
  const sunset = headers.sunset === undefined ? Number.NaN : Date.parse(headers.sunset);
  return Number.isNaN(sunset) ? {} : { sunset };
}

interface Group {
  readonly operation: string;
  readonly deprecation: Deprecation;
  readonly entries: JournalEntry[];
}

export function deprecatedFinding(
  entries: readonly JournalEntry[],
  deprecations: ReadonlyMap<string, Deprecation>,
  link: EntryLink,
): Finding {
  const groups = new Map<string, Group>();
  const calls: JournalEntry[] = [];
  for (const entry of entries) {
    const deprecation = deprecationOf(entry, deprecations);
    if (!deprecation) continue;
    calls.push(entry);
    const operation = entry.operationId ?? `${entry.method} ${entry.path}`;
    let group = groups.get(operation);
    if (!group) groups.set(operation, (group = { operation, deprecation, entries: [] }));
    group.entries.push(entry);
  }
  const listed: FindingGroup[] = [...groups.values()].map(({ operation, deprecation, entries: called }) => {
    const afterSunset = called.filter((entry) => entry.code === REMOVED).length;
    const sunset = deprecation.sunset === undefined ? undefined : new Date(deprecation.sunset).toISOString();
    const notes = [
      sunset === undefined ? 'no sunset given' : `removed on ${sunset.slice(0, 10)}`,
      ...(deprecation.replacedBy === undefined ? [] : [`use ${deprecation.replacedBy}`]),
      ...(afterSunset > 0 ? [`${afterSunset} after its sunset`] : []),
    ];
    return {
      label: `${operation}: ${plural(called.length, 'call')} (${notes.join('; ')})`,
      count: called.length,
      entries: refsOf(called, link, ENTRIES_PER_GROUP),
      ...(called[0]?.operationId === undefined ? {} : { operationId: called[0].operationId }),
      ...(sunset === undefined ? {} : { sunset }),
      ...(deprecation.replacedBy === undefined ? {} : { replacedBy: deprecation.replacedBy }),
      afterSunset,
    };
  });
  const removed = listed.reduce((sum, g) => sum + (g.afterSunset ?? 0), 0);
  const verdict = removed > 0 ? 'fail' : calls.length > 0 ? 'warn' : 'pass';
  const sentence =
    calls.length === 0
      ? 'No deprecated operation was called.'
      : `Called ${plural(listed.length, 'deprecated operation')} ${plural(calls.length, 'time')}: ${listed.map((g) => g.label).join('; ')}. ` +
        (removed > 0
          ? `${plural(removed, 'call')} came after the sunset and ${removed === 1 ? 'was' : 'were'} refused (410): the client still depends on a removed operation.`
          : 'Move off them before their sunset.');
  return {
    id: 'deprecated',
    title: 'Deprecated operations',
    checks: DEPRECATED_CHECKS,
    verdict,
    sentence,
    ...behind(calls, link),
    groups: listed,
  };
}
