import type { SandboxRequest } from '../vocabulary/exchange.js';

/** Headers a browser script may read on our answers (Fetch standard, CORS-exposed response headers). */
const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
  'X-Request-Id',
  'X-Sandbox-Error',
  'X-Sandbox-Generation',
  'X-Sandbox-Limits',
  'Preference-Applied',
].join(', ');

export interface CorsPolicy {
  readonly origins: readonly string[];
}

const allowedOrigin = (policy: CorsPolicy, origin: string | undefined): string | undefined => {
  if (origin === undefined) return undefined;
  if (policy.origins.includes('*')) return '*';
  return policy.origins.includes(origin) ? origin : undefined;
};

/** A CORS preflight: OPTIONS with an Origin and Access-Control-Request-Method. */
export const isPreflight = (req: SandboxRequest): boolean =>
  req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;

/** The answer to a preflight: no key needed, no quota used. */
export function preflightHeaders(policy: CorsPolicy, req: SandboxRequest, methods: readonly string[]): Record<string, string> {
  const origin = allowedOrigin(policy, req.headers.origin);
  if (!origin || methods.length === 0) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'Authorization, Content-Type',
    'access-control-max-age': '600',
    ...(origin === '*' ? {} : { vary: 'Origin' }),
  };
}

/** CORS headers for an actual (non-preflight) answer. */
export function corsHeaders(policy: CorsPolicy, req: SandboxRequest): Record<string, string> {
  const origin = allowedOrigin(policy, req.headers.origin);
  if (!origin) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, ...(origin === '*' ? {} : { vary: 'Origin' }) };
}
