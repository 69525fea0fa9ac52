import { describe, expect, it } from 'vitest';
import { answerAtTurnEnd } from '../../src/http/node-handler.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('answers written at the end of the turn', () => {
  it('holds the writes queued in one turn until its end, then runs them all, in order', async () => {
    const answer = answerAtTurnEnd();
    const written: string[] = [];
    answer(() => written.push('a'));
    await Promise.resolve();
    answer(() => written.push('b'));
    answer(() => written.push('c'));
    expect(written).toEqual([]);
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('runs a write queued while a batch is written in the next turn, not lost or doubled', async () => {
    const answer = answerAtTurnEnd();
    const written: string[] = [];
    answer(() => {
      written.push('first');
      answer(() => written.push('later'));
    });
    await nextTurn();
    expect(written).toEqual(['first']);
    await nextTurn();
    expect(written).toEqual(['first', 'later']);
    await nextTurn();
    expect(written).toEqual(['first', 'later']);
  });
});
