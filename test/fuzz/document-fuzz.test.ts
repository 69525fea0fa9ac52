/**
 * Property-based fuzzing of request validation, with requests generated FROM THE DOCUMENT: every
 * operation of the compiled model gets arbitraries built from its parameters' and body's schemas
 * (test/fuzz/arbitraries.ts); nothing here names an operation or a field. Each generated request
 * goes in-process through the node:http edge (createNodeHandler) with supertest, to a sandbox that
 * checks its own answers against the document (`validation.checkResponses: true`), so "never a
 * 5xx" also means "every answer is valid against the document"; the answer as received is checked
 * against the document again here (WireCheck), since the sandbox checks it before serializing.
 * Properties:
 *
 * - never a 5xx, and every answer as received valid against the document;
 * - a valid request is accepted: 2xx, or 404 resource_not_found for an id that does not exist;
 *   a create / replace stores exactly the writable fields sent (a create reads back the same from
 *   its Location), a list page holds at most `limit` records in ascending id order, past `after`,
 *   matching its filters, and its rel="next" page does too;
 * - a near-valid request (exactly one thing wrong) is answered 400 validation_failed whose details
 *   name that location and no other, or the body-level error (415 unsupported_media_type, 400
 *   body_required / malformed_json), or 401 for credentials; and it leaves the store as it was.
 *
 * Runs: FUZZ_RUNS requests in all (default 600; the nightly run sets 10000), spread over three
 * documents (the Pet Store, test/documents/library.yaml, test/fuzz/gadgets.yaml) and over valid
 * and near-valid requests. Seeded by FUZZ_SEED (default below), so every run is the same run.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';
import { SchemaCompiler, toViolations } from '../../src/validation/schema-compiler.js';
import { describeRequest, operationRecipes, type FuzzRequest, type OperationRecipe, type Prepared } from './arbitraries.js';
import { canonicalJson } from './schema.js';
import { testSandbox } from '../support/sandbox.js';

const TOTAL_RUNS = positiveInteger(process.env.FUZZ_RUNS, 600, 'FUZZ_RUNS');
const SEED = positiveInteger(process.env.FUZZ_SEED, 20_261_122, 'FUZZ_SEED');
/** Print what was generated (per operation and per kind of mistake). On by default in a sized run. */
const REPORT = process.env.FUZZ_REPORT !== undefined ? process.env.FUZZ_REPORT !== '0' : process.env.FUZZ_RUNS !== undefined;

