import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import { AllowList, DEFAULT_OUTBOUND, resolveWithin, systemResolver, type OutboundConfig, type Resolver } from './allow.js';
import { callersHeaders, headerProblem, type Enqueued, type EnqueueInput } from './message.js';
import { publicDelivery, type AttemptRecord, type Delivery, type DeliveryFilter, type StoredDelivery } from './records.js';
import { afterAttempt, deliverySettings, type AttemptMade, type DeliverySettings } from './schedule.js';
import { nodeTransport, sendToFirstReached, type OutboundRequest, type Transport } from './send.js';
import { generateSecret, secretProblem, signatureHeaders } from './sign.js';
import { MemoryDeliveryStore, type DeliveryStore } from './store.js';

export type { Enqueued, EnqueueInput, JsonValue } from './message.js';

/** The sandbox time of each workspace, which the retry schedule runs on. */
export interface DeliveryClock {
  now(workspace: string): number;
}

/** The workspaces' clocks as the engine reads them. */
export const workspaceClock = (clocks: WorkspaceClocks): DeliveryClock => ({ now: (workspace) => clocks.of(workspace).now() });

export interface DeliveryOptions extends Partial<DeliverySettings> {
  readonly clock: DeliveryClock;
  readonly outbound?: OutboundConfig;
  readonly resolver?: Resolver;
  readonly transport?: Transport;
  readonly store?: DeliveryStore;
  /**
   * The time a signature's `webhook-timestamp` is taken from: the wall clock, not the sandbox's.
   * Receivers check that timestamp against their own clock (Standard Webhooks allows five minutes),
   * so a signature dated on a sandbox clock moved a day ahead to fire retries would be rejected.
   */
  readonly signingClock?: () => number;
  /** Told what the engine could not record (a store that failed, a subscriber that threw). */
  readonly report?: (error: unknown) => void;
}

/** A listener may be async; its promise is only watched for a rejection, never awaited. */
export type AttemptListener = (delivery: Delivery, attempt: AttemptRecord) => void | Promise<void>;

/** Added to an attempt's longest time (resolving, then sending), so that a live replica's claim never lapses mid-attempt. */
const CLAIM_SLACK_MS = 30_000;
/**
 * How soon an attempt that someone else holds (another replica, or one that died holding it) is
 * looked at again. Rechecking at once would spin; the claim's holder saves its attempt well before.
 */
const RECHECK_MS = 1_000;
/** setTimeout's largest delay (about 24.8 days); a later due time is re-armed when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The outbound delivery engine: queues webhook and callback messages per workspace, signs each
 * attempt per Standard Webhooks, sends it only to an address the allow-list permits, and retries a
 * failed one on the workspace's sandbox clock. Nothing here runs on the caller's stack: `enqueue`
 * answers once the delivery is stored, and every attempt starts later, from a pass over the store.
 *
 * A pass attempts whatever is due and arms one timer for the earliest delivery still waiting, so a
 * running clock fires retries when due; a moved clock must be announced with `clockMoved`, which
 * makes due retries fire at once.
 */
