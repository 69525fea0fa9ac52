import type { SecurityScheme } from '../vocabulary/operation.js';
import type { SandboxRequest } from '../vocabulary/exchange.js';

/** A path the token endpoint answers at; `host` set when the document's URL names an origin. */
export interface TokenRoute {
  readonly path: string;
  readonly host: string | undefined;
}

/**
 * Where the token endpoint is served: always at `fixed`, and at each OAuth 2 `tokenUrl` of the
 * document that is relative (resolved against the server URL, OpenAPI 3.1 §4.3) or absolute with
 * the origin the request was sent to (checked per request against `Host`). A `tokenUrl` on another
 * origin (`https://auth.example.com/token`) is the real provider's: clients use `fixed` instead.
 */
export function tokenRoutes(schemes: ReadonlyMap<string, SecurityScheme>, basePath: string, fixed: string): readonly TokenRoute[] {
  const routes: TokenRoute[] = [{ path: fixed, host: undefined }];
  const base = `http://sandbox.invalid${basePath}/`;
  for (const scheme of schemes.values()) {
    if (scheme.kind !== 'oauth2') continue;
    for (const tokenUrl of scheme.tokenUrls) {
      if (!URL.canParse(tokenUrl, base)) continue;
      const absolute = URL.canParse(tokenUrl);
      const url = new URL(tokenUrl, base);
      const route = { path: url.pathname, host: absolute ? url.host.toLowerCase() : undefined };
      if (!routes.some((r) => r.path === route.path && r.host === route.host)) routes.push(route);
    }
  }
  return routes;
}

export function isTokenRequest(routes: readonly TokenRoute[], req: SandboxRequest): boolean {
  return routes.some((route) => route.path === req.path && (route.host === undefined || route.host === req.headers.host?.toLowerCase()));
}
