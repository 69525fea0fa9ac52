import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import type { FindingId } from '../../src/report/finding.js';
import type { Verdict } from '../../src/report/verdict.js';
import { ADMIN_TOKEN, sandboxForTest, START } from '../support/sandbox.js';

/**
 * The integration report card (`GET /__sandbox/report`) over HTTP, on a real loopback sandbox: each
 * row is a client's script against the Pet Store (requests, and moves of the sandbox clock, never a
 * sleep), the verdicts the report gives it, and the requests each finding must link to. The free
 * plan is cut to 3 requests a minute and a ban to 3 refusals, so that a 429 and a ban are a few
 * requests away; the clock is frozen at START, 30 s into a minute, so a 429's Retry-After is 30.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const json = { 'content-type': 'application/json' };
const SMALL = { plans: { free: { perMinute: 3, perDay: 100 } }, bans: { threshold: 3, durationSeconds: 600 } } as const;
/** From START to past getPet's sunset (2030-12-05), in seconds. */
const PAST_SUNSET = Math.ceil((Date.parse('2030-12-06T00:00:00Z') - Date.parse(START)) / 1000);

type Step =
  | { readonly get: string; readonly prefer?: string; readonly flag?: readonly FindingId[]; readonly status?: number }
  | {
      readonly post: string;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
      readonly flag?: readonly FindingId[];
      readonly status?: number;
    }
  | { readonly advance: number };

interface Row {
  readonly name: string;
  readonly plan?: string;
  readonly steps: readonly Step[];
  readonly verdict: Verdict;
  /** The findings that do not pass; every other one passes. */
  readonly findings: Partial<Record<FindingId, Verdict>>;
}

interface EntryRef {
  readonly id: string;
  readonly link: string;
}
interface Finding {
  readonly id: FindingId;
  readonly verdict: Verdict;
  readonly sentence: string;
  readonly count: number;
  readonly entries: readonly EntryRef[];
  readonly groups: readonly Record<string, unknown>[];
}
interface Report {
  readonly verdict: Verdict;
  readonly summary: string;
  readonly subject: unknown;
  readonly coverage: { readonly complete: boolean; readonly dropped: number; readonly requests: number; readonly sentence: string };
  readonly requests: { readonly total: number; readonly byOperation: readonly Record<string, unknown>[] };
  readonly findings: readonly Finding[];
}

