import { PACKAGE_ROOT } from '../config/defaults.js';
import { buildGeneration } from '../generation/generation.js';
import { buildApiModel } from '../openapi/build-model.js';
import { loadDocument } from '../openapi/load-document.js';
import { unavailableAnswer } from '../pipeline/api-surface.js';
import type { Caller, Surface } from '../pipeline/surface.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import { checkAdminToken } from './admin-token.js';
import { adminHandlers, type AdminCapabilities } from './handlers.js';

/** Where the admin API is served: outside any API's own paths. */
export const ADMIN_PREFIX = '/__sandbox';
/** The admin API's own OpenAPI document, compiled by the same compiler as the user's. */
export const ADMIN_DOCUMENT = `${PACKAGE_ROOT}openapi/admin.yaml`;

/** Largest admin request body, in bytes: most are a few fields; an imported workspace snapshot holds its records. */
const ADMIN_BODY_LIMIT = 16 * 1024 * 1024;

const ADMIN_CALLER: Caller = { client: { id: 'admin', plan: '' }, keyId: undefined, workspace: DEFAULT_WORKSPACE };

export interface AdminSettings {
  readonly token: string;
  readonly checkResponses: boolean;
  /** Where parsed YAML is cached (its own document is YAML), or null. */
  readonly cacheDir: string | null;
}

/**
 * The admin API as a surface of the same pipeline as the user's API: routed, validated and
 * answered in the same Error shape from `openapi/admin.yaml`, with a handler bound to each
 * operationId. Guarded by the admin token (a plan key never opens it), checked before any route is
 * revealed; no rate limits, no CORS.
 */
export async function adminSurface(settings: AdminSettings, capabilities: AdminCapabilities): Promise<Surface> {
  const model = buildApiModel(await loadDocument(ADMIN_DOCUMENT, settings.cacheDir));
  const generation = buildGeneration(model, 1, {
    basePath: ADMIN_PREFIX,
    seed: 1,
    referenceDate: new Date(0),
    validation: { unknownQueryParameters: 'ignore' },
    serveInvalidExamples: false,
  });
  const handlers = adminHandlers(capabilities);
  const ids = new Set(model.operations.map((op) => op.id));
  const unbound = [...ids].filter((id) => !Object.hasOwn(handlers, id));
  const stray = Object.keys(handlers).filter((id) => !ids.has(id));
  if (unbound.length > 0 || stray.length > 0) {
    throw new Error(
      `the admin document and its handlers disagree: ` +
        `no handler for ${unbound.join(', ') || '-'}; no operation for ${stray.join(', ') || '-'}`,
    );
  }
  const clock = capabilities.clocks.of(DEFAULT_WORKSPACE);
  return {
    generation: () => generation,
    servedGeneration: () => capabilities.api().label,
    cors: { origins: [] },
    bodyLimit: ADMIN_BODY_LIMIT,
    credentialsFirst: true,
    checkResponses: settings.checkResponses,
    identify(_generation, _operation, credentials) {
      const refusal = checkAdminToken(credentials.headers.authorization, settings.token);
      if (refusal === undefined) return { caller: ADMIN_CALLER, rejection: undefined };
      return { caller: ADMIN_CALLER, rejection: { kind: 'rejected', ...refusal } };
    },
    now: () => clock.now(),
    // A shared store out of reach (the webhook deliveries on Redis) is a 503 the client may retry.
    respond: (prepared, input) =>
      (handlers[prepared.operation.id] as NonNullable<(typeof handlers)[string]>)(input).catch(unavailableAnswer),
  };
}
