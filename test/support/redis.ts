import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './processes.js';

/** A redis-server of the test's own, on loopback, with its files in a temporary directory. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Ends it as a crash would (SIGKILL): what AOF had written is what a restart finds. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (after `kill`). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** Where redis-server is: REDIS_SERVER, else the PATH. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

/** Resolves once the port accepts a connection and answers PING (polled: a server's start is not an event we can wait on). */
async function answering(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}

/** Starts a redis-server with AOF on (`appendfsync always`: a kill loses nothing acknowledged). */
export async function startRedis(): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'understudy-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const started = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--protected-mode',
        'no',
      ],
      { stdio: 'ignore' },
    );
    child = started;
    await answering(port, started);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    stop: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A redis-server for one test file, started before its tests and stopped after them, and
 * `connect`, which opens a client on it as the sandbox's command connection is opened (no offline
 * queue, no retried command: a lost connection fails a command at once). Every client is closed
 * with the server.
 */
export function redisForFile(): { connect(): Promise<Redis> } {
  let server: TestRedis | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await server?.stop();
  });
  return {
    async connect(): Promise<Redis> {
      if (server === undefined) throw new Error('redisForFile: connect() before the file’s server started');
      const redis = new Redis(server.url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        lazyConnect: false,
        retryStrategy: () => 50,
      });
      redis.on('error', () => {}); // connection errors surface as rejected commands
      clients.push(redis);
      if (redis.status !== 'ready') await once(redis, 'ready');
      return redis;
    },
  };
}
