/** `bans`: the requests answered `429 key_banned`, per key. */

import type { JournalEntry } from '../journal/journal.js';
import { behind, ENTRIES_PER_GROUP, keyLabel, plural, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

export const BANS_CHECKS =
  'A request answered 429 key_banned was sent while its key was banned for repeated requests after 429s; any is a fail.';

const BANNED = 'key_banned';

export function bansFinding(entries: readonly JournalEntry[], link: EntryLink): Finding {
  const banned = entries.filter((entry) => entry.code === BANNED);
  const byKey = new Map<string, { keyName: string | undefined; entries: JournalEntry[] }>();
  for (const entry of banned) {
    // A client banned by its address (no valid key) is one group.
    const id = entry.keyId ?? '';
    let group = byKey.get(id);
    if (!group) byKey.set(id, (group = { keyName: entry.keyName, entries: [] }));
    group.entries.push(entry);
  }
  const groups: FindingGroup[] = [...byKey].map(([keyId, group]) => {
    const who = keyId === '' ? 'requests without a key' : keyLabel(keyId, group.keyName);
    return {
      label: `${who}: ${plural(group.entries.length, 'request')} answered while banned`,
      count: group.entries.length,
      entries: refsOf(group.entries, link, ENTRIES_PER_GROUP),
      ...(keyId === '' ? {} : { keyId }),
      ...(group.keyName === undefined ? {} : { keyName: group.keyName }),
    };
  });
  const sentence =
    banned.length === 0
      ? 'No ban was hit.'
      : `Banned: ${groups.map((g) => g.label).join('; ')}. A ban follows repeated requests after 429s: back off instead.`;
  return {
    id: 'bans',
    title: 'Bans',
    checks: BANS_CHECKS,
    verdict: banned.length > 0 ? 'fail' : 'pass',
    sentence,
    ...behind(banned, link),
    groups,
  };
}
