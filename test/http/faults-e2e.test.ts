import { createServer, request, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SandboxConfig } from '../../src/config/config.js';
import type { Sandbox } from '../../src/core/sandbox.js';
import { observeGet, type Seen } from '../support/observe-get.js';
import { ADMIN_TOKEN, auth, EDGES, testSandbox, type Edge } from '../support/sandbox.js';

/**
 * Latency and faults end to end (docs/control-surface.md, "Latency and faults", issue 11 §2): the real sandbox behind
 * each edge on a real socket, seen by node:http's client (what most HTTP libraries sit on), the
 * faults set by the request (`Prefer`), the document (test/documents/faults.yaml) and the config.
 * Delays are asserted from below only (≥ the delay less a little timer slack); an answer that must
 * come "at once" is asserted well under a delay of a second, never against a tight bound.
 */

const DOCUMENT = 'test/documents/faults.yaml';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** The example getPlain and the others answer with. */
const READING = { station: 'north', celsius: 12.5, note: 'a calm day, with a long enough body to cut in half' };
/** A 150 ms delay, seen from the client: timers may fire a little early against performance.now(). */
const DELAY = 150;
const AT_LEAST = DELAY - 10;
/** "At once": far below the 1000 ms delay these answers would have had, far above any slow machine's turnaround. */
const PROMPTLY = 500;

const get = (port: number, path: string, headers: Readonly<Record<string, string>>, timeoutMs = 2000): Promise<Seen> =>
  observeGet(port, path, headers, timeoutMs);

const json = (seen: Seen): unknown => JSON.parse(seen.body.toString('utf8'));

type Overrides = Parameters<typeof testSandbox>[0];
type FaultsSection = Partial<SandboxConfig['faults']>;

interface Served {
  readonly port: number;
  readonly sandbox: Sandbox;
}

/** The sandbox on the faults document (or `overrides.spec`) behind `edge`, on a real socket closed when the test ends. */
async function serve(edge: Edge, overrides: Overrides = {}, faults: FaultsSection = {}): Promise<Served> {
  const sandbox = await testSandbox({ spec: DOCUMENT, fixtures: null, ...overrides, faults });
  const server = createServer(edge.make(sandbox) as RequestListener);
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, sandbox };
}

interface Entry {
  readonly path: string;
  readonly status: number;
  readonly code?: string;
  readonly applied?: { readonly preference?: string; readonly delayMs?: number; readonly fault?: string; readonly injectedStatus?: number };
  readonly limit?: { readonly limit: number; readonly remaining: number; readonly banned: boolean };
}

/** The journal's API entries, newest first. */
async function journal(port: number): Promise<Entry[]> {
  const seen = await get(port, '/__sandbox/requests?limit=1000', ADMIN);
  expect(seen.status, seen.body.toString()).toBe(200);
  return (json(seen) as Entry[]).filter((e) => !e.path.startsWith('/__sandbox'));
}

const remaining = (seen: Seen): number => Number(seen.headers['x-ratelimit-remaining']);

