/**
 * The journal as Server-Sent Events (HTML Living Standard §9.2, `text/event-stream`): one event per
 * finished request, its `id` the request id and its `data` the entry as JSON, with comment lines as
 * heartbeats so that proxies and clients keep an idle stream open.
 */

import type { JournalEntry } from './entry.js';
import type { ResponseStream } from '../vocabulary/exchange.js';
import type { JournalListener, JournalRecord } from './journal.js';

/** An answer that stays open (see `SandboxResponse.stream`). */
export type EventStream = ResponseStream;

export const HEARTBEAT_MS = 15_000;

/** What a stream's answer body starts with: how long a client waits before reconnecting, and a comment. */
export const STREAM_PREAMBLE = 'retry: 3000\n: understudy request journal\n\n';

export const HEARTBEAT = ': heartbeat\n\n';

/**
 * One event. A field value ends at a line break (§9.2.6), so none may hold one: the id loses any,
 * and JSON text never has a raw one (`JSON.stringify` escapes them inside strings).
 */
export function sseEvent(id: string, data: unknown): string {
  return `id: ${id.replace(/[\r\n]/g, '')}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What a stream reads from the journal. */
export interface StreamSource {
  subscribe(listener: JournalListener): () => void;
  view(record: JournalRecord): JournalEntry;
}

/**
 * A stream of the entries added from when it is opened, those `wanted` lets through. Entries are
 * viewed and written after the request that added them has been answered: additions are gathered
 * until the event loop turns, so the request path only pays for a push.
 */
export function journalStream(source: StreamSource, wanted: (entry: JournalEntry) => boolean, heartbeatMs = HEARTBEAT_MS): EventStream {
  return {
    open(write) {
      let queued: JournalRecord[] = [];
      let flush: NodeJS.Immediate | undefined;
      const unsubscribe = source.subscribe((record) => {
        queued.push(record);
        flush ??= setImmediate(() => {
          flush = undefined;
          const records = queued;
          queued = [];
          for (const record of records) {
            const entry = source.view(record);
            if (wanted(entry)) write(sseEvent(entry.id, entry));
          }
        });
      });
      const heartbeat = setInterval(() => write(HEARTBEAT), heartbeatMs);
      heartbeat.unref();
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        if (flush) clearImmediate(flush);
      };
    },
  };
}
