/** `shaped`: the share of answers the sandbox was told to force or fault, rather than the API's own. */

import type { JournalEntry } from '../journal/journal.js';
import type { Applied } from '../vocabulary/exchange.js';
import { behind, ENTRIES_PER_GROUP, plural, refsOf, type EntryLink, type Finding, type FindingGroup } from './finding.js';

/** Above this share of forced or faulted answers, the other findings rest mostly on answers the sandbox made up. */
export const SHAPED_WARN_SHARE = 0.5;

export const SHAPED_CHECKS =
  'An answer is forced or faulted when the journal records a preference (Prefer, __code), a rule, a wire fault or an injected status ' +
  `in its applied (a delay alone is not); more than ${SHAPED_WARN_SHARE * 100}% of them is a warn, as the other findings then judge mostly made-up answers.`;

/** What shaped an answer, in the order the report lists them; a delay alone leaves the answer the API's own. */
const KINDS = [
  ['preference', 'forced by a preference (Prefer or __code)'],
  ['rule', 'shaped by an admin rule'],
  ['fault', 'faulted on the wire'],
  ['injectedStatus', 'given an injected error status'],
] as const satisfies readonly (readonly [keyof Applied, string])[];

const kindsOf = (applied: Applied | undefined): (typeof KINDS)[number][] =>
  applied === undefined ? [] : KINDS.filter(([kind]) => applied[kind] !== undefined);

export function shapedFinding(entries: readonly JournalEntry[], link: EntryLink): Finding {
  const shaped = entries.filter((entry) => kindsOf(entry.applied).length > 0);
  const share = entries.length === 0 ? 0 : shaped.length / entries.length;
  const groups: FindingGroup[] = KINDS.flatMap(([kind, words]) => {
    const of = shaped.filter((entry) => entry.applied?.[kind] !== undefined);
    if (of.length === 0) return [];
    return [{ label: `${plural(of.length, 'answer')} ${words}`, count: of.length, entries: refsOf(of, link, ENTRIES_PER_GROUP), kind }];
  });
  const percent = `${Math.round(share * 100)}%`;
  const warn = share > SHAPED_WARN_SHARE;
  const sentence =
    shaped.length === 0
      ? 'Every answer was the API’s own: none was forced or faulted.'
      : `${shaped.length} of ${plural(entries.length, 'answer')} (${percent}) ${shaped.length === 1 ? 'was' : 'were'} forced or faulted: ` +
        `${groups.map((g) => g.label).join('; ')}. ` +
        (warn
          ? 'The other findings judge mostly answers the sandbox was told to give.'
          : 'The other findings rest mostly on the API’s own answers.');
  return {
    id: 'shaped',
    title: 'Forced or faulted answers',
    checks: SHAPED_CHECKS,
    verdict: warn ? 'warn' : 'pass',
    sentence,
    ...behind(shaped, link),
    groups,
    share: Math.round(share * 1000) / 1000,
  };
}
