import type { Page, PageQuery } from '../store/paging.js';
import type { Inserted, Lookup, SandboxStore, Update } from '../store/record-store.js';
import { Unavailable } from '../vocabulary/errors.js';
import type { MintKey, Row } from '../vocabulary/record.js';
import { isOutage } from '../vocabulary/outage.js';
import type { DeliveryStore } from '../webhooks/store.js';

/** A shared store's failure to reach Redis, as the request path understands it (a 503); anything else as it was. */
const unreachable = (error: unknown): never => {
  if (isOutage(error)) throw new Unavailable(error.message);
  throw error;
};

/** A record store on Redis whose outages reject with `Unavailable`: the API answers 503 with Retry-After. */
export function guardedStore(store: SandboxStore): SandboxStore {
  return {
    list: (w: string, c: string, query: PageQuery): Promise<Page> => store.list(w, c, query).catch(unreachable),
    get: (w: string, c: string, key: string): Promise<Lookup> => store.get(w, c, key).catch(unreachable),
    create: (w: string, c: string, fields: Readonly<Record<string, unknown>>, mint?: MintKey): Promise<Row> =>
      store.create(w, c, fields, mint).catch(unreachable),
    insert: (w: string, c: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Inserted> =>
      store.insert(w, c, key, fields).catch(unreachable),
    replace: (w: string, c: string, key: string, fields: Readonly<Record<string, unknown>>): Promise<Lookup> =>
      store.replace(w, c, key, fields).catch(unreachable),
    put: (w: string, c: string, key: string, fields: Readonly<Record<string, unknown>>, keyed: boolean): Promise<Row> =>
      store.put(w, c, key, fields, keyed).catch(unreachable),
    update: (w: string, c: string, key: string, change: (current: Row) => Readonly<Record<string, unknown>> | undefined): Promise<Update> =>
      store.update(w, c, key, change).catch(unreachable),
    delete: (w: string, c: string, key: string): Promise<Lookup> => store.delete(w, c, key).catch(unreachable),
    reset: () => store.reset().catch(unreachable),
    forget: (w: string) => store.forget(w).catch(unreachable),
    writes: (w: string) => store.writes(w),
    digest: (w?: string) => store.digest(w).catch(unreachable),
    capture: (w) => store.capture(w).catch(unreachable),
    restore: (w, records) => store.restore(w, records).catch(unreachable),
    close: () => store.close(),
    useSeeder: (seeder) => store.useSeeder(seeder),
    stored: () => store.stored(),
    kept: () => store.kept(),
    keep: (value) => store.keep(value),
  };
}

/** The webhook delivery store on Redis, likewise: the admin API's list, read and replay answer 503 while Redis is out of reach. */
export function guardedDeliveries(store: DeliveryStore): DeliveryStore {
  return {
    add: (delivery, limits) => store.add(delivery, limits).catch(unreachable),
    get: (id) => store.get(id).catch(unreachable),
    list: (filter) => store.list(filter).catch(unreachable),
    active: () => store.active().catch(unreachable),
    update: (id, change) => store.update(id, change).catch(unreachable),
    claim: (id, attempt, ttlMs) => store.claim(id, attempt, ttlMs).catch(unreachable),
    forget: (workspace) => store.forget(workspace).catch(unreachable),
    reset: () => store.reset().catch(unreachable),
  };
}
