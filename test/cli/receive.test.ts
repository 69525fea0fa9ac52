import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN_FLAGS, CLI, runCli, startCli } from '../support/cli.js';
import { exitOf, pollFor } from '../support/processes.js';

/**
 * `understudy receive`, the built CLI as a reader runs it (`npm run receive` runs the same bin):
 * the answers it gives, the lines it prints, and a real sandbox delivering to it.
 */

/** The specification's worked example's secret. */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_' + Buffer.alloc(24, 7).toString('base64');

interface Receiving {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once standard output holds a line matching `pattern`, and gives that line. */
  readonly line: (pattern: RegExp) => Promise<string>;
  readonly child: ReturnType<typeof spawn>;
}

/** Starts `understudy receive` on a free port, stopped when the test ends. */
async function startReceive(args: readonly string[]): Promise<Receiving> {
  const child = spawn(process.execPath, [...BIN_FLAGS, CLI, 'receive', '--port', '0', ...args]);
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const gone = (): string | undefined =>
    child.exitCode === null && child.signalCode === null ? undefined : `it exited:\n${stdout}${stderr}`;
  const url = await pollFor(async () => /listening on (http:\/\/\S+)/.exec(stdout + stderr)?.[1], { gone });
  const line = (pattern: RegExp): Promise<string> =>
    pollFor(async () => stdout.split('\n').find((l) => pattern.test(l)), { gone, forMs: 10_000 });
  return { url, stdout: () => stdout, stderr: () => stderr, line, child };
}

/** A POST signed with `secret` as the sandbox signs its deliveries. */
async function post(url: string, body: string, secret = SECRET, id = 'msg_test1'): Promise<Response> {
  const signature = new Webhook(secret).sign(id, new Date(), body);
  return fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': signature,
    },
  });
}

const EVENT = JSON.stringify({ type: 'pets.created', timestamp: '2026-11-28T10:00:00.000Z', data: { id: '121' } });

