import { Redis, type RedisOptions } from 'ioredis';
import { safeUrl } from './safe-url.js';

/**
 * The connections one replica holds to the shared Redis: one for commands (the request path),
 * one subscribed to the replicas' channel, one for blocking reads of the journal stream (a blocked
 * connection can serve nothing else).
 */
export interface RedisLinks {
  readonly command: Redis;
  readonly subscriber: Redis;
  readonly reader: Redis;
  /** Whether the command connection is up: the readiness probe, and the gate for admin changes. */
  ready(): boolean;
  /** Called each time the command connection comes back after an outage (not at the first connect). */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

/** How long a start waits for Redis before it gives up with a message. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Fail fast, never queue: with no offline queue a command on a dead connection rejects at once, and
 * a command that Redis does not answer in time rejects after `commandTimeoutMs`, so requests never
 * pile up behind a dead connection. Reconnection is ioredis's own, every 50–500 ms, forever.
 */
const options = (commandTimeoutMs: number | undefined): RedisOptions => ({
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2_000,
  ...(commandTimeoutMs === undefined ? {} : { commandTimeout: commandTimeoutMs }),
  retryStrategy: (attempt: number) => Math.min(50 * attempt, 500),
});

/** Opens the three connections; a Redis that cannot be reached at start stops the start, naming it. */
export async function connectRedis(url: string, commandTimeoutMs: number): Promise<RedisLinks> {
  const command = new Redis(url, options(commandTimeoutMs));
  const subscriber = new Redis(url, { ...options(undefined), enableOfflineQueue: true });
  // Blocking reads wait up to a second; their own timeout is longer.
  const reader = new Redis(url, options(commandTimeoutMs + 2_000));
  const all = [command, subscriber, reader];
  // Errors are reported through readiness and 503s; ioredis would otherwise print each one.
  for (const link of all) link.on('error', () => undefined);
  try {
    await Promise.race([
      Promise.all(all.map((link) => link.connect())),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no answer in ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS).unref(),
      ),
    ]);
  } catch (error) {
    for (const link of all) link.disconnect();
    throw new Error(`cannot reach Redis at ${safeUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  const reconnectListeners: (() => void)[] = [];
  let connectedOnce = false;
  command.on('ready', () => {
    if (connectedOnce) for (const listener of reconnectListeners) listener();
    connectedOnce = true;
  });
  connectedOnce = command.status === 'ready';
  return {
    command,
    subscriber,
    reader,
    ready: () => command.status === 'ready',
    onReconnect: (listener) => reconnectListeners.push(listener),
    close: async () => {
      await Promise.all(all.map((link) => link.quit().catch(() => link.disconnect())));
    },
  };
}
