import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { checkConfig } from '../../src/config/load-config.js';
import { DEFAULT_CONFIG, ERRORS, createNodeHandler, createSandbox, type Sandbox } from '../../src/index.js';
import { buildValid, nearValid, type Mutation } from './build.js';
import { readHarnessDocument } from './document.js';
import { contractBreach, SchemaJudge, type Answer } from './judge.js';
import type { CorpusDocument } from './manifest.js';
import { operationsOf } from './operations.js';
import { CORPUS_KEY, toWire } from './requests.js';
import { errorSummary, send } from './send.js';
import { roundTrips, type StateOutcome } from './statefulness.js';

/** What happened to one document: its start, then each operation's valid and near-valid requests. */

/**
 * `undeclared-not-found`: a 404 `resource_not_found` for a record the store lacks, where the
 * operation declares no 404 (decision 0015: deliberate, and counted apart from other breaches).
 */
export type Verdict = 'ok' | 'contract' | 'rejected' | 'not-found' | 'undeclared-not-found' | 'server-error' | 'unbuildable' | 'transport';

export interface OperationOutcome {
  readonly op: string;
  readonly verdict: Verdict;
  readonly status?: number;
  /** The sandbox's error code (rejections, 5xx), or the harness's reason. */
  readonly code?: string;
  readonly detail?: string;
}

export interface NearOutcome {
  readonly op: string;
  readonly mutation: Mutation;
  readonly where: string;
  readonly verdict: 'refused' | 'accepted' | 'server-error' | 'transport';
  readonly status?: number;
  /** A refusal whose status the document declares but whose body breaks the declared schema. */
  readonly errorBreach?: string;
}

export interface DocumentResult {
  readonly id: string;
  readonly bytes: number;
  readonly started: boolean;
  readonly startError?: string;
  readonly startMs?: number;
  readonly rssAfterStartMb?: number;
  readonly peakRssMb: number;
  readonly operations: number;
  readonly outcomes: readonly OperationOutcome[];
  readonly near: readonly NearOutcome[];
  /** The statefulness round trips, one per collection the sandbox keeps (statefulness.ts). */
  readonly state?: readonly StateOutcome[];
}

export const CORPUS_ADMIN_TOKEN = 'corpus-admin-token';
const FROZEN_AT = '2026-01-01T00:00:00Z';
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

/** The sandbox's configuration for a corpus document: limits no run can reach, the harness as the judge. */
export function corpusConfig(file: string): Record<string, unknown> {
  const huge = 1_000_000_000;
  return {
    ...DEFAULT_CONFIG,
    spec: file,
    fixtures: null,
    data: null,
    adminToken: CORPUS_ADMIN_TOKEN,
    bodyLimit: 16 * 1024 * 1024,
    clock: { frozenAt: FROZEN_AT },
    plans: { corpus: { perMinute: huge, perDay: huge } },
    keys: [{ key: CORPUS_KEY, plan: 'corpus' }],
    anonymousPlan: 'corpus',
    bans: { threshold: huge, durationSeconds: 1 },
    validation: { unknownQueryParameters: 'ignore', checkResponses: false },
    log: { level: 'silent', format: 'json' },
  };
}

export interface RunOptions {
  /** Only the first N operations (the fast subset). */
  readonly maxOperations?: number;
}

export async function runDocument(entry: CorpusDocument, file: string, options: RunOptions = {}): Promise<DocumentResult> {
  const bytes = statSync(file).size;
  const peak = (): number => mb(process.resourceUsage().maxRSS * 1024);
  const started = performance.now();
  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox(checkConfig(corpusConfig(file)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      id: entry.id,
      bytes,
      started: false,
      startError: message.slice(0, 500),
      peakRssMb: peak(),
      operations: 0,
      outcomes: [],
      near: [],
    };
  }
  const startMs = Math.round(performance.now() - started);
  const rssAfterStartMb = mb(process.memoryUsage().rss);

  const judge = new SchemaJudge(await readHarnessDocument(file));
  const operations = operationsOf(judge.source.doc).slice(0, options.maxOperations);
  const server = createServer(createNodeHandler(sandbox));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const outcomes: OperationOutcome[] = [];
  const near: NearOutcome[] = [];
  let state: StateOutcome[];
  try {
    for (const op of operations) {
      const built = buildValid(op, judge);
      const wire = built.kind === 'built' ? toWire(built.parts, sandbox.basePath) : undefined;
      if (built.kind === 'unbuildable' || wire === undefined) {
        outcomes.push({ op: op.label, verdict: 'unbuildable', detail: built.kind === 'unbuildable' ? built.reason : 'body media type' });
        continue;
      }
      const answer = await send(port, agent, wire).catch((e: unknown) => String(e));
      outcomes.push(typeof answer === 'string' ? { op: op.label, verdict: 'transport', detail: answer } : judgeValid(judge, op, answer));
      for (const variant of nearValid(built.parts, judge)) {
        const nearWire = toWire(variant.parts, sandbox.basePath);
        if (!nearWire) continue;
        const got = await send(port, agent, nearWire).catch((e: unknown) => String(e));
        const base = { op: op.label, mutation: variant.mutation, where: variant.where };
        if (typeof got === 'string') near.push({ ...base, verdict: 'transport' });
        else if (got.status >= 500) near.push({ ...base, verdict: 'server-error', status: got.status });
        else if (got.status >= 400) {
          const breach = op.responses.has(String(got.status)) ? contractBreach(judge, op, got) : undefined;
          near.push({ ...base, verdict: 'refused', status: got.status, ...(breach ? { errorBreach: breach } : {}) });
        } else near.push({ ...base, verdict: 'accepted', status: got.status });
      }
    }
    const all = operationsOf(judge.source.doc);
    // The generated document's thousands of uniform collections would drown the real ones' figure.
    state =
      entry.source === 'generated'
        ? []
        : await roundTrips(sandbox.model, { judge, operations: all, port, agent, basePath: sandbox.basePath });
  } finally {
    agent.destroy();
    await closed(server);
  }
  return {
    id: entry.id,
    bytes,
    started: true,
    startMs,
    rssAfterStartMb,
    peakRssMb: peak(),
    operations: operations.length,
    outcomes,
    near,
    state,
  };
}

function judgeValid(judge: SchemaJudge, op: Parameters<typeof contractBreach>[1], answer: Answer): OperationOutcome {
  const base = { op: op.label, status: answer.status };
  if (answer.status >= 500) return { ...base, verdict: 'server-error', ...errorFields(answer) };
  const error = errorFields(answer);
  // A 4xx that is not one of the catalogue's errors is the document's own answer (an operation
  // that declares only 401, say): judged like any other answer.
  if (answer.status >= 400 && Object.hasOwn(ERRORS, error.code)) {
    // A stateful read of an id the seeded store does not hold: the API's own "not found", not a rejection.
    if (answer.status === 404 && error.code === 'resource_not_found') {
      const breach = contractBreach(judge, op, answer);
      if (!breach) return { ...base, verdict: 'not-found', ...error };
      if (breach.includes('not declared')) return { ...base, verdict: 'undeclared-not-found', ...error };
      return { ...base, verdict: 'contract', ...error, detail: `resource_not_found (a stateful read of an id the store lacks): ${breach}` };
    }
    return { ...base, verdict: 'rejected', ...error };
  }
  const breach = contractBreach(judge, op, answer);
  return breach ? { ...base, verdict: 'contract', detail: breach } : { ...base, verdict: 'ok' };
}

function errorFields(answer: Answer): { code: string; detail: string } {
  const { code, text } = errorSummary(answer);
  return { code, detail: text };
}

const closed = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
