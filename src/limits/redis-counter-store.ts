import { Cluster, type Redis } from 'ioredis';
import type { CapturedCounters, ClientState, CounterStore, LimitPolicy, TakeOutcome } from './counter-store.js';
import { decodeNumber as decode, encodeNumber as encode, TAKE_SCRIPT } from './redis-take-script.js';
import { WINDOWS, windowStart } from './windows.js';

/** The script's name on the client (defineCommand sends EVALSHA, and the source again on NOSCRIPT). */
const COMMAND = 'understudyLimitsTake';

/** The client as the defined command makes it: ioredis adds the method at run time, untyped. */
interface WithTake {
  [COMMAND](key: string, ...args: string[]): Promise<unknown>;
}

const MINUTE = WINDOWS[0].lengthMs;
const KINDS = ['admitted', 'banned', 'refused'] as const;
/** Old policies kept for their identity (see `policyOf`); a reload or two's worth. */
const KEPT_POLICIES = 64;
/** Keys per SCAN and per UNLINK. */
const BATCH = 500;
/**
 * A key's expiry runs in real time, but the windows and bans it outlives end in sandbox time, which
 * may stand still or crawl: at 23:59:59.999 on a frozen clock the day "ends in 1 ms", and without
 * slack the counts would vanish while the sandbox still counts that day. One longest window of slack
 * covers a clock that stands still for a day, at the cost of idle clients staying a day longer.
 */
const EXPIRY_SLACK = Math.max(...WINDOWS.map((w) => w.lengthMs));

