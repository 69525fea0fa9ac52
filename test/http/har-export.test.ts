import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SandboxConfig } from '../../src/config/config.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { observeGet, type Seen } from '../support/observe-get.js';
import { ADMIN_TOKEN, auth, testSandbox } from '../support/sandbox.js';

/**
 * The HAR export on a real socket: it shows what the client received when a fault withheld or cut
 * the answer (HAR writers' convention: `response.status` 0 and the failure in `_error`), an injected
 * delay in `timings.wait`, and it takes the journal listing's filters.
 */

const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
const FAULTS = 'test/documents/faults.yaml';
/** What getPlain answers (test/documents/faults.yaml). */
const READING = { station: 'north', celsius: 12.5, note: 'a calm day, with a long enough body to cut in half' };
/** A delay small enough to keep the test fast, large enough to stand out from in-process time. */
const DELAY = 20;

type Overrides = Parameters<typeof testSandbox>[0];

async function serve(overrides: Overrides = {}): Promise<number> {
  const sandbox = await testSandbox({ fixtures: null, ...overrides });
  const server = createServer(createNodeHandler(sandbox) as RequestListener);
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface HarEntry {
  readonly time: number;
  readonly request: { readonly url: string };
  readonly response: {
    readonly status: number;
    readonly bodySize: number;
    readonly content: { readonly size: number; readonly text?: string };
    readonly _error?: string;
  };
  readonly timings: { readonly send: number; readonly wait: number; readonly receive: number };
  readonly _understudy: { readonly status?: number; readonly keyId?: string };
}

async function harOf(port: number, query = ''): Promise<HarEntry[]> {
  const seen = await observeGet(port, `/__sandbox/requests.har${query}`, ADMIN);
  expect(seen.status, seen.body.toString()).toBe(200);
  return (JSON.parse(seen.body.toString('utf8')) as { log: { entries: HarEntry[] } }).log.entries;
}

/** The HAR entry of the only request to `path`. */
async function only(port: number, path: string): Promise<HarEntry> {
  const entries = (await harOf(port)).filter((e) => new URL(e.request.url).pathname === path);
  expect(entries).toHaveLength(1);
  return entries[0] as HarEntry;
}

const faulted = (port: number, fault: string, timeoutMs = 2000): Promise<Seen> =>
  observeGet(port, '/api/plain', { ...auth(), prefer: `fault=${fault}` }, timeoutMs);

describe('the HAR export shows what the client received', () => {
  it('a reset: status 0 and the failure in _error, the status meant in _understudy', async () => {
    const port = await serve({ spec: FAULTS });
    const seen = await faulted(port, 'connection_reset');
    expect(seen.error?.code).toBe('ECONNRESET');
    const entry = await only(port, '/api/plain');
    expect(entry.response).toMatchObject({ status: 0, bodySize: -1, content: { size: 0 }, _error: expect.stringMatching(/reset/) });
    expect(entry.response.content.text).toBeUndefined();
    expect(entry._understudy.status).toBe(200);
  });

  it('a timeout: status 0 and no answer in _error', async () => {
    const port = await serve({ spec: FAULTS, faults: { timeoutCapMs: 30 } as Partial<SandboxConfig['faults']> });
    const seen = await faulted(port, 'timeout');
    expect(seen.status).toBeUndefined();
    const entry = await only(port, '/api/plain');
    expect(entry.response).toMatchObject({ status: 0, _error: expect.stringMatching(/no answer.*30 ms/) });
  });

  it('a truncated body: the status, and only the bytes that were sent', async () => {
    const port = await serve({ spec: FAULTS });
    const seen = await faulted(port, 'truncated_body');
    expect(seen.complete).toBe(false);
    const entry = await only(port, '/api/plain');
    const whole = JSON.stringify(READING);
    expect(entry.response.status).toBe(200);
    expect(entry.response.bodySize).toBe(seen.body.length);
    expect(entry.response.content.size).toBe(seen.body.length);
    expect(entry.response.content.text).toBe(whole.slice(0, seen.body.length));
    expect(entry.response._error).toMatch(/truncated/);
  });

  it('an injected delay in timings.wait, and in the entry time', async () => {
    const port = await serve({ spec: FAULTS });
    const seen = await observeGet(port, '/api/plain', { ...auth(), prefer: `delay=${DELAY}` });
    expect(seen.status).toBe(200);
    const entry = await only(port, '/api/plain');
    expect(entry.timings.wait).toBeGreaterThanOrEqual(DELAY);
    expect(entry.time).toBe(entry.timings.send + entry.timings.wait + entry.timings.receive);
    expect(entry.response).toMatchObject({ status: 200, content: { text: JSON.stringify(READING) } });
    expect(entry.response._error).toBeUndefined();
  });
});

describe('the HAR export takes the journal listing’s filters', () => {
  it('?key= exports only that key’s requests, ?status= only that status', async () => {
    const port = await serve();
    await observeGet(port, '/v1/pets?limit=1', auth('demo-pro'));
    await observeGet(port, '/v1/pets?limit=1', auth('demo-free'));
    await observeGet(port, '/v1/nope', auth('demo-free'));
    const all = await harOf(port);
    expect(all).toHaveLength(3);
    const pro = await harOf(port, '?key=demo-pro');
    expect(pro.map((e) => new URL(e.request.url).pathname)).toEqual(['/v1/pets']);
    const free = await harOf(port, '?key=demo-free');
    expect(free).toHaveLength(2);
    expect(free.every((e) => e._understudy.keyId !== pro[0]?._understudy.keyId)).toBe(true);
    const found = await harOf(port, '?key=demo-free&status=200');
    expect(found.map((e) => new URL(e.request.url).pathname)).toEqual(['/v1/pets']);
  });

  it('?workspace= and ?since= as the listing reads them; a malformed since is a 400', async () => {
    const port = await serve();
    await observeGet(port, '/v1/pets?limit=1', auth('demo-pro'));
    expect(await harOf(port, '?workspace=default')).toHaveLength(1);
    expect(await harOf(port, '?workspace=ws_none')).toHaveLength(0);
    expect(await harOf(port, '?since=2099-01-01T00:00:00Z')).toHaveLength(0);
    const bad = await observeGet(port, '/__sandbox/requests.har?since=yesterday', ADMIN);
    expect(bad.status).toBe(400);
  });
});

describe('Preference-Applied names the delay applied (RFC 7240 §3)', () => {
  it('Prefer: delay=5000 under maxDelayMs 15 answers Preference-Applied: delay=15', async () => {
    const port = await serve({ spec: FAULTS, faults: { maxDelayMs: 15 } as Partial<SandboxConfig['faults']> });
    const seen = await observeGet(port, '/api/plain', { ...auth(), prefer: 'delay=5000' });
    expect(seen.status).toBe(200);
    expect(seen.headers['preference-applied']).toBe('delay=15');
    const entry = await only(port, '/api/plain');
    expect(entry.timings.wait).toBeGreaterThanOrEqual(15);
  });
});
