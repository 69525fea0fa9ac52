import { ADMIN_PREFIX } from '../admin/admin-surface.js';
import type { KeyRegistry } from '../auth/key-registry.js';
import { credentialQueryNames } from '../auth/redact.js';
import { tokenEndpoint } from '../auth/token-endpoint.js';
import { tokenRoutes } from '../auth/token-routes.js';
import type { TokenStore } from '../auth/token-store.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import type { SandboxConfig } from '../config/config.js';
import type { DrawStreams } from '../faults/draws.js';
import { configSettings } from '../faults/settings.js';
import type { Generation } from '../generation/generation.js';
import type { Limiter } from '../limits/limiter.js';
import { apiSurface } from '../pipeline/api-surface.js';
import type { RuleStore } from '../rules/rule-store.js';
import type { RecordStore } from '../store/record-store.js';
import type { Served } from './served.js';

/** What the API surface and the token endpoint stand on: built once, handed to every wiring. */
export interface ApiParts {
  readonly generation: () => Generation;
  readonly draws: DrawStreams;
  readonly rules: RuleStore;
  readonly keys: KeyRegistry;
  readonly tokens: TokenStore;
  readonly limiter: Limiter;
  readonly clocks: WorkspaceClocks;
  readonly store: RecordStore;
}

/** What the config and the document decide of the API surface and the token endpoint: rebuilt on a reload. */
export function wireApi(conf: SandboxConfig, from: Served, parts: ApiParts) {
  const { keys, tokens, clocks, limiter } = parts;
  return {
    api: apiSurface({
      generation: parts.generation,
      faults: { policy: conf.faults, defaults: configSettings(conf.faults), draws: parts.draws },
      rules: parts.rules,
      keys,
      tokens,
      limiter,
      clocks,
      store: parts.store,
      settings: {
        cors: conf.cors,
        bodyLimit: conf.bodyLimit,
        anonymousPlan: conf.anonymousPlan,
        checkResponses: conf.validation.checkResponses,
      },
    }),
    mint: tokenEndpoint({ keys, tokens, clocks, limiter, anonymousPlan: conf.anonymousPlan }),
    routes: tokenRoutes(from.model.securitySchemes, from.generation.basePath, `${ADMIN_PREFIX}/oauth/token`),
    secretQuery: credentialQueryNames(from.model.securitySchemes),
  };
}

export type Wired = ReturnType<typeof wireApi>;
