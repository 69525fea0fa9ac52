import type { SandboxConfig } from '../config/config.js';
import type { Generation } from '../generation/generation.js';
import type { SandboxStore } from '../store/record-store.js';
import type { ReloadOutcome, SandboxStatus } from '../vocabulary/reload.js';
import type { Notice } from './events.js';
import { invalidRecords, loadServed, type Served } from './served.js';
import type { SandboxOptions, StartupProgress } from './startup-progress.js';

/** Config fields a running sandbox cannot take on: a reload that changes them says a restart is needed. */
const RESTART_FIELDS = [
  'host',
  'port',
  'adminToken',
  'data',
  'snapshot',
  'fsync',
  'seed',
  'clock',
  'bodyLimit',
  'journalSize',
  'maxWorkspaces',
  'log',
  'redis',
  'webhooks',
] as const;

export interface ReloaderParts {
  readonly store: Pick<SandboxStore, 'stored'>;
  readonly options: SandboxOptions;
  readonly notify: (notice: Notice) => void;
  /** Hands the next config and files to every part that reads them (the seeder, plans, keys, redaction, surfaces). */
  readonly apply: (conf: SandboxConfig, from: Served) => void;
}

/**
 * What serves now (the config, the files read, the generation) and how it is replaced: a reload
 * builds the next generation aside from the files as they are now and swaps it in; the last good
 * one serves on failure. Reloads run one at a time; one asked for while another runs starts after
 * it, from the files as they are then.
 */
export class Reloader {
  private loadedAt = Date.now();
  private lastReload: ReloadOutcome | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private conf: SandboxConfig,
    private from: Served,
    private readonly parts: ReloaderParts,
  ) {}

  /** The config serving: a reload takes on all of it but the fields that need a restart. */
  get config(): SandboxConfig {
    return this.conf;
  }

  get served(): Served {
    return this.from;
  }

  get generation(): Generation {
    return this.from.generation;
  }

  reload(): Promise<ReloadOutcome> {
    const run = this.queue.then(() => this.reloadOnce()).then((outcome) => (this.lastReload = outcome));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The generation serving, its files, the last reload. */
  status(): SandboxStatus {
    const { configFile } = this.parts.options;
    const { files } = this.from;
    return {
      generation: this.generation.number,
      loadedAt: new Date(this.loadedAt).toISOString(),
      // What a reload reads again: the served files and the config file.
      files: configFile === undefined || files.includes(configFile) ? files : [...files, configFile],
      ...(this.lastReload === undefined ? {} : { lastReload: this.lastReload }),
    };
  }

  private async reloadOnce(): Promise<ReloadOutcome> {
    const { notify, options } = this.parts;
    const at = new Date().toISOString();
    const number = this.generation.number;
    let next: { readonly conf: SandboxConfig; readonly from: Served };
    try {
      const conf = options.reloadConfig ? await options.reloadConfig() : this.conf;
      // The new document's warnings (an example that breaks its schema, an unreachable operation) are logged.
      const warn = (event: StartupProgress): void => {
        if (event.phase === 'warning') notify({ level: 'warn', message: event.message });
      };
      next = { conf, from: await loadServed(conf, number + 1, warn) };
    } catch (error) {
      const outcome: ReloadOutcome = { ok: false, at, generation: number, errors: [(error as Error).message] };
      notify({ level: 'error', message: `reload failed; generation ${number} still serves: ${outcome.errors.join('; ')}` });
      return outcome;
    }
    const { conf, from } = next;
    const restartNeeded = RESTART_FIELDS.filter((field) => JSON.stringify(conf[field]) !== JSON.stringify(this.conf[field]));
    this.parts.apply(conf, from);
    // One reference: a request in flight finishes on the generation it started on.
    this.from.keptSeed?.save();
    this.from = from;
    this.loadedAt = Date.now();
    this.conf = { ...conf, ...Object.fromEntries(restartNeeded.map((field) => [field, this.conf[field]])) };
    const invalid = invalidRecords(from.generation, await collect(this.parts.store.stored()));
    const outcome: ReloadOutcome = {
      ok: true,
      at,
      generation: from.generation.number,
      errors: [],
      operations: from.model.operations.length,
      invalidRecords: invalid,
      ...(restartNeeded.length > 0 ? { restartNeeded } : {}),
    };
    const broken = invalid.reduce((sum, { count }) => sum + count, 0);
    notify({
      level: broken > 0 || restartNeeded.length > 0 ? 'warn' : 'info',
      message:
        `reloaded: generation ${outcome.generation}, ${outcome.operations ?? 0} operations` +
        (broken > 0 ? `; ${broken} stored records no longer match the document (kept as they are)` : '') +
        (restartNeeded.length > 0 ? `; ${restartNeeded.join(', ')} changed and take effect only after a restart` : ''),
    });
    return outcome;
  }
}

/** Every item of a list read synchronously or not. */
async function collect<T>(items: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
