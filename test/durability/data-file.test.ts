import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import type { MemoryRecordStore } from '../../src/store/memory-store.js';
import { ADMIN_TOKEN, auth, START, testSandbox } from '../support/sandbox.js';

const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const START_S = Date.parse(START) / 1000;

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'understudy-data-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('the store persisted to a data file', () => {
  it('creates a missing file, and a restart finds what was created', async () => {
    const data = join(await tempDir(), 'store.json');
    const first = await testSandbox({ data });
    const created = await request(createNodeHandler(first)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 2 });
    expect(created.status).toBe(201);
    // Acknowledged once appended to the log beside the file: its last line is the record.
    const logged = (await readFile(`${data}.log`, 'utf8')).trim().split('\n');
    expect(JSON.parse(logged.at(-1)!)).toEqual({ op: 'put', w: 'default', c: 'pets', row: created.body });
    expect(JSON.parse(logged[0]!)).toMatchObject({ op: 'adopt', w: 'default', c: 'pets' });

    const second = await testSandbox({ data });
    const fetched = await request(createNodeHandler(second)).get(`/v1/pets/${created.body.id}`).set(auth());
    expect(fetched.body).toEqual(created.body);
    expect(await second.store.digest()).toBe(await first.store.digest());
  });

  it('keeps workspaces across a restart: the issued key, its records, its clock; counters start afresh', async () => {
    const data = join(await tempDir(), 'store.json');
    const first = createNodeHandler(await testSandbox({ data }));
    const issued = await request(first).post('/__sandbox/keys').set(ADMIN).send({ plan: 'pro' });
    expect(issued.status).toBe(201);
    const { key, workspace } = issued.body as { key: string; workspace: string };
    const created = await request(first).post('/v1/pets').set(auth(key)).send({ name: 'Private', categoryId: 2 });
    expect(created.status).toBe(201);
    await request(first).post(`/__sandbox/workspaces/${workspace}/clock`).set(ADMIN).send({ advanceSeconds: 3600 }).expect(200);
    const saved = await readFile(data, 'utf8');
    expect(saved).not.toContain(key);

    const second = createNodeHandler(await testSandbox({ data }));
    const fetched = await request(second).get(`/v1/pets/${created.body.id}`).set(auth(key));
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
    expect(fetched.headers['x-ratelimit-remaining']).toBe('299');
    expect((await request(second).get(`/v1/pets/${created.body.id}`).set(auth())).status).toBe(404);
    const listed = (await request(second).get('/__sandbox/workspaces').set(ADMIN)).body as { workspaces: { id: string; clock: object }[] };
    expect(listed.workspaces.find((w) => w.id === workspace)).toMatchObject({ clock: { now: START_S + 3600, follows: false } });
  });

  it('keeps the rules across a restart, with their uses, beside the keys, workspaces and clocks', async () => {
    const data = join(await tempDir(), 'store.json');
    const first = createNodeHandler(await testSandbox({ data }));
    const rule = await request(first)
      .post('/__sandbox/rules')
      .set(ADMIN)
      .send({ match: { method: 'GET', path: '/v1/pets' }, respond: { status: 503 } });
    expect(rule.status).toBe(201);
    expect((await request(first).get('/v1/pets').set(auth())).status).toBe(503);
    // The kept state is logged beside the records' changes: its last `keep` holds every durable part.
    const kept = (await readFile(`${data}.log`, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { op: string; value?: Record<string, unknown> })
      .filter((line) => line.op === 'keep')
      .at(-1);
    expect(Object.keys(kept!.value!).sort()).toEqual(['clocks', 'keys', 'rules', 'snapshots', 'tokens', 'workspaces']);

    const second = createNodeHandler(await testSandbox({ data }));
    const rules = (await request(second).get('/__sandbox/rules').set(ADMIN)).body as { id: string; applied: number }[];
    expect(rules).toMatchObject([{ id: (rule.body as { id: string }).id }]);
    expect((await request(second).get('/v1/pets').set(auth())).status).toBe(503);
    // Ids go on after the kept ones.
    const next = await request(second)
      .post('/__sandbox/rules')
      .set(ADMIN)
      .send({ match: { method: 'DELETE' }, respond: { status: 500 } });
    expect((next.body as { id: string }).id).not.toBe((rule.body as { id: string }).id);
  });

  it('stops the start on sandbox state that does not read, and leaves the file untouched', async () => {
    const data = join(await tempDir(), 'store.json');
    const broken = JSON.stringify({ understudy: 2, workspaces: {}, sandbox: { keys: 'no' } });
    await writeFile(data, broken);
    await expect(testSandbox({ data })).rejects.toThrow(/holds sandbox state that does not read \(it needs keys, workspaces and clocks\)/);
    expect(await readFile(data, 'utf8')).toBe(broken);
  });

  it('drops a last log line cut short by a crash, and keeps every whole one', async () => {
    const data = join(await tempDir(), 'store.json');
    const first = await testSandbox({ data });
    const created = await request(createNodeHandler(first)).post('/v1/pets').set(auth()).send({ name: 'Whole', categoryId: 2 });
    await first.close();
    // The process died while appending the next change: half a line, never acknowledged.
    const torn = '{"op":"put","w":"default","c":"pets","row":{"id":122,"na';
    await writeFile(`${data}.log`, (await readFile(`${data}.log`, 'utf8')) + torn);
    const second = createNodeHandler(await testSandbox({ data }));
    expect((await request(second).get(`/v1/pets/${created.body.id}`).set(auth())).body).toEqual(created.body);
    expect((await request(second).get('/v1/pets/122').set(auth())).status).toBe(404);
    // Replayed into a fresh snapshot: the log starts clean.
    expect(await readFile(`${data}.log`, 'utf8')).toBe('');
  });

  it('stops the start on a line that holds two changes side by side, naming that line', async () => {
    const data = join(await tempDir(), 'store.json');
    await (await testSandbox({ data })).close();
    const put = (id: number) => JSON.stringify({ op: 'put', w: 'default', c: 'pets', row: { id, name: `p${id}`, categoryId: 1 } });
    await writeFile(`${data}.log`, `${put(200)}\n${put(201)},${put(202)}\n${put(203)}\n`);
    await expect(testSandbox({ data })).rejects.toThrow(`the data log ${data}.log is corrupt at line 2; it was left untouched`);
  });

  it('keeps a last change written whole but for its newline, and completes the line', async () => {
    const data = join(await tempDir(), 'store.json');
    await (await testSandbox({ data })).close();
    const row = { id: 500, name: 'Unterminated', categoryId: 1 };
    await writeFile(
      `${data}.log`,
      `${JSON.stringify({ op: 'adopt', w: 'default', c: 'pets', rows: [] })}\n${JSON.stringify({ op: 'put', w: 'default', c: 'pets', row })}`,
    );
    const restarted = await testSandbox({ data });
    expect(await restarted.store.get('default', 'pets', '500')).toEqual({ kind: 'found', row });
    await restarted.close();
  });

  it('stops the start on a log line that does not parse before the last, and leaves both files untouched', async () => {
    const data = join(await tempDir(), 'store.json');
    const first = await testSandbox({ data });
    await request(createNodeHandler(first)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 2 });
    await first.close();
    const log = `${(await readFile(`${data}.log`, 'utf8')).replace('"op":"put"', '"op":"put"garbage')}`;
    await writeFile(`${data}.log`, log);
    const snapshot = await readFile(data, 'utf8');
    await expect(testSandbox({ data })).rejects.toThrow(`the data log ${data}.log is corrupt at line 2; it was left untouched`);
    expect(await readFile(`${data}.log`, 'utf8')).toBe(log);
    expect(await readFile(data, 'utf8')).toBe(snapshot);
  });

  it.each(['always', 'everysec', 'no'] as const)('acknowledges a create only once it is in the log, under fsync %s', async (fsync) => {
    const data = join(await tempDir(), 'store.json');
    const sandbox = await testSandbox({ data, fsync });
    const created = await request(createNodeHandler(sandbox)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 2 });
    expect(created.status).toBe(201);
    expect(await readFile(`${data}.log`, 'utf8')).toContain(JSON.stringify(created.body));
    await sandbox.close();
  });

  it('takes writes while a snapshot is written in the background, and keeps every one of them', async () => {
    const data = join(await tempDir(), 'store.json');
    const sandbox = await testSandbox({ data });
    const store = sandbox.store as MemoryRecordStore;
    // Enough records for a snapshot of many chunks.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 5_000 }, (_, n) => store.create('default', 'pets', { name: `before-${batch}-${n}`, categoryId: 1 })),
      );
    }
    const before = await readFile(`${data}.log`, 'utf8');
    let compacted = false;
    const compaction = store.compact().then(() => (compacted = true));
    const during = await Promise.all(
      Array.from({ length: 50 }, (_, n) => store.create('default', 'pets', { name: `during-${n}`, categoryId: 2 })),
    );
    // Acknowledged before the snapshot was in place: appends did not wait for it.
    expect(compacted).toBe(false);
    await compaction;
    const snapshot = await readFile(data, 'utf8');
    const newLog = await readFile(`${data}.log`, 'utf8');
    // The new log starts with what was appended while the snapshot was written, and nothing older.
    const logged = newLog
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { row: { name: string } });
    expect(logged.map((op) => op.row.name)).toEqual(during.map((row) => row.name));
    await sandbox.close();

    const restarted = await testSandbox({ data });
    const all = await restarted.store.list('default', 'pets', { after: undefined, limit: Infinity, filters: [] });
    expect(all.items).toHaveLength(120 + 50_000 + 50);
    expect(all.items.at(-1)).toEqual(during.at(-1));
    await restarted.close();

    // A crash between the snapshot's rename and the new log's: the old log, whole, replayed over the
    // new snapshot, gives the same records.
    await writeFile(data, snapshot);
    await writeFile(`${data}.log`, before + newLog);
    const recovered = await testSandbox({ data });
    expect((await recovered.store.list('default', 'pets', { after: undefined, limit: Infinity, filters: [] })).items).toEqual(all.items);
    await recovered.close();
  });

  it('writes what reset restores', async () => {
    const data = join(await tempDir(), 'store.json');
    const sandbox = await testSandbox({ data });
    const seeded = await readFile(data, 'utf8');
    expect(await readFile(`${data}.log`, 'utf8')).toBe('');
    await request(createNodeHandler(sandbox)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 2 });
    expect(await readFile(`${data}.log`, 'utf8')).not.toBe('');
    await sandbox.reset();
    // A reset writes the seeded state's snapshot and empties the log.
    expect(await readFile(data, 'utf8')).toBe(seeded);
    expect(await readFile(`${data}.log`, 'utf8')).toBe('');
  });

  it.each([
    ['not JSON', '{"pets": [', 'cannot be read'],
    ['not an object', '[1, 2]', 'not a JSON object'],
    ['a collection that is not a list', '{"pets": {}}', 'pets is not a list'],
    ['records without ids', '{"pets": [{"name": "Rex"}]}', 'pets[0] has no id'],
  ])('stops the start on a file that is %s, naming it, and leaves it untouched', async (_, text, message) => {
    const data = join(await tempDir(), 'store.json');
    await writeFile(data, text);
    await expect(testSandbox({ data })).rejects.toThrow(message);
    await expect(testSandbox({ data })).rejects.toThrow(data);
    expect(await readFile(data, 'utf8')).toBe(text);
  });

  it('undoes a change whose write fails, and answers 500 in the Error shape', async () => {
    const dir = await tempDir();
    const data = join(dir, 'store.json');
    const sandbox = await testSandbox({ data });
    const before = await sandbox.store.digest();
    // A closed log makes every append fail, as a disk that refuses writes would.
    await sandbox.close();
    const res = await request(createNodeHandler(sandbox)).post('/v1/pets').set(auth()).send({ name: 'Rex', categoryId: 2 });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'internal_error', message: expect.any(String), status: 500 });
    expect(await sandbox.store.digest()).toBe(before);
    const list = await request(createNodeHandler(sandbox)).get('/v1/pets?after=120').set(auth());
    expect(list.body).toEqual([]);
  });
});