function positiveInteger(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a whole number >= 1, not ${raw}`);
  return n;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Quotas out of the way: the fuzzer tests validation, not the limiter (anonymous requests included). */
const UNLIMITED = { perMinute: 100_000_000, perDay: 100_000_000 };
const PLANS = { free: UNLIMITED, pro: UNLIMITED, business: UNLIMITED, enterprise: UNLIMITED };

interface DocumentUnderTest {
  readonly name: string;
  readonly spec: string;
  /** null: records generated from the document's schemas. */
  readonly fixtures?: null;
  readonly apiKey: string;
  /** Its part of FUZZ_RUNS. */
  readonly share: number;
}

const DOCUMENTS: readonly DocumentUnderTest[] = [
  { name: 'petstore', spec: here('../../openapi/petstore.yaml'), apiKey: 'demo-enterprise', share: 0.45 },
  { name: 'library', spec: here('../documents/library.yaml'), fixtures: null, apiKey: 'demo-pro', share: 0.2 },
  { name: 'gadgets', spec: here('./gadgets.yaml'), fixtures: null, apiKey: 'demo-enterprise', share: 0.35 },
];

/** Of each document's requests, the part that is valid (the rest is near-valid). */
const VALID_SHARE = 0.4;

/** The runs of each property (at least one each), adding up to TOTAL_RUNS exactly. */
function runsOf(): Map<string, number> {
  const slots = DOCUMENTS.flatMap((d) => [
    { key: `${d.name}:valid`, share: d.share * VALID_SHARE },
    { key: `${d.name}:near-valid`, share: d.share * (1 - VALID_SHARE) },
  ]);
  if (TOTAL_RUNS < slots.length) throw new Error(`FUZZ_RUNS must be at least ${slots.length}: one request per property`);
  const runs = slots.map((slot) => Math.max(1, Math.floor(TOTAL_RUNS * slot.share)));
  // What flooring left over goes to the largest shares first, one each.
  let left = TOTAL_RUNS - runs.reduce((a, b) => a + b, 0);
  const order = slots.map((_, i) => i).sort((a, b) => (slots[b]?.share ?? 0) - (slots[a]?.share ?? 0));
  for (let k = 0; left !== 0; k = (k + 1) % order.length) {
    const i = order[k] as number;
    if (left > 0) {
      runs[i] = (runs[i] ?? 0) + 1;
      left--;
    } else if ((runs[i] ?? 0) > 1) {
      runs[i] = (runs[i] ?? 0) - 1;
      left++;
    }
  }
  return new Map(slots.map((slot, i) => [slot.key, runs[i] ?? 1]));
}
const RUNS = runsOf();

// ─── Known bugs ────────────────────────────────────────────────────────────────────────────────

interface KnownBug {
  readonly name: string;
  /** Actual against expected, in words. */
  readonly finding: string;
  /** The shape excluded from the properties so the rest can run. Keep it as narrow as the bug. */
  readonly matches: (r: FuzzRequest) => boolean;
  /** The minimal counterexample and the document it needs, replayed below with it.fails: fixing the bug turns it red. */
  readonly replay: { readonly spec: string; readonly fixtures?: null; readonly request: FuzzRequest };
}

const replayRequest = (
  document: string,
  operationId: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  more: Partial<FuzzRequest> = {},
): FuzzRequest => ({
  document,
  operationId,
  method,
  target,
  headers,
  body: undefined,
  label: 'valid',
  what: '',
  expect: { kind: 'accepted', notFoundAllowed: false },
  checks: {},
  ...more,
});

/**
 * Requests on which the sandbox is wrong. The properties stay strict: only the exact shape of each
 * is filtered out, and each minimal counterexample is replayed as a test expected to fail until the
 * bug is fixed; it then moves to FIXED_BUGS. Empty now.
 */
const KNOWN_BUGS: readonly KnownBug[] = [];

/** Bugs this suite found and src/ has fixed: their minimal counterexamples stay as regression tests. */
// prettier-ignore
const FIXED_BUGS: readonly KnownBug[] = [
  {
    name: 'an explicit x-understudy action mock is overridden by REST conventions',
    finding:
      'POST /shop/echo (declared x-understudy: {action: mock}) answers 500 response_contract_violation "body.received is required" ' +
      'instead of 200 with a value generated from its schema: inferBindings (src/openapi/build-model.ts) treats a mock binding ' +
      'without a resource as unbound and binds the operation by convention as a create on a store collection "echo", which answers the stored record {id}',
    matches: (r) => r.document === 'gadgets' && r.operationId === 'echoEvents' && r.expect.kind === 'accepted',
    replay: {
      spec: here('./gadgets.yaml'),
      fixtures: null,
      request: replayRequest('gadgets', 'echoEvents', 'POST', '/shop/echo', { Authorization: 'Bearer demo-enterprise' }),
    },
  },
  {
    name: 'records seeded from a schema with multipleOf break that schema',
    finding:
      'GET /api/packs (test/fuzz/seeded-multiple-of.yaml, no fixtures file) answers 500 response_contract_violation ' +
      '"body[0].size must be multiple of 6" instead of 200: fakeInteger (src/mock/schema-faker.ts) ignores multipleOf, so seeded ' +
      'records and generated answers break the document. (gadgets.yaml keeps multipleOf to a request-only schema so that its lists stay fuzzable.)',
    matches: () => false,
    replay: { spec: here('./seeded-multiple-of.yaml'), fixtures: null, request: replayRequest('packs', 'listPacks', 'GET', '/api/packs', {}) },
  },
  {
    name: 'a JSON number past the double range is stored as Infinity and answered as null',
    finding:
      'POST /shop/gadgets {"name":"a","price":1,"dimensions":{"width":1e400,"height":1}} answers 201 with "dimensions":{"width":null,...}, ' +
      'which breaks the document (width is a number), and the record keeps Infinity: JSON.parse reads 1e400 as Infinity, Ajv takes it for a ' +
      'number >= 0, and checkResponses checks the value before JSON.stringify turns it into null. Expected: 400 validation_failed at ' +
      'body.dimensions.width (as for an int64 past 2^53, it cannot survive a JSON round trip), or the number kept. Not generated by the ' +
      'properties (fc.double stays finite); found by probing number spellings, and caught by their check of the answer as received',
    matches: () => false,
    replay: {
      spec: here('./gadgets.yaml'),
      fixtures: null,
      request: replayRequest('gadgets', 'addGadget', 'POST', '/shop/gadgets', { Authorization: 'Bearer demo-enterprise' }, {
        body: { contentType: 'application/json', text: '{"name":"a","price":1,"dimensions":{"width":1e400,"height":1}}', invalidUtf8: false },
        expect: { kind: 'validation_failed', location: 'body.dimensions.width' },
      }),
    },
  },
];

const isKnownBug = (r: FuzzRequest): boolean => KNOWN_BUGS.some((b) => b.matches(r));

// ─── Sending and judging ───────────────────────────────────────────────────────────────────────

interface Answer {
  readonly status: number;
  /** The body as received, parsed from the bytes on the wire (undefined when empty). */
  readonly body: unknown;
  readonly location: string | undefined;
  readonly link: string | undefined;
  /** The error's code, from the body or, where the document declares the status without content, from X-Sandbox-Error. */
  readonly code: unknown;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';

async function send(server: http.Server, r: FuzzRequest): Promise<Answer> {
  let test = request(server)[r.method.toLowerCase() as Method](r.target);
  for (const [name, value] of Object.entries(r.headers)) test = test.set(name, value);
  if (r.body !== undefined) {
    const bytes = Buffer.concat([Buffer.from(r.body.invalidUtf8 ? [0xff] : []), Buffer.from(r.body.text, 'utf8')]);
    if (r.body.contentType !== undefined) test = test.set('Content-Type', r.body.contentType);
    // The bytes go out as they are: no Content-Type added, nothing re-encoded.
    test = test.serialize((data: unknown) => data as string).send(bytes);
  }
  const res = await test;
  const text = res.text ?? '';
  const location = res.headers.location as string | undefined;
  const link = res.headers.link as string | undefined;
  const body = text === '' ? undefined : (JSON.parse(text) as unknown);
  const code = record(body).code ?? (res.headers['x-sandbox-error'] as string | undefined)?.split(':')[0];
  return { status: res.status, body, location, link, code };
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The answer as the client received it, checked against the document: the sandbox checks its own
 * answers before they are serialized (checkResponses), this checks the bytes that arrived, so a
 * value that changes on the way out (Infinity becomes null) is caught too.
 */
class WireCheck {
  private readonly compiler: SchemaCompiler;
  constructor(private readonly model: ApiModel) {
    this.compiler = new SchemaCompiler(model.document, model.dialect);
  }

  problem(r: FuzzRequest, answer: Answer): string | undefined {
    const op = this.model.operations.find((o) => o.id === r.operationId);
    if (!op) return undefined;
    const status = String(answer.status);
    const spec =
      op.responses.find((x) => x.status === status) ??
      op.responses.find((x) => x.status === `${status[0]}XX`) ??
      op.responses.find((x) => x.status === 'DEFAULT');
    if (!spec) return answer.status < 400 ? `${answer.status} is not a status ${op.id} declares` : undefined;
    const media = spec.content.find((m) => m.mediaType.includes('json')) ?? spec.content[0];
    if (!media) return answer.status < 400 && answer.body !== undefined ? `a body where ${op.id} declares none for ${status}` : undefined;
    if (answer.body === undefined) return `no body where ${op.id} declares one for ${status}`;
    if (!media.schemaPointer) return undefined;
    const validate = this.compiler.compile(media.schemaPointer);
    if (validate(answer.body)) return undefined;
    return `the answer as received breaks the document: ${toViolations('body', validate.errors)
      .map((v) => `${v.location} ${v.message}`)
      .join('; ')}`;
  }
}

/** What is wrong with the answer, or undefined when it is right. */
function judge(r: FuzzRequest, answer: Answer, wire?: WireCheck): string | undefined {
  const body = record(answer.body);
  const got = `${answer.status} ${JSON.stringify(answer.body)}`;
  if (answer.status >= 500) return `a ${answer.status}: ${got}`;
  const onWire = wire?.problem(r, answer);
  if (onWire) return `${onWire}: ${got}`;
  const expect = r.expect;
  switch (expect.kind) {
    case 'accepted': {
      if (answer.status >= 200 && answer.status < 300) return storeProblem(r, answer);
      if (expect.notFoundAllowed && answer.status === 404 && answer.code === 'resource_not_found') return undefined;
      return `a valid request was refused: ${got}`;
    }
    case 'validation_failed': {
      if (answer.status !== 400 || body.code !== 'validation_failed')
        return `expected 400 validation_failed at ${expect.location}, got ${got}`;
      const details = Array.isArray(body.details) ? body.details.map(record) : [];
      const locations = [...new Set(details.map((d) => d.location))];
      if (locations.length !== 1 || locations[0] !== expect.location)
        return `expected details naming exactly ${expect.location}, got ${JSON.stringify(body.details)}`;
      if (expect.message !== undefined && !details.some((d) => d.message === expect.message)) {
        return `expected "${expect.message}" at ${expect.location}, got ${JSON.stringify(body.details)}`;
      }
      return body.status === 400 ? undefined : `the Error body's status is ${String(body.status)}, not 400`;
    }
    case 'accepted-or-refused':
      if (answer.status >= 200 && answer.status < 300) return storeProblem(r, answer);
      return judge({ ...r, expect: { kind: 'validation_failed', location: expect.location } }, answer);
    case 'error':
      if (answer.status !== expect.status || body.code !== expect.code) return `expected ${expect.status} ${expect.code}, got ${got}`;
      return body.status === expect.status ? undefined : `the Error body's status is ${String(body.status)}, not ${expect.status}`;
  }
}

