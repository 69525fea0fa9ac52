import { authenticate, type AuthOutcome, type KeyLookup } from '../auth/authenticate.js';
import type { WorkspaceClocks } from '../clock/workspace-clocks.js';
import { dispatch } from '../dispatch/dispatch.js';
import type { Generation } from '../generation/generation.js';
import type { Limiter } from '../limits/limiter.js';
import type { RecordStore } from '../store/record-store.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';
import type { CorsPolicy } from './cors.js';
import type { Caller, Surface } from './surface.js';

/** The configuration the API surface reads. */
export interface ApiSettings {
  readonly cors: CorsPolicy;
  readonly bodyLimit: number;
  /** Requests with no valid key are limited per client address under this plan. */
  readonly anonymousPlan: string;
  readonly checkResponses: boolean;
}

/** What the API surface's steps use, and nothing more. */
export interface ApiCapabilities {
  readonly generation: () => Generation;
  readonly keys: KeyLookup;
  readonly limiter: Pick<Limiter, 'take'>;
  readonly clocks: Pick<WorkspaceClocks, 'of'>;
  readonly store: RecordStore;
  readonly settings: ApiSettings;
}

/** The user's API: keys bound to plans, rate limits, and answers from the store or the document. */
export function apiSurface(capabilities: ApiCapabilities): Surface {
  const { keys, limiter, clocks, store, settings } = capabilities;
  const now = (caller: Caller): number => clocks.of(caller.workspace).now();
  return {
    generation: capabilities.generation,
    cors: settings.cors,
    bodyLimit: settings.bodyLimit,
    credentialsFirst: false,
    checkResponses: settings.checkResponses,
    identify(generation, operation, credentials, clientAddress) {
      const schemes = generation.model.securitySchemes;
      // Against the operation's requirements, or any scheme when no route matched. A public
      // operation still counts a valid key it is sent against that key, not the address.
      const anyKey = (): AuthOutcome =>
        authenticate(
          [...schemes.keys()].map((name) => [name]),
          schemes,
          credentials,
          keys,
        );
      const auth = operation ? authenticate(operation.security, schemes, credentials, keys) : anyKey();
      const counted = auth.kind === 'anonymous' ? anyKey() : auth;
      const caller: Caller =
        counted.kind === 'key'
          ? { client: counted.key, keyId: counted.key.id, workspace: counted.key.workspace }
          : { client: { id: `address:${clientAddress}`, plan: settings.anonymousPlan }, keyId: undefined, workspace: DEFAULT_WORKSPACE };
      return { caller, rejection: auth.kind === 'rejected' ? auth : undefined };
    },
    limit: (caller) => limiter.take(caller.client, now(caller)),
    now,
    respond: (prepared, input, { caller, generation, rawQuery }) =>
      dispatch(prepared.binding, input, {
        store,
        workspace: caller.workspace,
        basePath: generation.basePath,
        rawQuery,
        generatedAnswer: prepared.generatedAnswer,
      }),
  };
}