describe.each(EDGES)('latency and faults on the wire, through the $name', (edge) => {
  const key = auth();

  describe('chosen by the request (Prefer)', () => {
    it('delay=150: the answer arrives whole, no sooner than the delay, and says what was applied', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/plain', { ...key, prefer: `delay=${DELAY}` });
      expect(seen.status).toBe(200);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(AT_LEAST);
      expect(seen.complete).toBe(true);
      expect(json(seen)).toEqual(READING);
      expect(seen.headers['preference-applied']).toBe(`delay=${DELAY}`);
      const [entry] = await journal(port);
      expect(entry).toMatchObject({ status: 200, applied: { preference: `delay=${DELAY}`, delayMs: DELAY } });
    });

    it('fault=connection_reset: the client reads ECONNRESET and no answer', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=connection_reset' });
      expect(seen.status).toBeUndefined();
      expect(seen.error?.code).toBe('ECONNRESET');
      expect(seen.body.length).toBe(0);
      const [entry] = await journal(port);
      expect(entry?.applied).toMatchObject({ fault: 'connection_reset', preference: 'fault=connection_reset' });
    });

    it('fault=truncated_body: the head promises the whole body, fewer bytes come, then the close', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=truncated_body' });
      expect(seen.status).toBe(200);
      expect(seen.headers['preference-applied']).toBe('fault=truncated_body');
      const promised = Number(seen.headers['content-length']);
      expect(promised).toBe(Buffer.byteLength(JSON.stringify(READING)));
      expect(seen.body.length).toBeGreaterThan(0);
      expect(seen.body.length).toBeLessThan(promised);
      expect(seen.complete).toBe(false);
      expect(seen.error?.code).toBe('ECONNRESET');
    });

    it('fault=empty_response: the connection closes with no bytes (socket hang up)', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=empty_response' });
      expect(seen.status).toBeUndefined();
      expect(seen.error).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    });

    it('fault=malformed_response: the client cannot parse the answer', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=malformed_response' });
      expect(seen.status).toBeUndefined();
      expect(seen.error?.code).toMatch(/^HPE_/);
    });

    it('fault=timeout: no answer at all, and the connection is closed at faults.timeoutCapMs', async () => {
      const { port } = await serve(edge, {}, { timeoutCapMs: 200 });
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=timeout' }, 3000);
      expect(seen.status).toBeUndefined();
      // Closed by the server (before the client's own 3 s), with nothing written.
      expect(seen.timedOut).toBe(false);
      expect(seen.error).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(190);
      const [entry] = await journal(port);
      expect(entry?.applied).toMatchObject({ fault: 'timeout' });
    });

    it('fault=timeout: a client with a shorter timeout of its own gives up with no answer', async () => {
      const { port } = await serve(edge, {}, { timeoutCapMs: 5000 });
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=timeout' }, 150);
      expect(seen).toMatchObject({ timedOut: true, status: undefined, error: undefined });
    });

    it('fault=dribble: the whole answer in pieces, its duration capped by faults.maxDelayMs', async () => {
      // A dribble chosen by Prefer takes 2000 ms by default; maxDelayMs brings it down to 200.
      const { port } = await serve(edge, {}, { maxDelayMs: 200 });
      const seen = await get(port, '/api/plain', { ...key, prefer: 'fault=dribble' });
      expect(seen.status).toBe(200);
      expect(seen.complete).toBe(true);
      expect(json(seen)).toEqual(READING);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(190);
    });

    it('a delay above faults.maxDelayMs waits only the cap', async () => {
      const { port } = await serve(edge, {}, { maxDelayMs: 100 });
      const seen = await get(port, '/api/plain', { ...key, prefer: 'delay=20000' });
      expect(seen.status).toBe(200);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(90);
      expect(seen.timedOut).toBe(false);
      const [entry] = await journal(port);
      expect(entry?.applied).toMatchObject({ delayMs: 100 });
    });

    it('faults.allowClientChoice: false ignores Prefer delay and fault, well-formed or not: whole, prompt, nothing applied', async () => {
      const { port } = await serve(edge, {}, { allowClientChoice: false });
      for (const prefer of ['delay=1000', 'fault=connection_reset', 'fault=timeout, delay=1000', 'delay=soon, fault=explode']) {
        const seen = await get(port, '/api/plain', { ...key, prefer });
        expect({ prefer, status: seen.status, complete: seen.complete }).toEqual({ prefer, status: 200, complete: true });
        expect(json(seen)).toEqual(READING);
        expect(seen.elapsedMs).toBeLessThan(PROMPTLY);
        expect(seen.headers['preference-applied']).toBeUndefined();
      }
      for (const entry of await journal(port)) expect(entry.applied).toBeUndefined();
      // The other preferences still work.
      const forced = await get(port, '/api/plain', { ...key, prefer: 'code=200, delay=1000' });
      expect([forced.status, forced.headers['preference-applied']]).toEqual([200, 'code=200']);
      expect(forced.elapsedMs).toBeLessThan(PROMPTLY);
    });
  });

  describe('set by the document', () => {
    it('x-understudy-faults with a declared status: the declared response, its body', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/outage', key);
      expect(seen.status).toBe(503);
      expect(json(seen)).toEqual({ reason: 'maintenance', retryInMinutes: 5 });
      expect(seen.headers['preference-applied']).toBeUndefined();
    });

    it('x-understudy-faults with an undeclared status: the Error shape, injected_fault', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/undeclared-outage', key);
      expect(seen.status).toBe(503);
      expect(json(seen)).toEqual({ code: 'injected_fault', message: expect.any(String), status: 503 });
      expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('the journal records applied.injectedStatus (and the delay beside it)', async () => {
      const { port } = await serve(edge);
      await get(port, '/api/undeclared-outage', key);
      await get(port, '/api/outage', { ...key, prefer: 'delay=20' });
      const [delayed, injected] = await journal(port);
      expect(injected).toMatchObject({ status: 503, code: 'injected_fault', applied: { injectedStatus: 503 } });
      expect(delayed).toMatchObject({ status: 503, applied: { preference: 'delay=20', delayMs: 20, injectedStatus: 503 } });
    });

    it('x-understudy-latency and Microcks’s delay hold the answer back', async () => {
      const { port } = await serve(edge);
      for (const path of ['/api/slow', '/api/microcks']) {
        const seen = await get(port, path, key);
        expect({ path, status: seen.status }).toEqual({ path, status: 200 });
        expect(seen.elapsedMs).toBeGreaterThanOrEqual(AT_LEAST);
        expect(json(seen)).toEqual(READING);
        expect(seen.headers['preference-applied']).toBeUndefined();
      }
      const entries = await journal(port);
      expect(entries.map((e) => e.applied)).toEqual([{ delayMs: DELAY }, { delayMs: DELAY }]);
    });

    it('a refusal is answered at once, whatever the document’s latency: 401, 400', async () => {
      const { port } = await serve(edge, {}, { latency: { fixed: 1000 } });
      const noKey = await get(port, '/api/slow', {});
      expect(noKey.status).toBe(401);
      expect(noKey.elapsedMs).toBeLessThan(PROMPTLY);
      const badPreference = await get(port, '/api/slow', { ...key, prefer: 'code=abc' });
      expect(badPreference.status).toBe(400);
      expect(badPreference.elapsedMs).toBeLessThan(PROMPTLY);
    });
  });

  describe('set by the config', () => {
    it('a default latency for every operation', async () => {
      const { port } = await serve(edge, {}, { latency: { fixed: DELAY } });
      const seen = await get(port, '/api/plain', key);
      expect(seen.status).toBe(200);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(AT_LEAST);
      const [entry] = await journal(port);
      expect(entry?.applied).toEqual({ delayMs: DELAY });
    });

    it('a default fault list for every operation, which `x-understudy-faults: []` switches off', async () => {
      const { port } = await serve(edge, {}, { faults: [{ fault: 'connection_reset' }] });
      const reset = await get(port, '/api/plain', key);
      expect(reset.error?.code).toBe('ECONNRESET');
      const calm = await get(port, '/api/calm', key);
      expect([calm.status, json(calm)]).toEqual([200, READING]);
    });
  });

  describe('precedence: request > document > config, latency and faults separately', () => {
    it('Prefer: delay=0 beats a document latency', async () => {
      const { port } = await serve(edge, {}, { maxDelayMs: 1000 });
      // getSlow waits 150 ms; the request asks for none.
      const seen = await get(port, '/api/slow', { ...key, prefer: 'delay=0' });
      expect(seen.status).toBe(200);
      expect(seen.headers['preference-applied']).toBe('delay=0');
      expect(seen.elapsedMs).toBeLessThan(AT_LEAST);
    });

    it('the document’s latency beats the config’s', async () => {
      const { port } = await serve(edge, {}, { latency: { fixed: 1000 } });
      const seen = await get(port, '/api/slow', key);
      expect(seen.status).toBe(200);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(AT_LEAST);
      expect(seen.elapsedMs).toBeLessThan(900);
      const [entry] = await journal(port);
      expect(entry?.applied).toEqual({ delayMs: DELAY });
    });

    it('Prefer: delay changes only the delay: the document’s fault list still answers 503', async () => {
      const { port } = await serve(edge);
      const seen = await get(port, '/api/outage', { ...key, prefer: 'delay=100' });
      expect(seen.status).toBe(503);
      expect(seen.elapsedMs).toBeGreaterThanOrEqual(90);
      expect(json(seen)).toEqual({ reason: 'maintenance', retryInMinutes: 5 });
      expect(seen.headers['preference-applied']).toBe('delay=100');
    });

    it('Prefer: fault beats the document’s fault list; Prefer: code beats a drawn status', async () => {
      const { port } = await serve(edge);
      const reset = await get(port, '/api/outage', { ...key, prefer: 'fault=connection_reset' });
      expect(reset.error?.code).toBe('ECONNRESET');
      const forced = await get(port, '/api/outage', { ...key, prefer: 'code=200' });
      expect([forced.status, json(forced), forced.headers['preference-applied']]).toEqual([200, READING, 'code=200']);
    });

    it('the document’s fault list beats the config’s', async () => {
      const { port } = await serve(edge, {}, { faults: [{ fault: 'connection_reset' }] });
      const seen = await get(port, '/api/outage', key);
      expect(seen.status).toBe(503);
    });
  });

  describe('determinism and accounting', () => {
    /** The statuses `key` gets from getFlaky (503 half the time) over 12 requests to a fresh sandbox. */
    const statuses = async (seed: number, keys: readonly string[]): Promise<Record<string, string>> => {
      const { port } = await serve(edge, { seed });
      const seen: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
      // Keys take turns, so each key's sequence is shown not to depend on the others' requests.
      for (let i = 0; i < 12; i++) {
        for (const k of keys) seen[k]?.push((await get(port, '/api/flaky', auth(k))).status ?? 0);
      }
      return Object.fromEntries(Object.entries(seen).map(([k, list]) => [k, list.join(' ')]));
    };

    it('the same seed and key give the same sequence of statuses, whatever other keys do; another seed or key another', async () => {
      const alone = await statuses(1, ['demo-pro']);
      const again = await statuses(1, ['demo-pro']);
      const mixed = await statuses(1, ['demo-free', 'demo-pro', 'demo-business']);
      const otherSeed = await statuses(2, ['demo-pro']);
      expect(again).toEqual(alone);
      expect(mixed['demo-pro']).toBe(alone['demo-pro']);
      // Both outcomes occur, so the sequences compared below carry information.
      expect(alone['demo-pro']).toContain('200');
      expect(alone['demo-pro']).toContain('503');
      expect(otherSeed['demo-pro']).not.toBe(alone['demo-pro']);
      expect(mixed['demo-free']).not.toBe(alone['demo-pro']);
      expect(mixed['demo-business']).not.toBe(alone['demo-pro']);
    });

    it('a reset starts every stream again', async () => {
      const { port } = await serve(edge, { seed: 1 });
      const run = async (): Promise<string> => {
        const out: number[] = [];
        for (let i = 0; i < 12; i++) out.push((await get(port, '/api/flaky', key)).status ?? 0);
        return out.join(' ');
      };
      const first = await run();
      const reset = await new Promise<number | undefined>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path: '/__sandbox/reset', method: 'POST', headers: ADMIN, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.end();
      });
      expect(reset).toBeLessThan(300);
      expect(await run()).toBe(first);
    });

    it('a delayed, a faulted and an injected answer each count against the key’s limits', async () => {
      const { port } = await serve(edge);
      const key = auth('demo-free');
      const first = await get(port, '/api/plain', key);
      expect(remaining(first)).toBe(59);
      const delayed = await get(port, '/api/plain', { ...key, prefer: 'delay=50' });
      expect(remaining(delayed)).toBe(58);
      const reset = await get(port, '/api/plain', { ...key, prefer: 'fault=connection_reset' });
      expect(reset.error?.code).toBe('ECONNRESET');
      const timedOut = await get(port, '/api/plain', { ...key, prefer: 'fault=timeout' }, 100);
      expect(timedOut.timedOut).toBe(true);
      const dribbled = await get(port, '/api/plain', { ...key, prefer: 'fault=dribble' }, 100);
      expect(dribbled.timedOut).toBe(true);
      expect(remaining(dribbled)).toBe(55);
      const entries = await journal(port);
      expect(entries.map((e) => [e.limit?.remaining, e.applied ?? {}])).toEqual([
        [55, { preference: 'fault=dribble', fault: 'dribble' }],
        [56, { preference: 'fault=timeout', fault: 'timeout' }],
        [57, { preference: 'fault=connection_reset', fault: 'connection_reset' }],
        [58, { preference: 'delay=50', delayMs: 50 }],
        [59, {}],
      ]);
      // An injected status counts too (the journal is not read past it: listing it is broken, see above).
      const injected = await get(port, '/api/outage', key);
      expect([injected.status, remaining(injected)]).toEqual([503, 54]);
      const last = await get(port, '/api/plain', key);
      expect(remaining(last)).toBe(53);
    });
  });
});
