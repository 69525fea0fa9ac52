import type { SandboxConfig } from '../config/config.js';
import type { CompileProgress } from '../generation/generation.js';
import type { LoadProgress } from '../openapi/load-document.js';

/**
 * What a start reports as it goes, in order: loading (and converting a Swagger 2.0 document),
 * warnings about the document, compiling N of M operations, seeding N of M records (the
 * collections the fixtures name; the others are seeded on first use). Data only: the CLI
 * decides whether and how to show it (a terminal, after a second), a library user may log it.
 */
export type StartupProgress = LoadProgress | CompileProgress | { readonly phase: 'seeding'; readonly done: number; readonly total: number };

export interface SandboxOptions {
  readonly onProgress?: (event: StartupProgress) => void;
  /**
   * Reads the config again, for a reload (the CLI re-reads its file, environment and flags); without
   * it a reload keeps the config the sandbox started with and reads the document and fixtures again.
   */
  readonly reloadConfig?: () => Promise<SandboxConfig>;
  /**
   * The config file the sandbox started from (an absolute path), which `reloadConfig` reads again:
   * listed among the status's files, since a change to it is a reason to reload.
   */
  readonly configFile?: string;
}
