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

/**
 * Admin state shared through Redis. A replica that changes it writes the changed entries, then
 * publishes one message; every other replica reads the parts back, does the message's events, and
 * acknowledges; the change is answered once every replica has acknowledged (or a second has
 * passed), so a client that next reaches another replica finds the change there.
 */
export class SharedState {
  /** This replica, in messages. */
  readonly origin = randomBytes(6).toString('hex');
  /** Each part's entries as last written to or read from Redis: a change writes the difference. */
  private readonly seen = new Map<string, Map<string, string>>();
  /** Changes published here, awaiting the other replicas' acknowledgements. */
  private readonly waiting = new Map<number, { acks: number; needed: number | undefined; done: () => void }>();
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly parts: readonly SharedPart[],
    /** Does another replica's events here (a reset of this replica's own parts, a reload…). */
    private readonly perform: (event: SharedEvent) => Promise<void>,
  ) {}

  private get channel(): string {
    return `${this.prefix}replicas`;
  }

  private key(part: string): string {
    return `${this.prefix}state:${part}`;
  }

  /** Takes the shared state over (at start, and when Redis comes back) and listens for changes. */
  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.received(text);
    });
    await this.subscriber.subscribe(this.channel);
    await this.load();
  }

  /** Every part read from Redis and taken over. */
  async load(): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const part of this.parts) pipeline.hgetall(this.key(part.name));
    const results = (await pipeline.exec()) ?? [];
    this.parts.forEach((part, i) => {
      const [error, value] = results[i] ?? [new Error('no reply'), null];
      if (error) throw error;
      const entries = new Map(Object.entries((value ?? {}) as Record<string, string>));
      part.write(entries);
      this.seen.set(part.name, part.read());
    });
  }

  /**
   * After a change here: the parts' changed entries written, the events published, and every
   * other replica's acknowledgement awaited. Rejects when Redis cannot be reached.
   */
  async publish(events: readonly SharedEvent[]): Promise<void> {
    const multi = this.redis.multi();
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
    }
    multi.incr(`${this.prefix}state:version`);
    const results = await multi.exec();
    const id = Number(results?.at(-1)?.[1] ?? 0);
    for (const part of this.parts) this.seen.set(part.name, part.read());
    if (writes === 0 && events.length === 0) return;
    const message: Message = { origin: this.origin, id, events };
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
    let message: Message | { readonly ack: number; readonly to: string };
    try {
      message = JSON.parse(text) as Message | { readonly ack: number; readonly to: string };
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
    // One message at a time, in the order they came.
    this.applying = this.applying
      .then(async () => {
        for (const event of events) await this.perform(event);
        await this.load();
      })
      .catch(() => undefined)
      .then(() => this.redis.publish(this.channel, JSON.stringify({ ack: id, to: origin })).then(() => undefined))
      .catch(() => undefined);
  }
}
