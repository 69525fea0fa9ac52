import type { Exchange } from '../vocabulary/exchange.js';

/** Something that happened while the sandbox ran, for the log. */
export interface Notice {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

/** What the sandbox tells its listeners: each answered exchange, and each notice for the log. */
export interface SandboxEvents {
  readonly exchange: Exchange;
  readonly notice: Notice;
}

type Listener<T> = (event: T) => void;

/**
 * A typed event emitter whose listeners cannot break what emits: a listener that throws is
 * reported as a notice (a notice listener that throws, to stderr) and the others still hear the
 * event. An answer is made before its exchange is emitted, and nothing here can undo it.
 */
export class Events {
  private readonly listeners: { [K in keyof SandboxEvents]: Listener<SandboxEvents[K]>[] } = { exchange: [], notice: [] };

  on<K extends keyof SandboxEvents>(name: K, listener: Listener<SandboxEvents[K]>): void {
    this.listeners[name].push(listener);
  }

  emit<K extends keyof SandboxEvents>(name: K, event: SandboxEvents[K]): void {
    for (const listener of this.listeners[name]) {
      try {
        listener(event);
      } catch (error) {
        this.failed(name, error);
      }
    }
  }

  /** Told of a notice (`notify({level, message})`). */
  readonly notify = (notice: Notice): void => this.emit('notice', notice);

  private failed(name: keyof SandboxEvents, error: unknown): void {
    const message = `a listener of ${name} events failed: ${error instanceof Error ? error.message : String(error)}`;
    if (name === 'notice') process.stderr.write(`${message}\n`);
    else this.notify({ level: 'error', message });
  }
}
