/**
 * The journal as Server-Sent Events (HTML Living Standard §9.2, `text/event-stream`): one event per
 * finished request, its `id` the request id and its `data` the entry as JSON, with comment lines as
 * heartbeats so that proxies and clients keep an idle stream open. A client that reconnects sends the
 * last id it saw as `Last-Event-ID` (§9.2.4) and is first sent what it missed, from the journal's ring.
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
  /** Every record kept, oldest first: what a reconnecting client catches up from. */
  records(): readonly JournalRecord[];
}

export interface StreamOptions {
  /**
   * The `Last-Event-ID` of a reconnecting client: the entries kept after it are sent first. An id the
   * journal no longer holds (pushed out of the ring, cleared) sends every entry kept, since any may
   * have been missed.
   */
  readonly lastEventId?: string | undefined;
  readonly heartbeatMs?: number;
}

/**
 * A stream of the entries added from when it is opened, those `wanted` lets through, after those a
 * reconnecting client missed. Entries are viewed and written after the request that added them has
 * been answered: additions are gathered until the event loop turns, so the request path only pays
 * for a push.
 */
export function journalStream(
  source: StreamSource,
  wanted: (entry: JournalEntry) => boolean,
  { lastEventId, heartbeatMs = HEARTBEAT_MS }: StreamOptions = {},
): EventStream {
  return {
    open(write) {
      // Missed entries first, in the order they were added; what is added from now on comes after them.
      if (lastEventId !== undefined) {
        for (const record of missedSince(source.records(), lastEventId)) {
          const entry = source.view(record);
          if (wanted(entry)) write(sseEvent(entry.id, entry));
        }
      }
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

/** The records after the one with this request id; all of them when none has it. */
function missedSince(records: readonly JournalRecord[], lastEventId: string): readonly JournalRecord[] {
  const at = records.findLastIndex((record) => record.exchange.request.id === lastEventId);
  return records.slice(at + 1);
}
