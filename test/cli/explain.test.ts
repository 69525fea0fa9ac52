import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const ANY_IDS = fileURLToPath(new URL('../documents/any-ids.yaml', import.meta.url));

describe('understudy explain', () => {
  it('says what the Pet Store keeps, with no server started', async () => {
    const { code, stdout } = await runCli(['explain']);
    expect(code).toBe(0);
    expect(stdout).toContain('Pet Store: 2 collections keep records');
    expect(stdout).toMatch(/pets \[x-understudy\]\n {2}id {8}id: whole numbers/);
    expect(stdout).toContain('  read      GET /pets/{petId}  (getPet)');
    expect(stdout).toContain('  filters   status');
    expect(stdout).toContain('Every operation is served from the store.');
  });

  it('names each collection of a document with other ids, how ids are minted, and its actions', async () => {
    const { code, stdout } = await runCli(['explain', '--spec', ANY_IDS]);
    expect(code).toBe(0);
    expect(stdout).toContain('Any ids: 7 collections keep records');
    expect(stdout).toContain('  id        id: a minted UUID');
    expect(stdout).toContain('  id        id: a minted string prefixed cus_');
    expect(stdout).toContain('  id        username: the id the client sends, else a minted string 3-20 characters');
    expect(stdout).toContain('user/posts (under {username})');
    expect(stdout).toContain('  apply     POST /customers/{customer}  (updateCustomer)');
  });

  it('answers --json as GET /__sandbox/model does', async () => {
    const { code, stdout } = await runCli(['explain', '--spec', ANY_IDS, '--json']);
    expect(code).toBe(0);
    const model = JSON.parse(stdout) as { collections: { name: string; idKind: string; idProperty: string }[] };
    expect(model.collections.map((c) => [c.name, c.idProperty, c.idKind])).toEqual([
      ['bookings', 'id', 'uuid'],
      ['customers', 'id', 'string'],
      ['user', 'username', 'string'],
      ['articles', 'slug', 'string'],
      ['shipments', 'id', 'string'],
      ['teams', 'slug', 'string'],
      ['user/posts', 'id', 'uuid'],
    ]);
  });

  it('refuses an unknown option with exit code 1 and a message', async () => {
    const { code, stderr } = await runCli(['explain', '--colour']);
    expect(code).toBe(1);
    expect(stderr).toContain('--colour');
  });
});
