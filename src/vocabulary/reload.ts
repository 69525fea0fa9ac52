/** What a reload did: a new generation swapped in, or why the last good one still serves. */
export interface ReloadOutcome {
  readonly ok: boolean;
  /** When it ran (ISO 8601). */
  readonly at: string;
  /** The generation serving afterwards: the new one, or on failure the one still serving. */
  readonly generation: number;
  /** Why it failed: each names the file and the place (a line, a JSON pointer, a config field). */
  readonly errors: readonly string[];
  /** Operations the new generation serves. */
  readonly operations?: number;
  /** Stored records that break their collection's schema in the new document, per collection (kept as they are). */
  readonly invalidRecords?: readonly { readonly collection: string; readonly count: number }[];
  /** Config fields that changed but take effect only after a restart (the port, the admin token, …). */
  readonly restartNeeded?: readonly string[];
}

/** What `GET /__sandbox/status` shows: the generation serving, where it came from, and the last reload. */
export interface SandboxStatus {
  readonly generation: number;
  /** When the serving generation was loaded (ISO 8601): at start, then at each reload that loads. */
  readonly loadedAt: string;
  /** What a reload reads again: the document, each file its `$ref`s reached, the fixtures, the config file. */
  readonly files: readonly string[];
  readonly lastReload?: ReloadOutcome;
}
