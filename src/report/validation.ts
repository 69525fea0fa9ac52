/** `validation`: the requests that broke the document, by operation, field and rule. */

import type { JournalEntry } from '../journal/journal.js';
import { behind, ENTRIES_PER_GROUP, plural, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

export const VALIDATION_CHECKS =
  'A request answered 400 validation_failed broke the document; its violations are grouped by operation, field and rule. ' +
  'Any is a warn: the API refuses them too, but a suite may send some on purpose.';

interface Group {
  readonly operationId: string | undefined;
  readonly field: string;
  readonly rule: string;
  readonly entries: JournalEntry[];
}

export function validationFinding(entries: readonly JournalEntry[], link: EntryLink): Finding {
  const failed = entries.filter((entry) => entry.violations !== undefined && entry.violations.length > 0);
  const groups = new Map<string, Group>();
  for (const entry of failed) {
    for (const { location, message } of entry.violations ?? []) {
      const id = JSON.stringify([entry.operationId ?? null, location, message]);
      let group = groups.get(id);
      if (!group) groups.set(id, (group = { operationId: entry.operationId, field: location, rule: message, entries: [] }));
      // One entry may break the same rule at one field once.
      if (group.entries.at(-1) !== entry) group.entries.push(entry);
    }
  }
  const sorted = [...groups.values()].sort((a, b) => b.entries.length - a.entries.length);
  const listed: FindingGroup[] = sorted.map((g) => ({
    label: `${g.field} ${g.rule}${g.operationId === undefined ? '' : ` (${g.operationId})`}`,
    count: g.entries.length,
    entries: refsOf(g.entries, link, ENTRIES_PER_GROUP),
    ...(g.operationId === undefined ? {} : { operationId: g.operationId }),
    field: g.field,
    rule: g.rule,
  }));
  const top = listed
    .slice(0, 3)
    .map((g) => `${g.label}, ${plural(g.count, 'time')}`)
    .join('; ');
  const sentence =
    failed.length === 0
      ? 'No request broke the document.'
      : `${plural(failed.length, 'request')} broke the document, in ${plural(listed.length, 'way')}: ${top}${listed.length > 3 ? '; …' : ''}. ` +
        'The API refuses these too: fix the client, unless the suite sent them on purpose.';
  return {
    id: 'validation',
    title: 'Validation failures',
    checks: VALIDATION_CHECKS,
    verdict: failed.length === 0 ? 'pass' : 'warn',
    sentence,
    ...behind(failed, link),
    groups: listed,
  };
}
