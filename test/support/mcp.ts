import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

/** What a tool call answered: its body (JSON when it is), its status line and headers, whether it is a tool error. */
export interface Called {
  readonly isError: boolean;
  readonly body: unknown;
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

/** Calls a tool and reads its result as docs/mcp.md says it is laid out: the body, then `HTTP <status>` and the headers. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const result = await client.callTool({ name, arguments: args });
  const texts = (result.content as { type: string; text: string }[]).map((c) => c.text);
  const head = texts.at(-1)?.startsWith('HTTP ') ? texts.at(-1) : undefined;
  const bodyText = head === undefined ? texts[0] : texts.length > 1 ? texts[0] : undefined;
  const lines = head?.split('\n') ?? [];
  const headers = Object.fromEntries(lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
  let body: unknown = bodyText;
  try {
    body = bodyText === undefined ? undefined : JSON.parse(bodyText);
  } catch {
    // Not JSON: the text as it is.
  }
  return { isError: result.isError === true, body, status: head === undefined ? undefined : Number(lines[0]?.slice(5)), headers };
}

/**
 * What an agent does first, over any transport: list the tools, issue a key, create a pet through
 * the API's tool, move the clock past the minute, and read the journal's entries back.
 */
export async function agentScenario(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining(['issueKey', 'advanceClock', 'listRequests', 'verifyRequests', 'createRule', 'api_createPet']),
  );
  expect(names).toEqual(expect.arrayContaining(['find_api_operations', 'call_api_operation']));
  // A stream cannot be a tool's answer.
  expect(names).not.toContain('streamRequests');
  for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

  const issued = await call(client, 'issueKey', { body: { plan: 'pro', name: 'agent' } });
  expect(issued).toMatchObject({ isError: false, status: 201, body: { plan: 'pro', name: 'agent' } });
  const key = (issued.body as { key: string }).key;

  const created = await call(client, 'api_createPet', { key, body: { name: 'Rex', categoryId: 1 } });
  expect(created).toMatchObject({ isError: false, status: 201, body: { name: 'Rex' } });
  expect(created.headers.location).toMatch(/^\/v1\/pets\/\d+$/);
  expect(created.headers['x-ratelimit-remaining']).toBeDefined();

  const before = await call(client, 'getClock');
  const moved = await call(client, 'advanceClock', { body: { advanceSeconds: 61 } });
  expect(moved.body).toEqual({ now: (before.body as { now: number }).now + 61 });

  const id = (created.body as { id: number }).id;
  const read = await call(client, 'api_getPet', { key, path: { petId: id } });
  expect(read).toMatchObject({ status: 200, body: { id, name: 'Rex' } });

  const journal = await call(client, 'listRequests', { query: { key: 'agent' } });
  const entries = journal.body as { operationId?: string; status: number; time: number }[];
  expect(entries.map((e) => [e.operationId, e.status])).toEqual([
    ['getPet', 200],
    ['createPet', 201],
  ]);
  expect((entries[0]?.time ?? 0) - (entries[1]?.time ?? 0)).toBeGreaterThanOrEqual(61_000);
}
