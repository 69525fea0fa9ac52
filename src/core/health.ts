import { answerHeaders } from '../answers/answer-headers.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';

/** Where a load balancer probes a replica: no token, never journaled nor counted. */
export const LIVE_PATH = '/__sandbox/health/live';
export const READY_PATH = '/__sandbox/health/ready';

/**
 * The probes' answers, or undefined for any other request. `live`: the process answers (a load
 * balancer restarts a replica that stops). `ready`: it can serve the API now; down while the shared
 * Redis cannot be reached, so that a load balancer sends requests elsewhere until it is back.
 */
export function healthAnswer(req: SandboxRequest, ready: () => string | undefined, generation: string): SandboxResponse | undefined {
  if (req.path !== LIVE_PATH && req.path !== READY_PATH) return undefined;
  const headers = (extra: Record<string, string>) =>
    answerHeaders({ own: { 'cache-control': 'no-store', ...extra }, requestId: req.id, generation, hasBody: true });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const body = errorBody('method_not_allowed', `${req.path} answers GET and HEAD`);
    return { status: body.status, headers: headers({ allow: 'GET, HEAD' }), body };
  }
  if (req.path === LIVE_PATH) return { status: 200, headers: headers({}), body: { status: 'live' } };
  const problem = ready();
  if (problem === undefined) return { status: 200, headers: headers({}), body: { status: 'ready' } };
  const body = errorBody('service_unavailable', problem);
  return { status: body.status, headers: headers({ 'retry-after': '1' }), body };
}