describe('understudy receive', () => {
  it('answers 503 to the first request with --fail 1, then 204, and prints a line for each', async () => {
    const receiver = await startReceive(['--fail', '1']);
    expect(receiver.stdout()).toContain('answering 503 to the first request, then 204');

    const first = await post(`${receiver.url}/hooks`, EVENT);
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ code: 'receiver_failing', status: 503 });
    const second = await post(`${receiver.url}/hooks`, EVENT);
    expect(second.status).toBe(204);
    const other = await fetch(`${receiver.url}/anything?x=1`);
    expect(other.status).toBe(204);

    expect(await receiver.line(/→ 503/)).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} POST \/hooks webhook-id=msg_test1 type=pets\.created → 503 \(--fail: 1 of 1\)$/,
    );
    expect(await receiver.line(/POST .*→ 204/)).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} POST \/hooks webhook-id=msg_test1 type=pets\.created → 204$/,
    );
    expect(await receiver.line(/GET/)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/anything\?x=1 → 204$/);
  });

  it('checks signatures with --secret: a good one verified, a bad or missing one answered 401, not counted among --fail', async () => {
    const receiver = await startReceive(['--secret', SECRET, '--fail', '1']);
    const forged = await post(`${receiver.url}/hooks`, EVENT, OTHER_SECRET);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ code: 'invalid_signature', status: 401 });
    const unsigned = await fetch(`${receiver.url}/hooks`, { method: 'POST', body: EVENT });
    expect(unsigned.status).toBe(401);
    // The two refused did not use up --fail's one 503.
    expect((await post(`${receiver.url}/hooks`, EVENT)).status).toBe(503);
    expect((await post(`${receiver.url}/hooks`, EVENT)).status).toBe(204);

    expect(await receiver.line(/→ 401/)).toMatch(/→ 401 signature INVALID \(No matching signature found\)$/);
    expect(await receiver.line(/→ 401 signature INVALID \(Missing/)).toContain('POST /hooks type=pets.created');
    expect(await receiver.line(/→ 503/)).toMatch(/→ 503 signature verified \(--fail: 1 of 1\)$/);
    expect(await receiver.line(/→ 204/)).toMatch(/→ 204 signature verified$/);
  });

  it('prints each request as one JSON line with --json, its headers and body whole, and nothing else on stdout', async () => {
    const receiver = await startReceive(['--json', '--status', '500', '--secret', SECRET]);
    expect(receiver.stderr()).toContain('listening on');
    const answer = await post(`${receiver.url}/hooks`, EVENT);
    expect(answer.status).toBe(500);
    expect(await answer.json()).toMatchObject({ code: 'receiver_status', status: 500 });
    await receiver.line(/\}$/);
    const lines = receiver.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(printed).toMatchObject({
      method: 'POST',
      path: '/hooks',
      webhookId: 'msg_test1',
      type: 'pets.created',
      status: 500,
      signature: 'verified',
      body: EVENT,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_test1' },
    });
    expect(Date.parse(String(printed.time))).not.toBeNaN();
  });

  it('answers 413 to a body over a mebibyte, in the error shape', async () => {
    const receiver = await startReceive([]);
    const answer = await fetch(`${receiver.url}/hooks`, { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(await receiver.line(/→ 413/)).toMatch(/POST \/hooks → 413 \(the body is larger than 1048576 bytes\)$/);
  });

  it('stops cleanly on SIGINT and on SIGTERM, saying how many requests it took', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const receiver = await startReceive([]);
      await fetch(`${receiver.url}/hooks`);
      await receiver.line(/→ 204/);
      receiver.child.kill(signal);
      expect(await exitOf(receiver.child)).toBe(0);
      expect(receiver.stdout()).toContain(`understudy receive: ${signal}: stopped after 1 request\n`);
      expect(receiver.stderr()).toBe('');
    }
  });

  it('says in one line that the port is in use, with no stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const { code, stdout, stderr } = await runCli(['receive', '--port', String(port)]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`understudy receive: cannot listen on 127.0.0.1:${port}: the port is in use (--port chooses another)\n`);
  });

  it('prints its options with --help, and refuses a bad option or secret with exit code 2', async () => {
    const help = await runCli(['receive', '--help']);
    expect(help.code).toBe(0);
    for (const option of ['--port', '--host', '--fail', '--status', '--secret', '--json']) expect(help.stdout).toContain(option);
    for (const args of [['--colour'], ['--fail', '-1'], ['--status', '99'], ['--port', 'x'], ['--secret', 'whsec_short']]) {
      const { code, stderr } = await runCli(['receive', ...args]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr.split('\n')[0], args.join(' ')).toMatch(/^understudy receive: /);
    }
  });

  it('is listed in the main --help', async () => {
    const { stdout } = await runCli(['--help']);
    expect(stdout).toMatch(/understudy receive \[--port N\] \[--fail N\]/);
  });

  it('takes a real sandbox’s delivery: the first answered 503, the retry due five seconds later delivered once the clock moves', async () => {
    const token = 'receive-test-token';
    const sandbox = await startCli(['--admin-token', token, '--no-watch']);
    const receiver = await startReceive(['--fail', '1', '--secret', SECRET]);
    const base = sandbox.url.replace(/\/v1$/, '');
    const admin = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

    const subscribed = await fetch(`${base}/__sandbox/webhooks`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ event: 'pets.created', url: `${receiver.url}/hooks`, secret: SECRET }),
    });
    expect(subscribed.status).toBe(201);
    const created = await fetch(`${sandbox.url}/pets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer demo-pro', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);

    expect(await receiver.line(/→ 503/)).toMatch(
      /POST \/hooks webhook-id=msg_\S+ type=pets\.created → 503 signature verified \(--fail: 1 of 1\)$/,
    );
    type Deliveries = { deliveries: { status: string; nextAttemptAt?: number; attempts: { response?: { status: number } }[] }[] };
    const deliveries = async (): Promise<Deliveries['deliveries']> =>
      ((await (await fetch(`${base}/__sandbox/webhooks/deliveries`, { headers: admin })).json()) as Deliveries).deliveries;
    // The retry is scheduled once the first attempt is recorded: the clock moves after that.
    await pollFor(async () => ((await deliveries())[0]?.nextAttemptAt === undefined ? undefined : true));
    const moved = await fetch(`${base}/__sandbox/clock`, { method: 'POST', headers: admin, body: JSON.stringify({ advanceSeconds: 5 }) });
    expect(moved.status).toBe(200);

    expect(await receiver.line(/→ 204/)).toMatch(/POST \/hooks webhook-id=msg_\S+ type=pets\.created → 204 signature verified$/);
    const [delivery] = await pollFor(async () => {
      const now = await deliveries();
      return now[0]?.status === 'delivered' ? now : undefined;
    });
    expect(delivery?.attempts.map((a) => a.response?.status)).toEqual([503, 204]);
  });
});