/** The store's promises on a 2xx: a create / replace keeps exactly what was sent; pages are in order. */
function storeProblem(r: FuzzRequest, answer: Answer): string | undefined {
  const { echo, page } = r.checks;
  if (echo) {
    const row = record(answer.body);
    if (typeof row.id !== 'number') return `the stored record has no numeric id: ${JSON.stringify(answer.body)}`;
    if (echo.id !== undefined && row.id !== echo.id) return `a replace answered the record ${String(row.id)}, not ${echo.id}`;
    const { id: _id, ...fields } = row;
    if (canonicalJson(fields) !== canonicalJson(echo.sent)) {
      return `the stored record is not what was sent: sent (writable fields) ${canonicalJson(echo.sent)}, stored ${canonicalJson(fields)}`;
    }
    if (echo.readBack && answer.location === undefined) return 'a create answered no Location';
  }
  if (page) {
    if (!Array.isArray(answer.body)) return `a list answered ${JSON.stringify(answer.body)}`;
    const ids = answer.body.map((row) => record(row).id as number);
    if (ids.length > page.limit) return `a page of ${ids.length} records for limit ${page.limit}`;
    if (ids.some((id, i) => i > 0 && id <= (ids[i - 1] as number))) return `page ids not ascending: ${ids.join(',')}`;
    if (page.after !== undefined && ids.some((id) => id <= (page.after as number)))
      return `page ids not after ${page.after}: ${ids.join(',')}`;
    for (const [field, wanted] of page.filters) {
      const misfit = answer.body.find((row) => {
        const value = record(row)[field];
        return Array.isArray(wanted)
          ? !wanted.some((w) => canonicalJson(w) === canonicalJson(value))
          : canonicalJson(wanted) !== canonicalJson(value);
      });
      if (misfit !== undefined) return `a page filtered by ${field}=${JSON.stringify(wanted)} holds ${JSON.stringify(misfit)}`;
    }
  }
  return undefined;
}

