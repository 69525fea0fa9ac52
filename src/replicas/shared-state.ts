import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * One part of the admin state every replica holds in memory (issued keys, workspaces, clocks,
 * rules, tokens), as entries: id → JSON. Reads on the request path stay in memory; Redis holds
 * the shared copy, one hash per part, written entry by entry so that two replicas changing
 * different entries at once (two visitors minting keys) never undo each other.
 */
export interface SharedPart {
  readonly name: string;
  /** This replica's entries now. */
  read(): Map<string, string>;
  /** The entries become exactly these (read from Redis after another replica's change). */
  write(entries: ReadonlyMap<string, string>): void;
}

/** What an admin change did beyond its parts' entries, for the other replicas to do too. */
export type SharedEvent =
  | { readonly kind: 'reset' }
  | { readonly kind: 'reload' }
  | { readonly kind: 'journal-clear'; readonly keyId?: string | undefined; readonly workspace?: string | undefined };

interface Message {
  readonly origin: string;
  readonly id: number;
  readonly events: readonly SharedEvent[];
}

/** How long an admin change waits for the other replicas to say they applied it. */
const ACK_TIMEOUT_MS = 1_000;

interface Ack {
  readonly ack: number;
  readonly to: string;
}

/**
 * Admin state shared through Redis. A change is made under this replica's lock (`exclusive`): the
 * change itself, then the entries it changed written to Redis (`commit`). Then one message goes to
 * the other replicas, which each, under their own lock, do its events, take the parts over from
 * Redis, and acknowledge; the change is answered once every replica has acknowledged (or a second
 * has passed), so a client that next reaches another replica finds the change there. The lock is
 * not held while acknowledgements are awaited, so two replicas changing things at once do not wait
 * on each other.
 */
export class SharedState {
  /** This replica, in messages. */
  readonly origin = randomBytes(6).toString('hex');
  /** Each part's entries as last written to or read from Redis: a commit writes the difference. */
  private readonly seen = new Map<string, Map<string, string>>();
  /** Changes announced from here, awaiting the other replicas' acknowledgements. */
  private readonly waiting = new Map<number, { acks: number; needed: number | undefined; done: () => void }>();
  /** Local changes and their commits, and other replicas' changes being taken over: one at a time. */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly parts: readonly SharedPart[],
    /** Does another replica's events here (a reset of this replica's own parts, a reload…). */
    private readonly perform: (event: SharedEvent) => Promise<void>,
    /** Told once another replica's change is taken over here, before it is acknowledged (the clocks may have moved). */
    private readonly tookOver: () => Promise<void> = () => Promise.resolve(),
  ) {}

  private get channel(): string {
    return `${this.prefix}replicas`;
  }

  private key(part: string): string {
    return `${this.prefix}state:${part}`;
  }

  /** Takes the shared state over (at start) and listens for changes. */
  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.received(text);
    });
    await this.subscriber.subscribe(this.channel);
    await this.exclusive(() => this.load());
  }

  /** Runs `work` under this replica's lock: no other replica's change is taken over meanwhile. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Takes the shared state over (when Redis comes back after an outage). */
  reload(): Promise<void> {
    return this.exclusive(() => this.load());
  }

  /**
   * Under the lock, after a change here: the entries it changed written to Redis. Answers how to
   * announce it, to be called once the lock is released. Rejects when Redis cannot be reached.
   */
  async commit(events: readonly SharedEvent[]): Promise<() => Promise<void>> {
    const { id, writes } = await this.write();
    if (writes === 0 && events.length === 0) return () => Promise.resolve();
    return () => this.announce({ origin: this.origin, id, events });
  }

  /** Every part read from Redis and taken over as it is there (under the lock). */
  private async load(): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const part of this.parts) pipeline.hgetall(this.key(part.name));
    const results = (await pipeline.exec()) ?? [];
    this.parts.forEach((part, i) => {
      const [error, value] = results[i] ?? [new Error('no reply'), null];
      if (error) throw error;
      part.write(new Map(Object.entries((value ?? {}) as Record<string, string>)));
      // As the part reads it back (with what it holds of its own, the default clock's offset): a
      // commit writes only what changes from here.
      this.seen.set(part.name, part.read());
    });
  }

  /** The entries changed here since they were last written or read, written in one transaction. */
  private async write(): Promise<{ readonly id: number; readonly writes: number }> {
    const multi = this.redis.multi();
    const written = new Map<string, Map<string, string>>();
    let writes = 0;
    for (const part of this.parts) {
      const now = part.read();
      const before = this.seen.get(part.name) ?? new Map<string, string>();
      for (const [id, value] of now) {
        if (before.get(id) === value) continue;
        multi.hset(this.key(part.name), id, value);
        writes++;
      }
      for (const id of before.keys()) {
        if (now.has(id)) continue;
        multi.hdel(this.key(part.name), id);
        writes++;
      }
      written.set(part.name, now);
    }
    multi.incr(`${this.prefix}state:version`);
    const results = await multi.exec();
    for (const [name, entries] of written) this.seen.set(name, entries);
    return { id: Number(results?.at(-1)?.[1] ?? 0), writes };
  }

  /** The change told to every replica; resolves once each has acknowledged it, or after a second. */
  private async announce(message: Message): Promise<void> {
    const { id } = message;
    const acknowledged = new Promise<void>((done) => this.waiting.set(id, { acks: 0, needed: undefined, done }));
    const timer = setTimeout(() => this.settle(id), ACK_TIMEOUT_MS);
    try {
      const receivers = await this.redis.publish(this.channel, JSON.stringify(message));
      // This replica's own subscriber is one of the receivers; an ack may have come before this count.
      const needed = receivers - 1;
      const waiter = this.waiting.get(id);
      if (waiter !== undefined) waiter.needed = needed;
      if (waiter !== undefined && waiter.acks >= needed) this.settle(id);
      await acknowledged;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }

  private settle(id: number): void {
    this.waiting.get(id)?.done();
    this.waiting.delete(id);
  }

  private received(text: string): void {
    let message: Message | Ack;
    try {
      message = JSON.parse(text) as Message | Ack;
    } catch {
      return;
    }
    if ('ack' in message) {
      if (message.to !== this.origin) return;
      const waiter = this.waiting.get(message.ack);
      if (waiter === undefined) return;
      waiter.acks += 1;
      if (waiter.needed !== undefined && waiter.acks >= waiter.needed) this.settle(message.ack);
      return;
    }
    if (message.origin === this.origin) return;
    const { origin, id, events } = message;
    // Under the lock, in the order they came: the events first, then the parts as Redis holds them.
    void this.exclusive(async () => {
      for (const event of events) await this.perform(event);
      await this.load();
      await this.tookOver();
    })
      .catch(() => undefined)
      .then(() => this.redis.publish(this.channel, JSON.stringify({ ack: id, to: origin } satisfies Ack)))
      .catch(() => undefined);
  }
}
