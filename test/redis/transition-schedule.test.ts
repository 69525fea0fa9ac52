import { describe, expect, it } from 'vitest';
import { RedisSchedule } from '../../src/transitions/redis-schedule.js';
import { MemorySchedule, type Followed, type Schedule } from '../../src/transitions/schedule.js';
import { redisForFile } from '../support/redis.js';

/**
 * The schedules of the fields timed transitions follow behave alike (the same contract, run on the
 * memory one and on a real redis-server), and two replicas' schedules on one Redis grant the move
 * out of a state to one of them only.
 */

const { connect } = redisForFile();
let prefixes = 0;

const T = Date.parse('2026-11-22T10:00:30Z');
const pet = (state: string, enteredAt: number, workspace = 'default', key = '121'): Followed => ({
  workspace,
  collection: 'pets',
  key,
  field: 'status',
  state,
  enteredAt,
});
const ID = 'default\u0000pets\u0000121\u0000status';
/** The entries as the contract shows them (a shared schedule names each stay besides). */
const plain = async (schedule: Schedule) =>
  (await schedule.entries()).map(([id, { stay: _stay, ...entry }]) => [id, entry]).sort(([a], [b]) => String(a).localeCompare(String(b)));

describe.each([
  ['memory', (): Promise<Schedule> => Promise.resolve(new MemorySchedule())],
  ['redis', async (): Promise<Schedule> => new RedisSchedule(await connect(), `s${++prefixes}:`)],
])('the %s schedule', (_name, makeSchedule) => {
  it('follows a field from when it took its state, keeps that time while it stays, and follows it no more when asked', async () => {
    const schedule = await makeSchedule();
    await schedule.follow(ID, pet('available', T));
    await schedule.follow(ID, pet('available', T + 5_000));
    expect(await plain(schedule)).toEqual([[ID, pet('available', T)]]);
    await schedule.follow(ID, pet('pending', T + 9_000));
    expect(await plain(schedule)).toEqual([[ID, pet('pending', T + 9_000)]]);
    await schedule.follow(ID, undefined);
    expect(await schedule.entries()).toEqual([]);
  });

  it('settles a move only out of the entry it claimed: one followed anew meanwhile stands', async () => {
    const schedule = await makeSchedule();
    await schedule.follow(ID, pet('available', T));
    const [[, entry] = []] = await schedule.entries();
    expect(await schedule.claim(ID, entry as Followed)).toBe(true);
    expect(await schedule.settle(ID, entry as Followed, pet('pending', T + 3_600_000))).toMatchObject(pet('pending', T + 3_600_000));
    expect(await plain(schedule)).toEqual([[ID, pet('pending', T + 3_600_000)]]);
    // The entry read before the move is stale now: no claim, and settling it changes nothing.
    expect(await schedule.claim(ID, entry as Followed)).toBe(false);
    expect(await schedule.settle(ID, entry as Followed, undefined)).toBeUndefined();
    expect(await plain(schedule)).toEqual([[ID, pet('pending', T + 3_600_000)]]);

    const [[, moved] = []] = await schedule.entries();
    await schedule.follow(ID, pet('available', T + 7_200_000));
    expect(await schedule.settle(ID, moved as Followed, undefined)).toBeUndefined();
    expect(await plain(schedule)).toEqual([[ID, pet('available', T + 7_200_000)]]);
  });

  it('forgets one workspace, and resets all', async () => {
    const schedule = await makeSchedule();
    await schedule.follow(ID, pet('available', T));
    await schedule.follow('ws_a\u0000pets\u0000121\u0000status', pet('available', T, 'ws_a'));
    await schedule.forget('ws_a');
    expect(await plain(schedule)).toEqual([[ID, pet('available', T)]]);
    await schedule.reset();
    expect(await schedule.entries()).toEqual([]);
  });
});

describe('two replicas’ schedules on one Redis', () => {
  it('grant the move out of a stay to one of them only, however they race', async () => {
    const prefix = `s${++prefixes}:`;
    const [one, two] = [new RedisSchedule(await connect(), prefix), new RedisSchedule(await connect(), prefix)];
    for (let round = 0; round < 20; round++) {
      await one.follow(ID, pet(round % 2 === 0 ? 'available' : 'pending', T + round));
      const [[, seenByOne] = []] = await one.entries();
      const [[, seenByTwo] = []] = await two.entries();
      const granted = await Promise.all([one.claim(ID, seenByOne as Followed), two.claim(ID, seenByTwo as Followed)]);
      expect(granted.filter(Boolean)).toHaveLength(1);
    }
  });
});