// ─── The properties ────────────────────────────────────────────────────────────────────────────

interface Tally {
  /** By operation: valid sent, valid answered 2xx, near-valid sent. */
  readonly operations: Map<string, { valid: number; ok: number; nearValid: number }>;
  /** By label (`valid`, or the kind of mistake). */
  readonly kinds: Map<string, number>;
  /** By operation: generated requests left out as KNOWN_BUGS. */
  readonly excluded: Map<string, number>;
  sent: number;
  /** Follow-up requests: a created record read back, a next page followed. */
  followUps: number;
}

const timeoutFor = (runs: number) => 30_000 + runs * 30;

async function listen(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

describe.each(DOCUMENTS)('requests generated from the $name document', (doc) => {
  let sandbox: Sandbox;
  let server: http.Server;
  let prepared: Prepared[];
  let recipes: OperationRecipe[];
  let wire: WireCheck;
  const tally: Tally = { operations: new Map(), kinds: new Map(), excluded: new Map(), sent: 0, followUps: 0 };

  beforeAll(async () => {
    sandbox = await testSandbox({ spec: doc.spec, plans: PLANS, ...(doc.fixtures === null ? { fixtures: null } : {}) });
    server = http.createServer(createNodeHandler(sandbox));
    await listen(server);
    prepared = operationRecipes(sandbox.model, { document: doc.name, basePath: sandbox.basePath, apiKey: doc.apiKey });
    recipes = prepared.flatMap((p) => (p.ok ? [p.recipe] : []));
    wire = new WireCheck(sandbox.model);
    for (const p of recipes) tally.operations.set(p.op.id, { valid: 0, ok: 0, nearValid: 0 });
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    if (REPORT) {
      const ops = [...tally.operations].map(([id, t]) => `${id} ${t.valid} valid (${t.ok} 2xx) / ${t.nearValid} near-valid`).join('; ');
      const kinds = [...tally.kinds]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      // prettier-ignore
      const excluded = [...tally.excluded].map(([id, n]) => `${id} ${n}`).join(', ');
      console.info(
        `[fuzz ${doc.name}] seed ${SEED}, ${tally.sent} requests (+${tally.followUps} follow-ups). ${ops}.\n  kinds: ${kinds}${excluded ? `\n  left out as KNOWN_BUGS: ${excluded}` : ''}`,
      );
    }
  });

  const sendAndJudge = async (r: FuzzRequest): Promise<void> => {
    const before = r.expect.kind === 'accepted' ? undefined : await sandbox.store.digest();
    const answer = await send(server, r);
    tally.sent++;
    tally.kinds.set(r.label, (tally.kinds.get(r.label) ?? 0) + 1);
    const ops = tally.operations.get(r.operationId);
    if (ops && r.label === 'valid') {
      ops.valid++;
      if (answer.status >= 200 && answer.status < 300) ops.ok++;
    } else if (ops) ops.nearValid++;
    let problem = judge(r, answer, wire);
    // A request that fails leaves the store exactly as it was (docs/errors.md; docs/state.md, "What the records do").
    if (!problem && before !== undefined && answer.status >= 400 && (await sandbox.store.digest()) !== before)
      problem = 'a refused request changed the store';
    if (!problem && r.checks.echo?.readBack && answer.location !== undefined) {
      // What you POST you can GET back (README; docs/state.md): the Location reads the record as created.
      const back = await send(server, { ...r, method: 'GET', target: answer.location, body: undefined });
      tally.followUps++;
      if (back.status !== 200 || canonicalJson(back.body) !== canonicalJson(answer.body)) {
        problem = `GET ${answer.location} after the create answered ${back.status} ${JSON.stringify(back.body)}, not the created ${JSON.stringify(answer.body)}`;
      }
    }
    const next = /<([^>]+)>;\s*rel="next"/.exec(answer.link ?? '')?.[1];
    if (!problem && r.checks.page && answer.status === 200 && next !== undefined) {
      // The next page (docs/state.md, "Pagination"): the same query with the cursor past this page.
      const rows = answer.body as unknown[];
      const last = record(rows.at(-1)).id as number;
      if (rows.length !== r.checks.page.limit)
        problem = `a next link on a page of ${rows.length} records, under the limit ${r.checks.page.limit}`;
      else {
        const followed = { ...r, target: next, checks: { page: { ...r.checks.page, after: last } } };
        const back = await send(server, followed);
        tally.followUps++;
        problem = judge(followed, back, wire);
        if (problem) problem = `following rel="next" ${next}: ${problem}`;
      }
    }
    if (problem) throw new Error(`${problem}\n  request: ${describeRequest(r)}`);
  };

  const property = (pick: (p: OperationRecipe) => fc.Arbitrary<FuzzRequest> | undefined) => {
    const arbitraries = recipes.flatMap((p) => {
      const a = pick(p);
      return a ? [a] : [];
    });
    const all = fc.oneof(...arbitraries).filter((r) => {
      if (!isKnownBug(r)) return true;
      tally.excluded.set(r.operationId, (tally.excluded.get(r.operationId) ?? 0) + 1);
      return false;
    });
    // Printed with the counterexample: the request as a curl line and what it must get.
    return all.map((r) => Object.assign(r, { [fc.toStringMethod]: () => describeRequest(r) }));
  };

  it('has a recipe for every operation: no schema needs a keyword the generator cannot honour', () => {
    expect(prepared.filter((p) => !p.ok).map((p) => (p.ok ? '' : `${p.op.id}: ${p.reason}`))).toEqual([]);
    expect(recipes.length).toBe(sandbox.model.operations.length);
  });

  const validRuns = RUNS.get(`${doc.name}:valid`) ?? 1;
  it(
    `accepts ${validRuns} valid requests, answering each within the document`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          property((p) => p.valid),
          sendAndJudge,
        ),
        { numRuns: validRuns, seed: SEED },
      );
    },
    timeoutFor(validRuns),
  );

  const nearRuns = RUNS.get(`${doc.name}:near-valid`) ?? 1;
  it(
    `refuses ${nearRuns} near-valid requests, naming the one broken location`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          property((p) => p.nearValid),
          sendAndJudge,
        ),
        { numRuns: nearRuns, seed: SEED + 1 },
      );
    },
    timeoutFor(nearRuns),
  );

  it('reached every operation, with requests that succeed and requests that are refused', () => {
    expect(tally.sent).toBeGreaterThanOrEqual(validRuns + nearRuns);
    // Only meaningful when there were enough runs to spread over the operations.
    if (validRuns < recipes.length * 15) return;
    for (const p of recipes) {
      const t = tally.operations.get(p.op.id);
      // An operation whose valid requests all hit a known bug has nothing left to count.
      if (t?.valid !== 0 || !tally.excluded.get(p.op.id)) expect(t?.ok, `${p.op.id}: valid requests answered 2xx`).toBeGreaterThan(0);
      if (p.nearValid) expect(t?.nearValid, `${p.op.id}: near-valid requests`).toBeGreaterThan(0);
    }
  });
});

describe('the fuzz run as a whole', () => {
  it(`adds up to FUZZ_RUNS (${TOTAL_RUNS}) requests`, () => {
    expect([...RUNS.values()].reduce((a, b) => a + b, 0)).toBe(TOTAL_RUNS);
  });
});

async function replay(bug: KnownBug): Promise<void> {
  const sandbox = await testSandbox({ spec: bug.replay.spec, plans: PLANS, ...(bug.replay.fixtures === null ? { fixtures: null } : {}) });
  const server = http.createServer(createNodeHandler(sandbox));
  await listen(server);
  try {
    const answer = await send(server, bug.replay.request);
    expect(judge(bug.replay.request, answer, new WireCheck(sandbox.model)), JSON.stringify(answer)).toBeUndefined();
  } finally {
    server.close();
  }
}

describe('bugs found by fuzzing, fixed: their counterexamples replayed', () => {
  for (const bug of FIXED_BUGS) it(bug.name, () => replay(bug));
});

describe.runIf(KNOWN_BUGS.length > 0)('known bugs, replayed (each fails until fixed; then move it to FIXED_BUGS)', () => {
  for (const bug of KNOWN_BUGS) {
    it.fails(`${bug.name}: ${bug.finding}`, () => replay(bug));
  }
});
