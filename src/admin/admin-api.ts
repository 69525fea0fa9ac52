import { createHash, timingSafeEqual } from 'node:crypto';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { bearerChallenge, readBearer } from '../auth/bearer.js';
import { unixSeconds } from '../clock/clock.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Parts } from '../core/parts.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';

export const ADMIN_PREFIX = '/__sandbox';

const RESOLUTION_MS = 10;
let histogram: IntervalHistogram | undefined;
/** The histogram records the whole interval between its timer's runs; the delay is what exceeds it. */
const lateness = (ns: number): number => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
/** The process's event-loop delay, measured from the first time metrics are asked for. */
function eventLoopDelay(): IntervalHistogram {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
  }
  return histogram;
}

const fail = (error: ErrorBody, headers: Record<string, string> = {}): SandboxResponse => ({ status: error.status, headers, body: error });
const ok = (body: unknown, status = 200): SandboxResponse => ({ status, headers: {}, body });

const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export interface AdminActions {
  /** Back to the seeded state: store, keys, counters, bans, clock and journal. */
  reset(): Promise<void>;
}

/**
 * The control API under `/__sandbox`, outside the API's own paths. Guarded by the admin token (a
 * plan key never opens it); answers 404 to everything when no token is configured.
 */
export async function handleAdmin(parts: Parts, actions: AdminActions, req: SandboxRequest): Promise<SandboxResponse> {
  const token = parts.config.adminToken;
  const path = req.path.slice(ADMIN_PREFIX.length) || '/';
  if (token === null) return fail(errorBody('route_not_found', 'The admin API is disabled: start the sandbox with an admin token'));
  const bearer = readBearer(req.headers.authorization);
  if (bearer.kind !== 'token' || !sameSecret(bearer.token, token)) {
    return fail(errorBody('admin_unauthorized', 'The admin API needs Authorization: Bearer <admin token>'), {
      'www-authenticate': bearerChallenge('understudy-admin', bearer.kind === 'missing' ? undefined : { code: 'invalid_token', description: 'not the admin token' }),
    });
  }
  const route = `${req.method} ${path.startsWith('/keys/') ? '/keys/{key}' : path}`;
  switch (route) {
    case 'POST /reset':
      await actions.reset();
      return ok({ reset: true, now: unixSeconds(parts.clock.now()) });
    case 'GET /clock':
      return ok({ now: unixSeconds(parts.clock.now()) });
    case 'POST /clock': {
      const body = await readJson(req);
      if ('error' in body) return fail(body.error);
      const seconds = body.value.advanceSeconds;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
        return fail(errorBody('validation_failed', 'advanceSeconds must be a number ≥ 0', [{ location: 'body.advanceSeconds', message: 'must be a number ≥ 0' }]));
      }
      return ok({ now: unixSeconds(parts.clock.advance(seconds * 1000)) });
    }
    case 'POST /keys': {
      const body = await readJson(req);
      if ('error' in body) return fail(body.error);
      const plan = body.value.plan;
      if (typeof plan !== 'string' || !Object.hasOwn(parts.config.plans, plan)) {
        const plans = Object.keys(parts.config.plans).join(', ');
        return fail(errorBody('validation_failed', `plan must be one of ${plans}`, [{ location: 'body.plan', message: `must be one of ${plans}` }]));
      }
      const issued = parts.keys.issue(plan);
      return ok({ key: issued.key, plan, id: issued.record.id }, 201);
    }
    case 'GET /keys/{key}': {
      let presented: string;
      try {
        presented = decodeURIComponent(path.slice('/keys/'.length));
      } catch {
        return fail(errorBody('invalid_path_encoding', 'The key in the path has broken percent-encoding'));
      }
      const record = parts.keys.find(presented) ?? parts.keys.byId(presented);
      if (!record) return fail(errorBody('resource_not_found', 'No such key'));
      return ok({ id: record.id, ...parts.limiter.inspect(record) });
    }
    case 'GET /metrics': {
      const memory = process.memoryUsage();
      const delay = eventLoopDelay();
      return ok({
        now: unixSeconds(parts.clock.now()),
        uptimeSeconds: Math.round(process.uptime()),
        inFlight: parts.inFlight.count,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        eventLoopDelayMs: { p50: lateness(delay.percentile(50)), p99: lateness(delay.percentile(99)), max: lateness(delay.max) },
      });
    }
    case 'GET /requests': {
      const limit = Number(/(?:^|&)limit=(\d+)/.exec(req.query)?.[1] ?? 100);
      return ok(parts.journal.recent(Math.min(limit, 10_000)));
    }
    default:
      return fail(errorBody('route_not_found', `No admin operation at ${req.method} ${ADMIN_PREFIX}${path.slice(0, 100)}`));
  }
}

async function readJson(req: SandboxRequest): Promise<{ value: Record<string, unknown> } | { error: ErrorBody }> {
  const read = await req.readBody(64 * 1024);
  if (read.kind === 'too-large') return { error: errorBody('payload_too_large', `The request body exceeds ${read.limit} bytes`) };
  if (read.kind === 'invalid') return { error: errorBody('malformed_request', read.reason) };
  try {
    const value: unknown = JSON.parse(read.bytes.toString('utf8') || '{}');
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: errorBody('validation_failed', 'The body must be a JSON object') };
    return { value: value as Record<string, unknown> };
  } catch {
    return { error: errorBody('malformed_json', 'The request body is not valid JSON') };
  }
}
