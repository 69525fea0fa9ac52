/** Verdicts, from best to worst: what a finding, and the report as a whole, says of the client. */
export const VERDICTS = ['pass', 'warn', 'fail'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The worst of some verdicts (`pass` for none). */
export const worst = (verdicts: Iterable<Verdict>): Verdict => {
  let found = 0;
  for (const verdict of verdicts) found = Math.max(found, VERDICTS.indexOf(verdict));
  return VERDICTS[found] ?? 'pass';
};
