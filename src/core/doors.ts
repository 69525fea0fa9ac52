import { ADMIN_PREFIX } from '../admin/admin-surface.js';
import { answerHeaders } from '../answers/answer-headers.js';
import type { TokenAnswer } from '../auth/token-endpoint.js';
import { isTokenRequest, type TokenRoute } from '../auth/token-routes.js';
import type { Pages } from '../pages/pages.js';
import { runPipeline, type PipelineResult } from '../pipeline/pipeline.js';
import type { Surface } from '../pipeline/surface.js';
import { errorBody } from '../vocabulary/errors.js';
import type { SandboxRequest } from '../vocabulary/exchange.js';
import { bare, unavailable, type Door } from './front-door.js';
import { healthAnswer } from './health.js';

/** Requests that change nothing. */
export const READS = new Set(['GET', 'HEAD']);

const isAdminPath = (path: string): boolean => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);

/** The load balancer's probes: no token, never journaled nor counted. */
export function healthDoor(problem: () => string | undefined, generation: () => string): Door {
  return {
    name: 'health',
    exchanges: false,
    answer: (req) => {
      const probe = healthAnswer(req, problem, generation());
      return probe === undefined ? undefined : Promise.resolve({ plain: probe });
    },
  };
}

/** The pages a browser opens: served before the API, never journaled or counted against a key. */
export function pagesDoor(pages: Pages): Door {
  return {
    name: 'pages',
    exchanges: false,
    answer: (req) => pages.answer(req)?.then((plain) => ({ plain })),
  };
}

/**
 * The OAuth 2 token endpoint, answered before the admin API and the API: under the admin prefix
 * (even with the admin API off) and at the document's own tokenUrl. Counted against the client's
 * key in the journal.
 */
export function tokenDoor(
  current: () => { readonly routes: readonly TokenRoute[]; readonly mint: (req: SandboxRequest) => Promise<TokenAnswer> },
  generation: () => string,
  touch: (workspace: string) => void,
): Door {
  return {
    name: 'token',
    exchanges: true,
    answer: (req) => {
      const { routes, mint } = current();
      if (!isTokenRequest(routes, req)) return undefined;
      return mint(req).then((answer) => {
        const { response, key } = answer;
        if (key !== undefined) touch(key.workspace);
        const result: PipelineResult = {
          response: {
            ...response,
            headers: answerHeaders({ own: response.headers, requestId: req.id, generation: generation(), hasBody: true }),
          },
          operation: undefined,
          caller: key && { client: key, keyId: key.id, keyName: key.name, workspace: key.workspace },
        };
        return { result };
      });
    },
  };
}

export interface AdminDoorParts {
  /** The admin surface, built on first use; undefined when the admin API is off. */
  readonly surface: (() => Promise<Surface>) | undefined;
  readonly generation: () => string;
  /** Why an admin change cannot be shared now (Redis unreachable), or undefined. */
  readonly cut: () => string | undefined;
  /** What follows an admin change that succeeded, before it is answered (kept, transitions and retries now due). */
  readonly changed: () => Promise<void>;
}

/** The admin API under `/__sandbox`, behind its token; its changes are kept before they are answered. */
export function adminDoor(parts: AdminDoorParts): Door {
  const { surface } = parts;
  return {
    name: 'admin',
    exchanges: true,
    answer: (req) => {
      if (!isAdminPath(req.path)) return undefined;
      const change = !READS.has(req.method);
      if (surface === undefined) {
        const off = errorBody('route_not_found', 'The admin API is disabled: start the sandbox with an admin token');
        return Promise.resolve({ result: bare(req, off, parts.generation()) });
      }
      // An admin change made while the other replicas cannot be told would hold on this one only.
      const cut = change ? parts.cut() : undefined;
      if (cut !== undefined)
        return Promise.resolve({ plain: unavailable(req, `${cut}: admin changes wait until it is back`, parts.generation()) });
      return (async () => {
        const result = await runPipeline(await surface(), req);
        if (change && result.response.status < 400) await parts.changed();
        return { result };
      })();
    },
  };
}

export interface ApiDoorParts {
  readonly surface: () => Surface;
  /** A request whose key is known keeps its workspace alive. */
  readonly touch: (workspace: string) => void;
  /** After the answer is made: what the operation's callbacks send. */
  readonly answered: (result: PipelineResult) => void;
}

/** The served API: every request the other doors leave. Requests in flight are counted for the metrics. */
export function apiDoor(parts: ApiDoorParts): Door & { readonly inFlight: () => number } {
  let inFlight = 0;
  return {
    name: 'api',
    exchanges: true,
    inFlight: () => inFlight,
    answer: (req) => {
      inFlight++;
      return (async () => {
        try {
          const result = await runPipeline(parts.surface(), req);
          if (result.caller !== undefined) parts.touch(result.caller.workspace);
          parts.answered(result);
          return { result };
        } finally {
          inFlight--;
        }
      })();
    },
  };
}
