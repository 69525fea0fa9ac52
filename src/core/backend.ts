import type { SandboxConfig } from '../config/config.js';
import { MemoryCounterStore, type CounterStore } from '../limits/counter-store.js';
import type { RedisLinks } from '../replicas/redis-connection.js';
import type { Seeder } from '../seeding/seeder.js';
import { MemoryRecordStore, type SeedingProgress } from '../store/memory-store.js';
import type { SandboxStore } from '../store/record-store.js';
import type { Schedule } from '../transitions/schedule.js';
import type { DeliveryStore } from '../webhooks/store.js';

/** Where the records and the rate counters live: this process (and its data file), or a Redis shared by replicas. */
export interface Backend {
  readonly store: SandboxStore;
  readonly counters: CounterStore;
  /** The Redis connections, with `redis.url`. */
  readonly links: RedisLinks | undefined;
  /** With Redis, the webhook deliveries and the fields the timed transitions follow, shared by the replicas (else each in memory). */
  readonly deliveries?: DeliveryStore;
  readonly schedule?: Schedule;
}

export async function openBackend(
  config: SandboxConfig,
  seeder: Seeder,
  onSeeding: SeedingProgress,
  onOutage: (error: Error) => void,
): Promise<Backend> {
  const { redis } = config;
  if (redis.url === null) {
    const store = await MemoryRecordStore.open(seeder, config.data, onSeeding, config.fsync);
    return { store, counters: new MemoryCounterStore(), links: undefined };
  }
  // Loaded only here: a sandbox without Redis never loads the client (it is a tenth of the start-up).
  const [
    { connectRedis },
    { RedisRecordStore },
    { RedisCounterStore },
    { FailoverCounterStore },
    { guardedStore, guardedDeliveries },
    { RedisDeliveryStore },
    { RedisSchedule },
  ] = await Promise.all([
    import('../replicas/redis-connection.js'),
    import('../store/redis-store.js'),
    import('../limits/redis-counter-store.js'),
    import('../limits/failover-counter-store.js'),
    import('../replicas/guarded-store.js'),
    import('../webhooks/redis-delivery-store.js'),
    import('../transitions/redis-schedule.js'),
  ]);
  const links = await connectRedis(redis.url, redis.commandTimeoutMs);
  const store = await RedisRecordStore.open(links.command, redis.prefix, seeder, onSeeding);
  const counters = new FailoverCounterStore(new RedisCounterStore(links.command, redis.prefix), {
    policy: redis.outage,
    replicas: redis.replicas,
    onOutage,
  });
  return {
    store: guardedStore(store),
    counters,
    links,
    deliveries: guardedDeliveries(new RedisDeliveryStore(links.command, redis.prefix)),
    schedule: new RedisSchedule(links.command, redis.prefix),
  };
}
