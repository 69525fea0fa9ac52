import { afterEach, describe, expect, it, vi } from 'vitest';
import { BASE_REDACTION } from '../../src/journal/redaction.js';
import { buildEntry } from '../../src/journal/entry.js';
import { Journal, toJournalEntry } from '../../src/journal/journal.js';
import { HEARTBEAT, journalStream, sseEvent } from '../../src/journal/sse.js';
import type { Exchange } from '../../src/vocabulary/exchange.js';

const exchange = (id: string, path: string): Exchange => ({
  request: {
    id,
    method: 'GET',
    path,
    query: '',
    headers: { authorization: 'Bearer demo-pro' },
    clientAddress: '127.0.0.1',
    readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
  },
  response: { status: 200, headers: {}, body: { ok: true } },
  operationId: undefined,
  keyId: undefined,
  workspace: 'default',
  durationMs: 1,
});

describe('Server-Sent Events', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('formats an event as an id line and one data line of JSON, whatever the text holds', () => {
    expect(sseEvent('abc', { a: 'line\nbreak' })).toBe('id: abc\ndata: {"a":"line\\nbreak"}\n\n');
    expect(sseEvent('a\r\nb', 1)).toBe('id: ab\ndata: 1\n\n');
  });

  it('sends a reconnecting client the entries after its Last-Event-ID first, or every one kept when the id is gone', () => {
    const journal = new Journal(10);
    for (const id of ['r1', 'r2', 'r3']) journal.add(toJournalEntry(exchange(id, '/v1/pets'), 0));
    const sent = (lastEventId: string): string[] => {
      const chunks: string[] = [];
      journalStream(journal, () => true, { lastEventId }).open((chunk) => chunks.push(chunk))();
      return chunks.map((chunk) => /^id: (.*)$/m.exec(chunk)?.[1] ?? chunk);
    };
    expect(sent('r1')).toEqual(['r2', 'r3']);
    expect(sent('r3')).toEqual([]);
    expect(sent('gone')).toEqual(['r1', 'r2', 'r3']);
  });

  it('sends the entries added after it opens, those it wants, after the request path, until closed', async () => {
    vi.useFakeTimers();
    const journal = new Journal(10);
    journal.add(toJournalEntry(exchange('before', '/v1/pets'), 0));
    const chunks: string[] = [];
    const close = journalStream(journal, (e) => e.path === '/v1/pets', { heartbeatMs: 1000 }).open((chunk) => chunks.push(chunk));
    const added = toJournalEntry(exchange('r1', '/v1/pets'), 0);
    journal.add(added);
    journal.add(toJournalEntry(exchange('r2', '/v1/orders'), 0));
    // Nothing is written while the request that added the entry is still being answered.
    expect(chunks).toEqual([]);
    await vi.advanceTimersToNextTimerAsync();
    expect(chunks).toEqual([sseEvent('r1', buildEntry(added, BASE_REDACTION))]);
    expect(chunks[0]).toContain('Bearer [redacted]');
    await vi.advanceTimersByTimeAsync(1000);
    expect(chunks.at(-1)).toBe(HEARTBEAT);
    close();
    close();
    const written = chunks.length;
    journal.add(toJournalEntry(exchange('r3', '/v1/pets'), 0));
    await vi.advanceTimersByTimeAsync(5000);
    expect(chunks).toHaveLength(written);
  });
});