/** Glob characters in the prefix matched literally by SCAN MATCH. */
const literal = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Counters in Redis, shared by every replica that uses the same client and prefix; `take` is one
 * server-side script (see redis-take-script.ts for it and the hash's fields). One hash per
 * client at `<prefix>{<client>}:limits`: the braces are a Redis Cluster hash tag, so a client's data
 * keeps to one slot; `%`, `{` and `}` in a client id are percent-encoded so that no id can end the
 * tag early or collide with another. Do not combine with ioredis's own `keyPrefix` option: SCAN in
 * `reset` would not see it.
 */
export class RedisCounterStore implements CounterStore {
  private readonly policyArgs = new WeakMap<LimitPolicy, { readonly args: readonly string[]; readonly key: string }>();
  /** Policies given to `take`, by their encoding: a held policy read back is the caller's object again. */
  private readonly policies = new Map<string, LimitPolicy>();

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
  ) {
    if (/[{}]/.test(prefix)) throw new Error(`a counter-store prefix may not contain braces (they would move the hash tag): ${prefix}`);
    redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  keyOf(client: string): string {
    return `${this.prefix}{${client.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}}:limits`;
  }

  async take(client: string, policy: LimitPolicy, nowMs: number): Promise<TakeOutcome> {
    const starts = WINDOWS.map((w) => windowStart(nowMs, w.lengthMs));
    const keepUntil = Math.max(...WINDOWS.map((w, i) => (starts[i] ?? 0) + w.lengthMs));
    const args = [
      String(nowMs),
      String(WINDOWS.length),
      ...starts.map(String),
      ...this.argsOf(policy),
      String(keepUntil),
      String(EXPIRY_SLACK),
    ];
    const reply = await (this.redis as unknown as WithTake)[COMMAND](this.keyOf(client), ...args);
    if (!Array.isArray(reply) || !reply.every((v): v is string => typeof v === 'string')) {
      throw new Error('the take script answered in an unexpected shape');
    }
    const kind = KINDS.find((k) => k === reply[0]);
    if (kind === undefined) throw new Error(`the take script answered an unknown outcome: ${String(reply[0])}`);
    const fields: Record<string, string> = {};
    for (let i = 1; i + 1 < reply.length; i += 2) fields[reply[i] as string] = reply[i + 1] as string;
    return { kind, state: this.stateOf(fields, nowMs) };
  }

  async inspect(client: string, nowMs: number): Promise<ClientState> {
    return this.stateOf(await this.redis.hgetall(this.keyOf(client)), nowMs);
  }

  /** Each client's hash as it is (one HGETALL each: in a Cluster, each client is a slot of its own). */
  async capture(clients: readonly string[]): Promise<Record<string, CapturedCounters>> {
    const captured: Record<string, CapturedCounters> = {};
    for (const client of clients) {
      const fields = await this.redis.hgetall(this.keyOf(client));
      if (fields.rs === undefined) continue;
      captured[client] = {
        windows: WINDOWS.map((_, i) => ({ start: decode(fields[`s${i + 1}`]), count: decode(fields[`c${i + 1}`]) })),
        refusals: { start: decode(fields.rs), count: decode(fields.rc) },
        bannedUntil: decode(fields.bu),
      };
    }
    return captured;
  }

  /**
   * Each client's hash replaced in one transaction (one key: one slot), without a held policy (the
   * take script then counts under the plan it is given), expiring as the take script sets it.
   */
  async restore(clients: readonly string[], captured: Readonly<Record<string, CapturedCounters>>, nowMs: number): Promise<void> {
    for (const client of clients) {
      const key = this.keyOf(client);
      const state = captured[client];
      if (state === undefined) {
        await this.redis.unlink(key);
        continue;
      }
      const fields = ['rs', encode(state.refusals.start), 'rc', encode(state.refusals.count), 'bu', encode(state.bannedUntil)];
      WINDOWS.forEach((_, i) => {
        const window = state.windows[i] ?? { start: 0, count: 0 };
        fields.push(`s${i + 1}`, encode(window.start), `c${i + 1}`, encode(window.count));
      });
      const keepUntil = Math.max(...WINDOWS.map((w, i) => (state.windows[i]?.start ?? 0) + w.lengthMs), state.bannedUntil);
      const ttl = Math.ceil(keepUntil - nowMs + EXPIRY_SLACK);
      const multi = this.redis
        .multi()
        .del(key)
        .hset(key, ...fields);
      await (ttl > 0 ? multi.pexpire(key, ttl) : multi.unlink(key)).exec();
    }
  }

  async forget(clients: readonly string[]): Promise<void> {
    await this.unlink(
      this.redis,
      clients.map((client) => this.keyOf(client)),
    );
  }

  /**
   * Deletes every limits key under the prefix: SCAN in batches, then UNLINK. On a Cluster each master
   * is scanned in turn, as SCAN only walks the node it is sent to.
   */
  async reset(): Promise<void> {
    const match = `${literal(this.prefix)}{*}:limits`;
    const nodes = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', BATCH);
        await this.unlink(node, keys);
        cursor = next;
      } while (cursor !== '0');
    }
  }

  /** One UNLINK per batch; on a Cluster one per key (sent back to back), as it refuses a multi-key command across slots. */
  private async unlink(node: Redis | Cluster, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      if (this.redis instanceof Cluster) await Promise.all(batch.map((key) => node.unlink(key)));
      else if (batch.length > 0) await node.unlink(...batch);
    }
  }

  /**
   * The hash rolled forward to `nowMs` as the take script rolls it, in JS: a window whose start
   * differs is empty, refusals and the held policy belong to the current minute only, and a ban
   * that has ended reads as 0. For a take's own answer this changes nothing.
   */
  private stateOf(fields: Record<string, string>, nowMs: number): ClientState {
    const minute = windowStart(nowMs, MINUTE);
    const current = fields.rs !== undefined && Number(fields.rs) === minute;
    const bannedUntil = decode(fields.bu);
    const policy = current && fields.pt !== undefined ? this.policyOf(fields) : undefined;
    return {
      windows: WINDOWS.map((w, i) => {
        const start = windowStart(nowMs, w.lengthMs);
        const stored = fields[`s${i + 1}`];
        return { start, count: stored !== undefined && Number(stored) === start ? decode(fields[`c${i + 1}`]) : 0 };
      }),
      refusals: { start: minute, count: current ? decode(fields.rc) : 0 },
      bannedUntil: bannedUntil > nowMs ? bannedUntil : 0,
      ...(policy === undefined ? {} : { policy }),
    };
  }

  /** A policy's script arguments (its limits, one per window, then threshold and ban): worked out once per policy. */
  private argsOf(policy: LimitPolicy): readonly string[] {
    let known = this.policyArgs.get(policy);
    if (!known) {
      // A missing limit is no limit, as in MemoryCounterStore.
      const args = [...WINDOWS.map((_, i) => encode(policy.limits[i] ?? Infinity)), encode(policy.banThreshold), encode(policy.banMs)];
      known = { args, key: args.join(',') };
      this.policyArgs.set(policy, known);
    }
    if (this.policies.get(known.key) !== policy) {
      this.policies.delete(known.key);
      this.policies.set(known.key, policy);
      if (this.policies.size > KEPT_POLICIES) this.policies.delete(this.policies.keys().next().value as string);
    }
    return known.args;
  }

  /**
   * The held policy from the hash. Limiter finds a policy's plan by object identity, so when this
   * replica has handed the same values to `take`, that object is returned rather than a copy.
   */
  private policyOf(fields: Record<string, string>): LimitPolicy {
    const args = [...WINDOWS.map((_, i) => fields[`l${i + 1}`] ?? 'inf'), fields.pt ?? 'inf', fields.pb ?? '0'];
    const known = this.policies.get(args.join(','));
    if (known) return known;
    const numbers = args.map(decode);
    return {
      limits: numbers.slice(0, WINDOWS.length),
      banThreshold: numbers[WINDOWS.length] ?? Infinity,
      banMs: numbers[WINDOWS.length + 1] ?? 0,
    };
  }
}
