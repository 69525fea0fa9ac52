import type { AttemptRecord, StoredDelivery } from './records.js';
import type { SendResult } from './send.js';

/** The engine's bounds and retry schedule. */
export interface DeliverySettings {
  /** Wall time one attempt may take, connecting to the answer's last byte. */
  readonly timeoutMs: number;
  /** Scheduled attempts per delivery, the first included (replays are not counted). */
  readonly maxAttempts: number;
  /**
   * The wait before each retry, in sandbox seconds: the first entry after attempt 1 fails, and so
   * on; the last entry repeats if `maxAttempts` asks for more retries than there are entries.
   */
  readonly backoffSeconds: readonly number[];
  /** Pending deliveries a workspace may hold; one more is refused. */
  readonly queueLimit: number;
  /** Deliveries (finished ones included) a workspace keeps; past it the oldest finished ones go. */
  readonly historyLimit: number;
  /** The largest answer body read; a larger one makes the attempt fail. */
  readonly maxResponseBytes: number;
}

/**
 * The Standard Webhooks reference schedule (Svix's): at once, then after 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h, eight attempts over about 28 hours. There is no jitter: a sandbox's retries are
 * easier to test when they fall exactly where the schedule says.
 */
export const DEFAULT_DELIVERY_SETTINGS: DeliverySettings = {
  timeoutMs: 5_000,
  maxAttempts: 8,
  backoffSeconds: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
  queueLimit: 100,
  historyLimit: 200,
  maxResponseBytes: 16 * 1024,
};

/** The settings with the given ones in place of the defaults, checked (a mistake is said at start). */
export function deliverySettings(given: Partial<DeliverySettings> = {}): DeliverySettings {
  const settings = { ...DEFAULT_DELIVERY_SETTINGS, ...given };
  const whole = (name: keyof DeliverySettings, value: number, least: number): void => {
    if (!Number.isInteger(value) || value < least) throw new Error(`webhooks: ${name} must be a whole number of at least ${least}`);
  };
  whole('timeoutMs', settings.timeoutMs, 1);
  whole('maxAttempts', settings.maxAttempts, 1);
  whole('queueLimit', settings.queueLimit, 1);
  whole('historyLimit', settings.historyLimit, settings.queueLimit);
  whole('maxResponseBytes', settings.maxResponseBytes, 0);
  if (settings.maxAttempts > 1 && settings.backoffSeconds.length === 0) throw new Error('webhooks: backoffSeconds is empty');
  if (settings.backoffSeconds.some((s) => !Number.isFinite(s) || s < 0)) throw new Error('webhooks: a backoff is negative');
  return settings;
}

/** The wait after the `made`th scheduled attempt failed, in ms. */
export const backoffMs = (settings: DeliverySettings, made: number): number =>
  1000 * (settings.backoffSeconds[Math.min(made, settings.backoffSeconds.length) - 1] ?? 0);

/** What an attempt was, before the schedule decides what follows it. */
export interface AttemptMade {
  readonly at: number;
  readonly finishedAt: number;
  readonly request: AttemptRecord['request'];
  readonly result: SendResult | { readonly outcome: 'refused'; readonly error: string };
  readonly durationMs: number;
  readonly replay: boolean;
}

/**
 * The delivery after an attempt: its record appended, and its status and next attempt decided.
 * A scheduled attempt that fails is retried after the backoff, measured on the sandbox clock from
 * when it ended, until `maxAttempts` scheduled attempts have been made. A replay stands outside the
 * schedule: it never adds a retry, and a failed one leaves a pending delivery's schedule as it was.
 */
export function afterAttempt(latest: StoredDelivery, made: AttemptMade, settings: DeliverySettings): StoredDelivery {
  const { result } = made;
  const record = {
    attempt: latest.attempts.length + 1,
    at: made.at,
    request: made.request,
    ...(result.outcome !== 'refused' && result.response !== undefined ? { response: result.response } : {}),
    ...(result.error === undefined ? {} : { error: result.error }),
    durationMs: made.durationMs,
    outcome: result.outcome,
    ...(made.replay ? { replay: true as const } : {}),
  };
  // A replay asked for while a scheduled attempt was under way is still to be made: only the replay clears it.
  const { replayRequested, nextAttemptAt: _next, reason: _reason, ...kept } = latest;
  const rest = made.replay || replayRequested === undefined ? kept : { ...kept, replayRequested };
  const finished = (status: StoredDelivery['status'], attempt: AttemptRecord): StoredDelivery => ({
    ...rest,
    status,
    ...(status === 'refused' && attempt.error !== undefined ? { reason: attempt.error } : {}),
    attempts: [...latest.attempts, attempt],
  });
  if (result.outcome === 'delivered') return finished('delivered', record);
  if (result.outcome === 'refused') return finished('refused', record);
  if (made.replay) {
    if (latest.status !== 'pending') return finished('failed', record);
    return { ...finished('pending', record), ...(latest.nextAttemptAt === undefined ? {} : { nextAttemptAt: latest.nextAttemptAt }) };
  }
  const scheduled = latest.attempts.filter((a) => a.replay !== true).length + 1;
  if (scheduled >= settings.maxAttempts) return finished('failed', record);
  const nextAttemptAt = made.finishedAt + backoffMs(settings, scheduled);
  return { ...finished('pending', { ...record, nextAttemptAt }), nextAttemptAt };
}