export class Deliveries {
  private readonly settings: DeliverySettings;
  private readonly allowList: AllowList;
  private readonly store: DeliveryStore;
  private readonly clock: DeliveryClock;
  private readonly resolver: Resolver;
  private readonly transport: Transport;
  private readonly signingClock: () => number;
  private readonly report: (error: unknown) => void;
  private readonly listeners = new Set<AttemptListener>();
  /** Passes and attempts under way, for `idle`. */
  private readonly work = new Set<Promise<void>>();
  private readonly inFlight = new Set<string>();
  private passQueued = false;
  private timer: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: DeliveryOptions) {
    this.settings = deliverySettings(options);
    this.allowList = new AllowList(options.outbound ?? DEFAULT_OUTBOUND);
    this.store = options.store ?? new MemoryDeliveryStore();
    this.clock = options.clock;
    this.resolver = options.resolver ?? systemResolver;
    this.transport = options.transport ?? nodeTransport;
    this.signingClock = options.signingClock ?? Date.now;
    this.report = options.report ?? (() => undefined);
  }

  /**
   * Queues a message and answers its id (and the secret it is signed with) once it is stored; the
   * first attempt starts after the caller's turn. A delivery that cannot be queued (a full queue,
   * a bad secret or header) is kept as `refused` with the reason, and nothing is sent.
   */
  async enqueue(input: EnqueueInput): Promise<Enqueued> {
    const id = `msg_${randomBytes(16).toString('base64url')}`;
    const secret = input.secret ?? generateSecret();
    const createdAt = this.clock.now(input.workspace);
    const headers = callersHeaders(input.headers);
    const base = { id, workspace: input.workspace, event: input.event, url: input.url, createdAt, attempts: [] };
    const stored = {
      ...base,
      body: input.payload === undefined ? '' : JSON.stringify(input.payload),
      secret,
      headers,
      ...(input.method === undefined || input.method === 'POST' ? {} : { method: input.method }),
      ...(input.success === undefined ? {} : { success: input.success }),
    };
    const limits = { pendingLimit: this.settings.queueLimit, historyLimit: this.settings.historyLimit };
    const refuse = async (reason: string): Promise<Enqueued> => {
      await this.store.add({ ...stored, status: 'refused', reason }, limits);
      return { id, secret, status: 'refused', reason };
    };
    const problem = secretProblem(secret) ?? headerProblem(headers);
    if (problem !== undefined) return refuse(problem);
    if (!(await this.store.add({ ...stored, status: 'pending', nextAttemptAt: createdAt }, limits))) {
      return refuse(`the workspace already has ${this.settings.queueLimit} deliveries pending (webhooks.queueLimit)`);
    }
    this.schedulePass();
    return { id, secret, status: 'pending' };
  }

  async get(id: string): Promise<Delivery | undefined> {
    const stored = await this.store.get(id);
    return stored === undefined ? undefined : publicDelivery(stored);
  }

  /** Oldest first. */
  async list(filter: DeliveryFilter = {}): Promise<Delivery[]> {
    return (await this.store.list(filter)).map(publicDelivery);
  }

  /**
   * Sends a delivery again now, whatever its status: the same message id and body, signed anew (a
   * fresh timestamp), as one attempt outside the retry schedule. Answers the delivery as it stands
   * (the attempt follows, as every attempt does), or undefined for an unknown id.
   */
  async replay(id: string): Promise<Delivery | undefined> {
    const updated = await this.store.update(id, (latest) => ({ ...latest, replayRequested: true }));
    if (updated !== undefined) this.schedulePass();
    return updated === undefined ? undefined : publicDelivery(updated);
  }

  /** Drops a workspace's deliveries, pending ones included; an attempt under way is not recorded. */
  forget(workspace: string): Promise<void> {
    return this.store.forget(workspace);
  }

  reset(): Promise<void> {
    return this.store.reset();
  }

  /** To be called whenever a workspace's clock is moved: retries now due fire at once. */
  clockMoved(): void {
    this.schedulePass();
  }

  /** Calls `listener` after each recorded attempt; answers the function that stops it. */
  onAttempt(listener: AttemptListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no attempt is under way and none is due (what tests await instead of sleeping). */
  async idle(): Promise<void> {
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  /** Stops the timer and any further pass; attempts under way end on their own (within the timeout). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.recheck);
  }

  private track(work: Promise<void>): void {
    this.work.add(work);
    void work.then(() => this.work.delete(work));
  }

  /** One pass after the current turn, however many are asked for meanwhile. */
  private schedulePass(): void {
    if (this.passQueued || this.closed) return;
    this.passQueued = true;
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.passQueued = false;
        await this.pass().catch(this.report);
      }),
    );
  }

  private async pass(): Promise<void> {
    if (this.closed) return;
    let wait = Infinity;
    for (const delivery of await this.store.active()) {
      if (this.inFlight.has(delivery.id)) continue;
      const now = this.clock.now(delivery.workspace);
      if (delivery.replayRequested === true || isDue(delivery, now)) this.track(this.attempt(delivery));
      else if (delivery.nextAttemptAt !== undefined) wait = Math.min(wait, delivery.nextAttemptAt - now);
    }
    this.arm(wait);
  }

  /** One timer, for the earliest delivery waiting; unref'd, so it never keeps the process alive. */
  private arm(wait: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || !Number.isFinite(wait)) return;
    this.timer = setTimeout(() => this.schedulePass(), Math.min(Math.max(wait, 0), MAX_TIMER_MS)).unref();
  }

  private async attempt(due: StoredDelivery): Promise<void> {
    this.inFlight.add(due.id);
    let made = false;
    try {
      const number = due.attempts.length + 1;
      const claimMs = 2 * this.settings.timeoutMs + CLAIM_SLACK_MS;
      if (!(await this.store.claim(due.id, number, claimMs))) return;
      // Read again under the claim: another replica may have made this attempt, or it may be gone.
      const current = await this.store.get(due.id);
      if (current?.attempts.length !== number - 1) return;
      const replay = current.replayRequested === true;
      if (!replay && !isDue(current, this.clock.now(current.workspace))) return;
      made = true;
      const attempt = await this.send(current, replay);
      const saved = await this.store.update(current.id, (latest) => afterAttempt(latest, attempt, this.settings));
      const record = saved?.attempts[number - 1];
      if (saved !== undefined && record !== undefined) this.emit(publicDelivery(saved), record);
    } catch (error) {
      this.report(error);
    } finally {
      this.inFlight.delete(due.id);
      // After an attempt, a pass finds what is due next and re-arms the timer. When none was made
      // (the attempt was held elsewhere), an immediate pass would find the same and spin: look later.
      if (made) this.schedulePass();
      else this.recheckLater();
    }
  }

  private recheckLater(): void {
    if (this.recheck !== undefined || this.closed) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.schedulePass();
    }, RECHECK_MS).unref();
  }

  /** Signs and sends one attempt; the allow-list is asked first, and a refused address is never connected to. */
  private async send(delivery: StoredDelivery, replay: boolean): Promise<AttemptMade> {
    const at = this.clock.now(delivery.workspace);
    const started = performance.now();
    const request: OutboundRequest = {
      method: delivery.method ?? 'POST',
      url: delivery.url,
      headers: {
        ...delivery.headers,
        ...(delivery.body === '' ? {} : { 'content-type': 'application/json' }),
        'user-agent': 'Understudy-Webhooks/1',
        ...signatureHeaders(delivery.secret, delivery.id, this.signingClock(), delivery.body),
      },
      body: delivery.body,
    };
    const verdict = await this.allowList.check(delivery.url, resolveWithin(this.resolver, this.settings.timeoutMs));
    const limits = {
      timeoutMs: this.settings.timeoutMs,
      maxResponseBytes: this.settings.maxResponseBytes,
      ...(delivery.success === undefined ? {} : { success: delivery.success }),
    };
    const result =
      verdict.kind === 'allowed'
        ? await sendToFirstReached(this.transport, verdict, request, limits)
        : { outcome: verdict.kind === 'refused' ? ('refused' as const) : ('failed' as const), error: verdict.reason };
    const durationMs = Math.round(performance.now() - started);
    return { at, finishedAt: this.clock.now(delivery.workspace), request, result, durationMs, replay };
  }

  /** A subscriber that throws (or rejects) is reported and never stops the others or the delivery. */
  private emit(delivery: Delivery, attempt: AttemptRecord): void {
    for (const listener of this.listeners) {
      try {
        const returned = listener(delivery, attempt);
        if (returned instanceof Promise) returned.catch(this.report);
      } catch (error) {
        this.report(error);
      }
    }
  }
}

const isDue = (delivery: StoredDelivery, now: number): boolean =>
  delivery.status === 'pending' && delivery.nextAttemptAt !== undefined && delivery.nextAttemptAt <= now;
