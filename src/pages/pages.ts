import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { KeyRegistry } from '../auth/key-registry.js';
import type { Clock } from '../clock/clock.js';
import { PACKAGE_ROOT } from '../config/defaults.js';
import type { Generation } from '../generation/generation.js';
import { answerHeaders } from '../answers/answer-headers.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { Workspaces } from '../workspaces/workspaces.js';
import { mediaTypeOf, readStatic } from './static-file.js';
import { createVisitorEndpoint } from './visitor.js';

export interface PagesSettings {
  /** The docs page's path (`/docs`), or null for none. */
  readonly docsPath: string | null;
  /** The plan of the key minted for each visitor of the docs page, or null: the visitor pastes a key. */
  readonly visitorPlan: string | null;
  /** Visitor keys minted per minute of the sandbox clock, across all addresses. */
  readonly visitorKeysPerMinute: number;
  /** The console's path (`/__sandbox/console`), or null when there is none (no admin API, or switched off). */
  readonly consolePath: string | null;
  /** The sandbox's own OAuth 2 token endpoint (`/__sandbox/oauth/token`), which the docs page's OAuth flows use. */
  readonly tokenPath: string;
}

export interface PagesCapabilities {
  readonly generation: () => Generation;
  /** The document as written (bundled, converted to 3.x, not normalised), read again when the docs page first asks for it. */
  readonly document: () => Promise<unknown>;
  readonly keys: Pick<KeyRegistry, 'issue' | 'find'>;
  readonly workspaces: Pick<Workspaces, 'createForVisitor'>;
  /** The shared sandbox clock: the visitor keys' minting limit counts in its minutes. */
  readonly clock: Clock;
  /** Keeps a visitor's new key and workspace (a data file, the other replicas) before the key is answered. */
  readonly keep: () => Promise<void>;
  /** Tells the operator (the log) of what a visitor could not be given. */
  readonly warn: (message: string) => void;
}

export interface Pages {
  /** The page's answer to a request, or undefined when no page serves its path (the API or the admin API answers it). */
  answer(req: SandboxRequest): Promise<SandboxResponse> | undefined;
}

/** Where the pages' own files are: beside `src/`, served as they are (no build step). */
const WEB = `${PACKAGE_ROOT}web/`;
/** Swagger UI's files, from its package (resolved on the first docs request, not at start). */
let swaggerUiDir: string | undefined;
const swaggerUi = (): string => (swaggerUiDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));

/** The files each page serves beside its HTML, and where they come from. */
const DOCS_FILES: Readonly<Record<string, () => string>> = {
  'swagger-ui.css': () => join(swaggerUi(), 'swagger-ui.css'),
  'swagger-ui-bundle.js': () => join(swaggerUi(), 'swagger-ui-bundle.js'),
  'favicon-32x32.png': () => join(swaggerUi(), 'favicon-32x32.png'),
  'favicon-16x16.png': () => join(swaggerUi(), 'favicon-16x16.png'),
  'docs.js': () => `${WEB}docs/docs.js`,
  'docs.css': () => `${WEB}docs/docs.css`,
};
const CONSOLE_FILES: Readonly<Record<string, () => string>> = {
  'console.js': () => `${WEB}console/console.js`,
  'report.js': () => `${WEB}console/report.js`,
  'console.css': () => `${WEB}console/console.css`,
  'webhooks.js': () => `${WEB}console/webhooks.js`,
  'webhooks.css': () => `${WEB}console/webhooks.css`,
};

/**
 * Nothing the pages load may come from anywhere but the sandbox (the browser enforces it): no CDN,
 * no fonts, no validator badge. Swagger UI sets inline styles, so the docs page allows them.
 */
