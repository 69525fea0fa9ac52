import { describe, expect, it } from 'vitest';
import { locate } from './locate.js';
import { CORPUS } from './manifest.js';
import { runDocument } from './run-document.js';

/**
 * The fast subset of the corpus (`npm run corpus` runs all of it): a few small real documents, a
 * handful of operations each. It asserts only what already holds, so that a regression shows here
 * while today's known gaps are measured by the full run: each document starts, nothing answers
 * 5xx, and no answer to a near-valid request is a success.
 */
const FAST = CORPUS.filter((doc) => doc.fast);

describe('corpus, fast subset', () => {
  it('has a fast subset of small local documents', () => {
    expect(FAST.length).toBeGreaterThanOrEqual(3);
    expect(FAST.every((doc) => doc.source === 'devDependency')).toBe(true);
  });

  for (const doc of FAST) {
    it(`${doc.id} (${doc.package}@${doc.version}, ${doc.openapi}): starts, no 5xx, every near-valid request refused`, async () => {
      const result = await runDocument(doc, locate(doc), { maxOperations: 8 });
      expect(result.startError).toBeUndefined();
      expect(result.started).toBe(true);
      expect(result.operations).toBeGreaterThan(0);
      expect(result.outcomes.filter((o) => o.verdict === 'server-error' || o.verdict === 'transport')).toEqual([]);
      expect(result.near.filter((n) => n.verdict !== 'refused')).toEqual([]);
    });
  }
});
