import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startCli } from '../support/cli.js';
import { testSandbox } from '../support/sandbox.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const IN_FLIGHT = 16;

/** A small seeded generator (mulberry32), so every run kills at the same moments. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Pet {
  readonly id: number;
  readonly name: string;
  readonly categoryId: number;
}

/**
 * kill -9 in the middle of a burst of creates, then a restart on the same file: every create that
 * was answered 201 is there, exactly as answered; nothing else is half there; the file parses.
 */
describe('crashes with a data file', () => {
  const next = random(20261122);
  const rounds = Array.from({ length: ROUNDS }, (_, i) => ({ round: i + 1, killAfter: 1 + Math.floor(next() * 80) }));

  it.each(rounds)('round $round: kill -9 after $killAfter acknowledged creates loses none of them', async ({ round, killAfter }) => {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-crash-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const data = join(dir, 'store.json');
    const running = await startCli(['--data', data, '--config', join(import.meta.dirname, 'unlimited.yaml')]);
    const acknowledged: Pet[] = [];
    let killed = false;
    const create = async (n: number): Promise<void> => {
      while (!killed) {
        const body = { name: `round-${round}-pet-${n}-${acknowledged.length}`, categoryId: n };
        try {
          const res = await fetch(`${running.url}/pets`, {
            method: 'POST',
            headers: { Authorization: 'Bearer crash-key', 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (res.status !== 201) throw new Error(`create answered ${res.status}`);
          const pet = (await res.json()) as Pet;
          if (killed) return;
          acknowledged.push(pet);
          if (acknowledged.length >= killAfter && !killed) {
            killed = true;
            running.child.kill('SIGKILL');
          }
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, (_, n) => create(n + 1)));
    await running.exited;

    const restarted = await testSandbox({ data });
    for (const pet of acknowledged) {
      const found = await restarted.store.get('default', 'pets', String(pet.id));
      expect(found.kind === 'found' && found.row).toEqual(pet);
    }
    // Anything written but not acknowledged is whole: a complete record, never a fragment.
    const saved = (await restarted.store.list('default', 'pets', { after: 120, limit: Infinity, filters: [] }))
      .items as unknown as readonly Pet[];
    for (const pet of saved) {
      expect(pet).toEqual({
        id: expect.any(Number),
        name: expect.stringMatching(/^round-\d+-pet-\d+-\d+$/),
        categoryId: expect.any(Number),
      });
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);
  });
});
