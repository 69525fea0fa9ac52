import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createSandboxServer } from '../../src/http/server.js';
import { ADMIN_TOKEN } from './sandbox.js';

/**
 * The workspace-snapshot scenario (docs/snapshots.md), over real loopback HTTP: a pro key spends
 * its quota, earns a ban, creates and deletes records under a rule, on a moved clock; a snapshot is
 * taken; the same requests are made (`probe`), more is done, the snapshot is restored, and the same
 * requests must get the same answers, byte for byte. Shared by the memory, data-file and Redis runs.
 */

/**
 * Pets that can be deleted (test/documents/snapshot-pets.yaml), seeded from their schemas, and small
 * limits, so a ban is a few requests away: 10 a minute, a ban of 10 minutes after 2 refusals in a minute.
 */
export const SNAPSHOT_LIMITS = {
  spec: fileURLToPath(new URL('../documents/snapshot-pets.yaml', import.meta.url)),
  fixtures: null,
  plans: { pro: { perMinute: 10, perDay: 1_000 } },
  bans: { threshold: 2, durationSeconds: 600 },
} as const;

export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
export const KEY = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** What a client sees of an answer: its status, its headers but those that name the request or the moment, its body's bytes. */
export interface Seen {
  readonly request: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const UNCOMPARED = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'transfer-encoding']);

export async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Seen> {
  const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const kept: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!UNCOMPARED.has(name)) kept[name] = value;
  });
  return { request: `${method} ${path}`, status: res.status, headers: kept, body: await res.text() };
}

export const json = <T>(seen: Seen): T => JSON.parse(seen.body) as T;

/** A sandbox served on a real loopback port. */
export interface Served {
  readonly sandbox: Sandbox;
  readonly url: string;
  stop(): Promise<void>;
}

export async function serve(sandbox: Sandbox): Promise<Served> {
  const server = createSandboxServer(sandbox);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    sandbox,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.close();
    },
  };
}

/** The key the scenario uses and where it works. */
export interface Actor {
  readonly key: string;
  readonly id: string;
  readonly workspace: string;
}

/** A pro key of its own workspace. */
export async function issuePro(base: string): Promise<Actor> {
  const issued = await call(base, 'POST', '/__sandbox/keys', ADMIN, { plan: 'pro' });
  expect(issued.status, issued.body).toBe(201);
  return json<Actor>(issued);
}

/**
 * Up to the snapshot: the workspace's clock moved, two pets created and the first deleted, a rule
 * used once: 4 of the minute's 10 requests spent. Answers the deleted pet's id.
 */
export async function before(base: string, actor: Actor): Promise<number> {
  const { key, workspace } = actor;
  expect((await call(base, 'POST', `/__sandbox/workspaces/${workspace}/clock`, ADMIN, { advanceSeconds: 30 })).status).toBe(200);
  const rule = await call(base, 'POST', '/__sandbox/rules', ADMIN, {
    match: { workspace, method: 'GET', path: '/v1/pets/1' },
    respond: { status: 503 },
    times: 3,
  });
  expect(rule.status, rule.body).toBe(201);
  const first = await call(base, 'POST', '/v1/pets', KEY(key), { name: 'First', categoryId: 1 });
  expect(first.status, first.body).toBe(201);
  expect((await call(base, 'POST', '/v1/pets', KEY(key), { name: 'Second', categoryId: 2 })).status).toBe(201);
  const deleted = json<{ id: number }>(first).id;
  expect((await call(base, 'DELETE', `/v1/pets/${deleted}`, KEY(key))).status).toBe(204);
  expect((await call(base, 'GET', '/v1/pets/1', KEY(key))).status).toBe(503);
  return deleted;
}

/**
 * The same requests each time: a create (the next id), the list, the deleted pet, reads until a ban
 * (the rule's last uses, the limit, two refusals, the ban), then what the admin API says of the key,
 * the clock and the rules.
 */
export async function probe(base: string, actor: Actor, deleted: number): Promise<Seen[]> {
  const { key, id, workspace } = actor;
  const seen = [
    await call(base, 'POST', '/v1/pets', KEY(key), { name: 'Next', categoryId: 3 }),
    await call(base, 'GET', '/v1/pets?limit=100', KEY(key)),
    await call(base, 'GET', `/v1/pets/${deleted}`, KEY(key)),
  ];
  for (let i = 0; i < 6; i++) seen.push(await call(base, 'GET', '/v1/pets/1', KEY(key)));
  seen.push(
    await call(base, 'GET', `/__sandbox/keys/${id}`, ADMIN),
    await call(base, 'GET', `/__sandbox/workspaces/${workspace}/clock`, ADMIN),
    await call(base, 'GET', '/__sandbox/rules', ADMIN),
  );
  return seen;
}

/** After the probe: time moves on, the ban ends, records change, quota is spent, the rule goes. */
export async function meanwhile(base: string, actor: Actor): Promise<void> {
  const { key, workspace } = actor;
  expect((await call(base, 'POST', `/__sandbox/workspaces/${workspace}/clock`, ADMIN, { advanceSeconds: 3_600 })).status).toBe(200);
  const later = await call(base, 'POST', '/v1/pets', KEY(key), { name: 'Later', categoryId: 1 });
  expect(later.status, later.body).toBe(201);
  expect((await call(base, 'DELETE', `/v1/pets/${json<{ id: number }>(later).id}`, KEY(key))).status).toBe(204);
  for (let i = 0; i < 3; i++) await call(base, 'GET', '/v1/pets/2', KEY(key));
  expect((await call(base, 'DELETE', '/__sandbox/rules', ADMIN)).status).toBe(200);
}

/** The probe's answers, made readable for a failed comparison: which request differs is the first thing to see. */
export const shown = (seen: readonly Seen[]): string[] =>
  seen.map((s) => `${s.request} → ${s.status} ${JSON.stringify(s.headers)} ${s.body}`);