/** A sandbox listening on loopback for one test, and a fetch on it. */
async function serve(overrides: Parameters<typeof sandboxForTest>[0] = SMALL) {
  const sandbox = await sandboxForTest(overrides);
  const server = createServer(createNodeHandler(sandbox));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${origin}${path}`, init);
    const text = await res.text();
    return { status: res.status, id: res.headers.get('x-request-id') ?? '', body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  const issue = async (plan: string, name: string, workspace?: string) => {
    const res = await call('/__sandbox/keys', {
      method: 'POST',
      headers: { ...admin, ...json },
      body: JSON.stringify({ plan, name, ...(workspace === undefined ? {} : { workspace }) }),
    });
    expect(res.status).toBe(201);
    return res.body as { key: string; id: string; workspace: string };
  };
  const report = async (query: string) => {
    const res = await call(`/__sandbox/report?${query}`, { headers: admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as Report;
  };
  /** Runs a client's script with one key; answers each flagged request's id, by finding. */
  const run = async (key: string, steps: readonly Step[]) => {
    const flagged = new Map<FindingId, string[]>();
    for (const step of steps) {
      if ('advance' in step) {
        const moved = await call('/__sandbox/clock', {
          method: 'POST',
          headers: { ...admin, ...json },
          body: JSON.stringify({ advanceSeconds: step.advance }),
        });
        expect(moved.status).toBe(200);
        continue;
      }
      const auth = { Authorization: `Bearer ${key}` };
      const res =
        'get' in step
          ? await call(step.get, { headers: { ...auth, ...(step.prefer ? { prefer: step.prefer } : {}) } })
          : await call(step.post, { method: 'POST', headers: { ...auth, ...json, ...step.headers }, body: JSON.stringify(step.body) });
      if (step.status !== undefined) expect(res.status, `${JSON.stringify(step)}: ${JSON.stringify(res.body)}`).toBe(step.status);
      for (const finding of step.flag ?? []) flagged.set(finding, [...(flagged.get(finding) ?? []), res.id]);
    }
    return flagged;
  };
  return { call, issue, report, run };
}

const list = { get: '/v1/pets?limit=1' } as const;
const rex = { post: '/v1/pets', body: { name: 'Rex', categoryId: 1 } } as const;

// prettier-ignore
const rows: readonly Row[] = [
  { name: 'a well-behaved client: waits out Retry-After, creates once', steps: [
      { ...list, status: 200 }, { ...list, status: 200 }, { ...list, status: 200 }, { ...list, status: 429 },
      { advance: 30 }, { ...list, status: 200 }, { ...rex, status: 201 },
    ], verdict: 'pass', findings: {} },
  { name: 'a client that ignores Retry-After', steps: [
      list, list, list, { ...list, status: 429 }, { ...list, status: 429, flag: ['backoff'] },
      { advance: 30 }, { ...list, status: 200 },
    ], verdict: 'fail', findings: { backoff: 'fail' } },
  { name: 'a client that hammers until it is banned', steps: [
      list, list, list, { ...list, status: 429 }, { ...list, flag: ['backoff'] }, { ...list, flag: ['backoff'] },
      { ...list, status: 429, flag: ['backoff', 'bans'] },
    ], verdict: 'fail', findings: { backoff: 'fail', bans: 'fail' } },
  { name: 'a client that keeps calling the deprecated getPet', plan: 'pro', steps: [
      list, { get: '/v1/pets/1', status: 200, flag: ['deprecated'] }, { get: '/v1/pets/2', flag: ['deprecated'] }, { get: '/v1/pets/3', flag: ['deprecated'] },
    ], verdict: 'warn', findings: { deprecated: 'warn' } },
  { name: 'a client still calling getPet after its sunset', plan: 'pro', steps: [
      { get: '/v1/pets/1', flag: ['deprecated'] }, { advance: PAST_SUNSET }, { get: '/v1/pets/1', status: 410, flag: ['deprecated'] },
    ], verdict: 'fail', findings: { deprecated: 'fail' } },
  { name: 'a client that resends a POST without an Idempotency-Key', plan: 'pro', steps: [
      { ...rex, status: 201 }, { ...rex, status: 201, flag: ['retries'] },
      { post: '/v1/pets', body: { name: 'Tess', categoryId: 2 }, status: 201 },
      { post: '/v1/pets', body: { name: 'Tess', categoryId: 2 }, headers: { 'idempotency-key': 'tess-1' }, status: 201 },
    ], verdict: 'warn', findings: { retries: 'warn' } },
  { name: 'a client that sends invalid bodies', plan: 'pro', steps: [
      { post: '/v1/pets', body: { name: 42 }, status: 400, flag: ['validation'] }, { ...rex, status: 201 },
    ], verdict: 'warn', findings: { validation: 'warn' } },
  { name: 'a suite whose answers were mostly forced', plan: 'pro', steps: [
      { ...list, prefer: 'code=500', status: 500, flag: ['shaped'] }, { ...list, prefer: 'code=500', flag: ['shaped'] }, list,
    ], verdict: 'warn', findings: { shaped: 'warn' } },
];

describe('GET /__sandbox/report: a verdict on a client from the journal', () => {
  it.each(rows)('$name', async (row) => {
    const { call, issue, report, run } = await serve();
    const { key } = await issue(row.plan ?? 'free', 'client-under-test');
    const flagged = await run(key, row.steps);

    const card = await report('key=client-under-test');
    expect(card.subject).toEqual({ key: { id: expect.stringMatching(/^key_/), name: 'client-under-test' } });
    const verdicts = Object.fromEntries(card.findings.map((f) => [f.id, f.verdict]));
    expect(verdicts).toEqual({
      validation: 'pass',
      deprecated: 'pass',
      backoff: 'pass',
      bans: 'pass',
      retries: 'pass',
      shaped: 'pass',
      ...row.findings,
    });
    expect(card.verdict).toBe(row.verdict);
    expect(card.coverage).toMatchObject({ complete: true, dropped: 0, requests: row.steps.filter((s) => !('advance' in s)).length });
    // Each finding links to exactly the requests behind it, and each link answers that entry.
    for (const finding of card.findings) {
      const expected = flagged.get(finding.id) ?? [];
      expect(
        finding.entries.map((e) => e.id),
        finding.id,
      ).toEqual(expected);
      for (const ref of finding.entries) {
        const entry = await call(ref.link, { headers: admin });
        expect(entry.status).toBe(200);
        expect(entry.body).toMatchObject({ id: ref.id, keyName: 'client-under-test' });
      }
    }
  });

  it('says in plain words what a client that ignored Retry-After did, per key, in a workspace of two keys', async () => {
    const { issue, report, run } = await serve();
    const good = await issue('free', 'patient');
    const impatient = (await issue('free', 'impatient', good.workspace)).key;
    await run(good.key, [list, list, list, { ...list, status: 429 }, { advance: 30 }, list]);
    const flagged = await run(impatient, [list, list, list, { ...list, status: 429 }, { ...list, status: 429, flag: ['backoff'] }]);

    const card = await report(`workspace=${good.workspace}`);
    expect(card.subject).toEqual({ workspace: good.workspace });
    expect(card.verdict).toBe('fail');
    expect(card.summary).toBe('Not ready for go-live over 10 requests: it fails backing off after 429.');
    const backoff = card.findings.find((f) => f.id === 'backoff');
    expect(backoff?.entries.map((e) => e.id)).toEqual(flagged.get('backoff'));
    expect(backoff?.sentence).toBe(
      'Sent 1 request before Retry-After had passed, after 3 429s (impatient 1). Wait the seconds Retry-After gives before sending again: a client that does not is banned.',
    );
    expect(backoff?.groups.map((g) => [g.keyName, g.received, g.count])).toEqual([
      ['patient', 1, 0],
      ['impatient', 2, 1],
    ]);
    // The key alone passes.
    expect((await report('key=patient')).verdict).toBe('pass');
    expect(card.requests.byOperation).toEqual([
      { operationId: 'listPets', method: 'GET', status: 200, count: 7 },
      { operationId: 'listPets', method: 'GET', status: 429, count: 3 },
    ]);
  });

  it('judges only the range asked for, on the sandbox clock', async () => {
    const { issue, report, run } = await serve();
    const { key } = await issue('free', 'ranged');
    await run(key, [list, list, list, { ...list, status: 429 }, { ...list, status: 429 }, { advance: 60 }, list]);
    const later = new Date(Date.parse(START) + 60_000).toISOString();
    const card = await report(`key=ranged&from=${later}`);
    expect(card.verdict).toBe('pass');
    expect(card.requests.total).toBe(1);
    expect(card.coverage).toMatchObject({ from: later, complete: true });
    const before = await report(`key=ranged&to=${encodeURIComponent(START)}`);
    expect(before.requests.total).toBe(5);
    expect(before.verdict).toBe('fail');
  });

  it('says what the journal dropped of the key, and that a range after it is whole', async () => {
    const { issue, report, run } = await serve({ ...SMALL, journalSize: 4 });
    const { key } = await issue('pro', 'busy');
    await run(key, [list, list, { advance: 10 }, list, list, list, list]);
    const card = await report('key=busy');
    expect(card.coverage.complete).toBe(false);
    expect(card.coverage.requests).toBe(4);
    expect(card.coverage.dropped).toBe(2);
    expect(card.coverage.sentence).toContain(
      `dropped 2 older requests of key busy, the newest answered at ${new Date(Date.parse(START)).toISOString()}: they are not judged.`,
    );
    expect(card.summary).toContain('The journal dropped older requests, which are not judged (see coverage).');
    const after = await report(`key=busy&from=${new Date(Date.parse(START) + 10_000).toISOString()}`);
    expect(after.coverage).toMatchObject({ complete: true, dropped: 0, requests: 4 });
  });

  it('warns when there is nothing to judge', async () => {
    const { issue, report } = await serve();
    await issue('free', 'idle');
    const card = await report('key=idle');
    expect(card.verdict).toBe('warn');
    expect(card.summary).toBe('Nothing to judge: no request was journaled in the range.');
    expect(card.coverage.sentence).toBe('The journal holds no request of key idle. The journal dropped none of them.');
  });

  // prettier-ignore
  const refused: readonly (readonly [string, string, number, string, string | undefined])[] = [
    ['neither a key nor a workspace', '', 400, 'validation_failed', 'query'],
    ['an unknown key', 'key=nobody', 404, 'resource_not_found', undefined],
    ['an unknown workspace', 'workspace=ws_nothere', 404, 'resource_not_found', undefined],
    ['a from that is no time', 'key=demo-free&from=yesterday', 400, 'validation_failed', 'query.from'],
    ['a to before from', 'key=demo-free&from=2026-11-22T10:00:00Z&to=2026-11-22T09:00:00Z', 400, 'validation_failed', 'query.to'],
  ];
  it.each(refused)('refuses %s', async (_, query, status, code, location) => {
    const { call } = await serve();
    const res = await call(`/__sandbox/report?${query}`, { headers: admin });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code, status });
    if (location !== undefined)
      expect((res.body as { details: { location: string }[] }).details.map((d) => d.location)).toEqual([location]);
  });

  it('judges a workspace by what its clients sent, never by the webhook attempts the sandbox sent', async () => {
    const { call, issue, report } = await serve();
    const { key, workspace } = await issue('pro', 'hooked');
    const refused = { method: 'POST', headers: { ...admin, ...json } };
    // A subscription to an address the allow-list refuses: its attempt is journaled at once, as sent.
    await call('/__sandbox/webhooks', {
      ...refused,
      body: JSON.stringify({ event: 'pets.created', url: 'http://10.9.9.9/hook', workspace }),
    });
    const created = await call('/v1/pets', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, ...json },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    await expect
      .poll(
        async () =>
          ((await call(`/__sandbox/requests?direction=outbound&workspace=${workspace}`, { headers: admin })).body as unknown[]).length,
      )
      .toBe(1);
    const card = await report(`workspace=${workspace}`);
    expect(card.requests.total).toBe(1);
    expect(card.verdict).toBe('pass');
  });

  it('answers one journal entry by its id, and 404 for an id the journal does not hold', async () => {
    const { call } = await serve();
    const sent = await call('/v1/pets?limit=1', { headers: { Authorization: 'Bearer demo-pro' } });
    const entry = await call(`/__sandbox/requests/${sent.id}`, { headers: admin });
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({ id: sent.id, operationId: 'listPets', status: 200, keyName: 'demo-pro' });
    const missing = await call('/__sandbox/requests/not-an-id', { headers: admin });
    expect(missing).toMatchObject({ status: 404, body: { code: 'resource_not_found' } });
    // The stream and the HAR export are still what they were.
    expect((await call('/__sandbox/requests.har', { headers: admin })).status).toBe(200);
  });
});
