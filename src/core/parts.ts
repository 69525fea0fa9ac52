import type { Journal } from '../journal/journal.js';
import type { KeyRegistry } from '../auth/key-registry.js';
import type { SandboxClock } from '../clock/clock.js';
import type { SandboxConfig } from '../config/config.js';
import type { DispatchPlan } from '../dispatch/plan.js';
import type { Limiter } from '../limits/limiter.js';
import type { Router } from '../routing/router.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';
import type { Store } from '../store/store.js';
import type { RequestValidator } from '../validation/request-validator.js';
import type { ResponseCheck } from '../validation/response-check.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';

/** What the pipeline needs for one operation, compiled at start-up. */
export interface CompiledOperation {
  readonly validator: RequestValidator;
  readonly plan: DispatchPlan;
  readonly check: ResponseCheck;
  /** Deprecation, Sunset and Link headers, from the document. */
  readonly lifecycleHeaders: Readonly<Record<string, string>>;
  /** The generated answer for operations with no state behind them (computed on first use). */
  readonly mock: () => SandboxResponse;
}

/** Everything the request pipeline and the admin API work with. */
export interface Parts {
  readonly config: SandboxConfig;
  readonly model: ApiModel;
  readonly basePath: string;
  readonly router: Router;
  readonly operations: ReadonlyMap<OperationSpec, CompiledOperation>;
  readonly clock: SandboxClock;
  readonly store: Store;
  readonly keys: KeyRegistry;
  readonly limiter: Limiter;
  readonly journal: Journal;
  /** API requests being answered right now (admin requests aside). */
  readonly inFlight: { count: number };
}
