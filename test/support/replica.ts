import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createSandboxServer } from '../../src/http/server.js';
import { ADMIN_TOKEN, testSandbox } from './sandbox.js';

/** One sandbox replica on a real loopback port. */
export interface Replica {
  readonly sandbox: Sandbox;
  readonly url: string;
  stop(): Promise<void>;
}

export const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
export const KEY = (key = 'demo-enterprise') => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** A replica of the test config on the Redis at `redisUrl`, its keys under `prefix` (replicas sharing one prefix share one sandbox). */
export async function startReplica(redisUrl: string, prefix: string, overrides: Parameters<typeof testSandbox>[0] = {}): Promise<Replica> {
  const sandbox = await testSandbox({ redis: { url: redisUrl, prefix, commandTimeoutMs: 200 }, ...overrides });
  const server = createSandboxServer(sandbox);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    sandbox,
    url: `http://127.0.0.1:${port}`,
    // Once, however often it is asked (a test may stop a replica that its end stops again).
    stop: () =>
      (stopped ??= (async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await sandbox.close();
      })()),
  };
}

export const stopAll = (replicas: readonly Replica[]) => Promise.all(replicas.map((r) => r.stop()));

/** One request over a real socket; the body parsed as JSON when there is one. */
export async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}