const CSP_BASE =
  "default-src 'none'; script-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const DOCS_HEADERS = {
  'content-security-policy': `${CSP_BASE}; style-src 'self' 'unsafe-inline'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const CONSOLE_HEADERS = { ...DOCS_HEADERS, 'content-security-policy': `${CSP_BASE}; style-src 'self'` };
/** Swagger UI's files change only with its package: a day, then revalidated by ETag. Our own: revalidated each time. */
const VENDOR_CACHE = 'public, max-age=86400';
const OWN_CACHE = 'no-cache';

/**
 * The sandbox's pages: `/docs` (Swagger UI on the live document, with a key of the visitor's own)
 * and the admin console. A request a page serves never reaches the API, is not counted against any
 * key and is not journaled; a path the API's document claims is the API's, whatever the pages'.
 */
export function createPages(settings: PagesSettings, capabilities: PagesCapabilities): Pages {
  const { docsPath, consolePath } = settings;
  /** The served document as the docs page shows it, per generation and server URL (read once per generation). */
  let shown: { generation: Generation; source: Promise<unknown>; bodies: Map<string, string> } | undefined;

  const headers = (req: SandboxRequest, own: Record<string, string>, hasBody: boolean): Record<string, string> =>
    answerHeaders({ own, requestId: req.id, generation: capabilities.generation().label, hasBody });

  const fail = (req: SandboxRequest, body: ErrorBody, own: Record<string, string> = {}): SandboxResponse => ({
    status: body.status,
    headers: headers(req, own, true),
    body,
  });

  const visitor = createVisitorEndpoint(settings, capabilities, (req, own) => headers(req, own, true));

  const file = async (req: SandboxRequest, path: string, cache: string, pageHeaders: Record<string, string>): Promise<SandboxResponse> => {
    const read = await readStatic(path, req.headers['if-none-match']);
    if (read.kind === 'missing') return fail(req, errorBody('route_not_found', `No such page file: ${req.path}`));
    const own = { ...pageHeaders, 'cache-control': cache, etag: read.etag };
    if (read.kind === 'current') return { status: 304, headers: headers(req, own, false) };
    return { status: 200, headers: headers(req, { ...own, 'content-type': mediaTypeOf(path) }, true), body: null, encoded: read.bytes };
  };

  /** The docs page: its HTML names where it lives, so its files and the document resolve under a mount prefix too. */
  const docsHtml = async (req: SandboxRequest, at: string): Promise<SandboxResponse> => {
    const read = await readStatic(`${WEB}docs/index.html`, undefined);
    if (read.kind !== 'bytes') return fail(req, errorBody('route_not_found', 'The docs page is not installed'));
    const html = Buffer.from(read.bytes)
      .toString('utf8')
      .replaceAll('%BASE%', escapeHtml(`${req.mountPath ?? ''}${at}/`));
    return {
      status: 200,
      headers: headers(req, { ...DOCS_HEADERS, 'cache-control': OWN_CACHE, 'content-type': 'text/html; charset=utf-8' }, true),
      body: null,
      encoded: html,
    };
  };

  /** The live document, its servers rewritten to this sandbox's own origin and base path. */
  const openapi = async (req: SandboxRequest): Promise<SandboxResponse> => {
    const generation = capabilities.generation();
    if (shown?.generation !== generation) shown = { generation, source: capabilities.document(), bodies: new Map() };
    const current = shown;
    const root = `${originOf(req)}${req.mountPath ?? ''}`;
    const server = `${root}${generation.basePath}`;
    let body = current.bodies.get(server);
    if (body === undefined) {
      const source = (await current.source) as Record<string, unknown>;
      const own = { token: `${root}${settings.tokenPath}`, discovery: `${root}${docsPath ?? ''}/openid-configuration` };
      body = JSON.stringify({ ...withOwnAuthority(source, own), servers: [{ url: server, description: 'This sandbox' }] });
      // A few origins at most (localhost, 127.0.0.1, a LAN name): the oldest is dropped past four.
      if (current.bodies.size >= 4) current.bodies.delete(current.bodies.keys().next().value as string);
      current.bodies.set(server, body);
    }
    return {
      status: 200,
      headers: headers(req, { 'cache-control': OWN_CACHE, 'content-type': 'application/json; charset=utf-8' }, true),
      body: null,
      encoded: body,
    };
  };

  /**
   * What the docs page's OpenID Connect schemes discover: the sandbox as the provider, its token
   * endpoint, the client-credentials grant (a key is also accepted as the access token itself).
   */
  const discovery = (req: SandboxRequest): SandboxResponse => {
    const root = `${originOf(req)}${req.mountPath ?? ''}`;
    return {
      status: 200,
      headers: headers(req, { 'cache-control': OWN_CACHE }, true),
      body: {
        issuer: root,
        token_endpoint: `${root}${settings.tokenPath}`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['none'],
      },
    };
  };

  const onlyGet = (req: SandboxRequest, allow = 'GET, HEAD'): SandboxResponse | undefined =>
    allow.split(', ').includes(req.method)
      ? undefined
      : fail(req, errorBody('method_not_allowed', `${req.method} is not allowed here; use ${allow}`), { allow });

  const docs = async (req: SandboxRequest, at: string): Promise<SandboxResponse> => {
    const rest = req.path.slice(at.length);
    const name = rest.slice(1);
    if (name === 'visitor') return onlyGet(req, 'POST') ?? visitor(req);
    const refused = onlyGet(req);
    if (refused) return refused;
    if (rest === '' || rest === '/') return docsHtml(req, at);
    if (name === 'openapi.json') return openapi(req);
    if (name === 'openid-configuration') return discovery(req);
    const source = DOCS_FILES[name];
    if (source === undefined) return fail(req, errorBody('route_not_found', `No such page file: ${req.path}`));
    return file(req, source(), name.startsWith('docs.') ? OWN_CACHE : VENDOR_CACHE, DOCS_HEADERS);
  };

  const consolePage = async (req: SandboxRequest, at: string): Promise<SandboxResponse> => {
    const refused = onlyGet(req);
    if (refused) return refused;
    const rest = req.path.slice(at.length);
    // The page's files are named relative to `…/console`: with a trailing slash they would resolve one level down.
    if (rest === '/') return redirect(req, at);
    if (rest === '') return file(req, `${WEB}console/index.html`, OWN_CACHE, CONSOLE_HEADERS);
    const source = CONSOLE_FILES[rest.slice(1)];
    if (source === undefined) return fail(req, errorBody('route_not_found', `No such page file: ${req.path}`));
    return file(req, source(), OWN_CACHE, CONSOLE_HEADERS);
  };

  return {
    answer(req) {
      const { path } = req;
      if (consolePath !== null && under(path, consolePath)) return consolePage(req, consolePath);
      if (docsPath === null) return undefined;
      const generation = capabilities.generation();
      // Most requests are for the API: a page could answer only the docs path or the root.
      const base = generation.basePath;
      if (!under(path, docsPath) && path !== '/' && path !== base && path !== `${base}/`) return undefined;
      // The document's own operations come first: a page never hides one.
      if (generation.router.methodsAt(path).length > 0) {
        return browserAtRoot(req, generation) ? Promise.resolve(redirect(req, docsPath)) : undefined;
      }
      if (under(path, docsPath)) return docs(req, docsPath);
      return browserAtRoot(req, generation) ? Promise.resolve(redirect(req, docsPath)) : undefined;
    },
  };

  function redirect(req: SandboxRequest, to: string): SandboxResponse {
    // The Express edge puts its mount prefix in front of a Location that starts with `/`.
    return { status: 302, headers: headers(req, { location: to, vary: 'Accept', 'cache-control': 'no-cache' }, false) };
  }
}

/**
 * The document with the addresses a browser would call for a token pointed at the sandbox: every
 * OAuth 2 flow's `tokenUrl` at its token endpoint, every OpenID Connect discovery URL at the docs
 * page's own discovery document. Anything else is as written.
 */
function withOwnAuthority(source: Record<string, unknown>, own: { token: string; discovery: string }): Record<string, unknown> {
  const components = source.components as { securitySchemes?: Record<string, Record<string, unknown>> } | undefined;
  const schemes = components?.securitySchemes;
  if (schemes === undefined || typeof schemes !== 'object') return source;
  const rewritten: Record<string, unknown> = {};
  for (const [name, scheme] of Object.entries(schemes)) {
    if (scheme.type === 'openIdConnect') rewritten[name] = { ...scheme, openIdConnectUrl: own.discovery };
    else if (scheme.type === 'oauth2' && typeof scheme.flows === 'object' && scheme.flows !== null) {
      const flows = Object.fromEntries(
        Object.entries(scheme.flows as Record<string, Record<string, unknown>>).map(([kind, flow]) => [
          kind,
          typeof flow.tokenUrl === 'string' ? { ...flow, tokenUrl: own.token } : flow,
        ]),
      );
      rewritten[name] = { ...scheme, flows };
    } else rewritten[name] = scheme;
  }
  return { ...source, components: { ...components, securitySchemes: rewritten } };
}

const under = (path: string, page: string): boolean => path === page || path.startsWith(`${page}/`);

/**
 * A browser opening `/` or the API's base URL (it asks for HTML first) goes to the docs page, unless
 * the document answers that path with HTML itself. An API client asking for JSON is not redirected.
 */
function browserAtRoot(req: SandboxRequest, generation: Generation): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const base = generation.basePath;
  if (req.path !== '/' && req.path !== base && req.path !== `${base}/`) return false;
  if (!prefersHtml(req.headers.accept)) return false;
  const match = generation.router.match('GET', req.path, req.headers, req.query);
  if (match.kind !== 'found') return true;
  return !match.operation.operation.responses.some((r) => r.content.some((m) => m.mediaType.startsWith('text/html')));
}

/** Whether an Accept header lists HTML explicitly (browsers do for a page; API clients ask for JSON or anything). */
const prefersHtml = (accept: string | undefined): boolean => accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);

/** Where the request came to: its scheme (behind a TLS proxy, `X-Forwarded-Proto`) and its Host. */
function originOf(req: SandboxRequest): string {
  const forwarded = req.headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' ? 'https' : 'http';
  return `${scheme}://${req.headers.host ?? 'localhost'}`;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
