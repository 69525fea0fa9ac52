import { dirname, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

export interface WatchOptions {
  /** How long nothing may change before `onSettled` is called: a burst of saves makes one call (default 150 ms). */
  readonly quietMs?: number;
  /** A watcher's error (a directory that cannot be read): the watch goes on with the others. */
  readonly onError?: (error: Error) => void;
}

export interface FileWatch {
  /** Resolves once every directory wanted now (after any call in progress) is being watched. */
  ready(): Promise<void>;
  /** Stops watching; no call starts afterwards. */
  close(): Promise<void>;
}

/** One chokidar watcher per directory: each says when it is ready, and one no longer needed is closed alone. */
interface DirectoryWatch {
  readonly watcher: FSWatcher;
  readonly ready: Promise<void>;
}

/**
 * Calls `onSettled` once the listed files have stopped changing for `quietMs`. The directories
 * holding them are watched, not the files: an editor that saves by writing a temp file and renaming
 * it over the original replaces the file a per-file watch would follow. Only an add, change or
 * unlink of a listed file counts; a listed file need not exist yet (a `$ref` to a file not written). A change while `onSettled` runs makes exactly one more call after
 * it. After each call `files()` is read again: directories newly needed are watched, others dropped.
 * `onSettled` is given the listed files that changed; it should not throw (a rejection is ignored).
 */
export function watchFiles(
  files: () => readonly string[],
  onSettled: (changed: readonly string[]) => Promise<void>,
  options: WatchOptions = {},
): FileWatch {
  const quietMs = options.quietMs ?? 150;
  let wanted = new Set<string>();
  const directories = new Map<string, DirectoryWatch>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let lastChange = 0;
  /** The call in progress and the re-read of `files()` after it. */
  let settling: Promise<void> | undefined;
  let pending = false;
  let closed = false;
  /** Read through a call: `close()` may have run while `onSettled` was awaited. */
  const isClosed = (): boolean => closed;

  const watchDirectory = (directory: string): DirectoryWatch => {
    const watcher = watch(directory, {
      ignoreInitial: true,
      depth: 0,
      awaitWriteFinish: false,
      // Only the directory and the listed files get a watch of their own, not their neighbours: a
      // log written beside the document must never set off a reload (each failure's line would set
      // off the next).
      ignored: (path) => {
        const absolute = resolve(path);
        return absolute !== directory && !wanted.has(absolute);
      },
    });
    const ready = new Promise<void>((done) => watcher.once('ready', done));
    watcher.on('error', (error) => options.onError?.(error as Error));
    for (const event of ['add', 'change', 'unlink'] as const) watcher.on(event, (path) => changedFile(resolve(path)));
    return { watcher, ready };
  };

  /** Watches the directories `files()` needs now and closes the others. */
  const follow = async (): Promise<void> => {
    wanted = new Set(files().map((file) => resolve(file)));
    const needed = new Set([...wanted].map((file) => dirname(file)));
    const dropped: Promise<void>[] = [];
    for (const [directory, { watcher }] of directories) {
      if (needed.has(directory)) continue;
      directories.delete(directory);
      dropped.push(watcher.close());
    }
    for (const directory of needed) if (!directories.has(directory)) directories.set(directory, watchDirectory(directory));
    await Promise.all(dropped);
  };

  const changedFile = (path: string): void => {
    if (closed || !wanted.has(path)) return;
    changed.add(path);
    lastChange = Date.now();
    // While a call runs, the next one waits for it (it is scheduled when the call returns).
    if (settling !== undefined) pending = true;
    else schedule(quietMs);
  };

  const schedule = (delay: number): void => {
    clearTimeout(timer);
    timer = setTimeout(settle, delay);
  };

  const settle = (): void => {
    timer = undefined;
    if (closed) return;
    const files = [...changed];
    changed.clear();
    pending = false;
    settling = (async () => {
      try {
        await onSettled(files);
      } catch {
        // The caller reports its own failures; the watch goes on.
      }
      if (!isClosed()) await follow();
    })().finally(() => {
      settling = undefined;
      // One more call for what changed meanwhile, once that too has been quiet for `quietMs`.
      if (pending && !isClosed()) schedule(Math.max(0, lastChange + quietMs - Date.now()));
    });
  };

  void follow();

  return {
    async ready() {
      await settling;
      await Promise.all([...directories.values()].map((d) => d.ready));
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const watchers = [...directories.values()].map((d) => d.watcher.close());
      directories.clear();
      await Promise.all(watchers);
    },
  };
}
