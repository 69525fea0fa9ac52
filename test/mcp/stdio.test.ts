import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN_FLAGS, CLI, runCli, startCli } from '../support/cli.js';
import { agentScenario, call } from '../support/mcp.js';

/** The built CLI's `mcp` command, spawned by the SDK's own stdio client. */
async function connect(args: readonly string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...BIN_FLAGS, CLI, 'mcp', ...args],
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'understudy-test', version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, stderr: () => stderr };
}

describe('understudy mcp (stdio)', () => {
  it('starts a sandbox in its process: an agent issues a key, creates a pet, moves the clock and reads the journal', async () => {
    const { client, stderr } = await connect(['--port', '0']);
    await agentScenario(client);
    // The start's lines went to standard error: standard output carried MCP alone (the client read nothing else).
    expect(stderr()).toMatch(
      /understudy: serving Pet Store 1\.0\.0 over MCP on standard input and output, and at http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    expect(client.getInstructions()).toMatch(/at http:\/\/127\.0\.0\.1:\d+\/v1/);
  });

  it('tells the client its tool list changed when a reload made a new generation', async () => {
    const { client } = await connect(['--port', '0']);
    await client.listTools();
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    expect(await call(client, 'reloadSandbox')).toMatchObject({ status: 200, body: { ok: true, generation: 2 } });
    await changed;
    expect((await call(client, 'getStatus')).body).toMatchObject({ generation: 2 });
  });

  it('attaches to a sandbox already running, by its URL and admin token', async () => {
    const running = await startCli(['--admin-token', 'attach-token', '--no-watch']);
    const origin = running.url.replace(/\/v1$/, '');
    const { client } = await connect(['--attach', origin, '--admin-token', 'attach-token']);
    await agentScenario(client);
    // The running sandbox did the work: its own admin API sees the key the agent issued.
    const keys = await fetch(`${origin}/__sandbox/keys`, { headers: { authorization: 'Bearer attach-token' } });
    expect(((await keys.json()) as { keys: { name?: string }[] }).keys.map((k) => k.name)).toContain('agent');
  });

  it('will not attach with a wrong admin token: it says why on standard error and exits 1', async () => {
    const running = await startCli(['--admin-token', 'attach-token', '--no-watch']);
    const { code, stdout, stderr } = await runCli(['mcp', '--attach', running.url.replace(/\/v1$/, ''), '--admin-token', 'not-the-token']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('admin_unauthorized');
  });

  it('writes nothing but MCP to standard output, and stops when its input ends', async () => {
    const child = spawn(process.execPath, [...BIN_FLAGS, CLI, 'mcp', '--port', '0']);
    onTestFinished(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let out = '';
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        // Two whole messages: each ends its line.
        if (out.split('\n').length > 2) resolve();
      }),
    );
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    await answered;
    const messages = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number });
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  });

  it('lists in --help exactly the options docs/mcp.md lists, and refuses --attach beside an option that starts a sandbox', async () => {
    const { code, stdout } = await runCli(['mcp', '--help']);
    expect(code).toBe(0);
    const page = await readFile(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
    const listed = /```text\nunderstudy mcp \[options\]\n([\s\S]*?)```/.exec(page)?.[1];
    const options = /\nOptions:\n([\s\S]*?)$/.exec(stdout)?.[1];
    expect(options).toBeDefined();
    expect(listed).toBe(options);
    const both = await runCli(['mcp', '--attach', 'http://127.0.0.1:4010', '--spec', 'x.yaml']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--spec');
  });
});
