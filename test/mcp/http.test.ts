import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { createSandboxServer, drain } from '../../src/http/server.js';
import { agentScenario, call } from '../support/mcp.js';
import { OPERATION_TOOLS_MAX } from '../../src/mcp/catalogue.js';
import { ADMIN_TOKEN, EDGES, START, sandboxForTest } from '../support/sandbox.js';

/** The sandbox on a real loopback server, for one test. */
async function served(overrides: Parameters<typeof sandboxForTest>[0] = {}): Promise<{ url: string; sandbox: Sandbox }> {
  const sandbox = await sandboxForTest(overrides);
  const server = createSandboxServer(sandbox);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => drain(server, 1000));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sandbox };
}

/** The SDK's own client over Streamable HTTP, with the admin token. */
async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'understudy-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/__sandbox/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** One JSON-RPC message POSTed as a client would, with the headers MCP's Streamable HTTP asks for. */
const post = (url: string, message: object, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${url}/__sandbox/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });

const toolCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'resetSandbox', arguments: {} } };

describe('MCP over Streamable HTTP at /__sandbox/mcp', () => {
  it('lets an agent issue a key, create a pet, move the clock and read the journal', async () => {
    const { url } = await served();
    await agentScenario(await connect(url));
  });

  it.each([
    ['no token', {}, undefined],
    ['a wrong token', { authorization: 'Bearer not-the-token' }, 'invalid_token'],
    ['a plan key', { authorization: 'Bearer demo-enterprise' }, 'invalid_token'],
  ])('refuses a tool call with %s: 401 in the Error shape, before any MCP', async (_, headers, error) => {
    const { url } = await served();
    const res = await post(url, toolCall, headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toEqual(
      error === undefined ? 'Bearer realm="understudy-admin"' : expect.stringContaining(`error="${error}"`),
    );
    expect(await res.json()).toEqual({ code: 'admin_unauthorized', message: expect.any(String), status: 401 });
  });

  it('refuses the SDK client without the token (its connect fails on the 401)', async () => {
    const { url } = await served();
    const client = new Client({ name: 'understudy-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${url}/__sandbox/mcp`)))).rejects.toThrow(/401|admin/);
  });

  it('answers GET and DELETE 405 (stateless: no stream, no session), in the Error shape', async () => {
    const { url } = await served();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${url}/__sandbox/mcp`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toMatchObject({ code: 'method_not_allowed', status: 405 });
    }
  });

  it('puts a refusal of the transport in the Error shape too (an Accept without JSON and SSE: 406)', async () => {
    const { url } = await served();
    const res = await post(url, toolCall, { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(await res.json()).toMatchObject({ code: 'not_acceptable', status: 406 });
  });

  it('is not there when the admin API is off', async () => {
    const { url } = await served({ adminToken: null });
    const res = await post(url, toolCall, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'route_not_found' });
  });

  it('answers a refusal of the sandbox as a tool error carrying its error body', async () => {
    const { url } = await served();
    const client = await connect(url);
    expect(await call(client, 'api_getPet', { path: { petId: 1 } })).toMatchObject({
      isError: true,
      status: 401,
      body: { code: 'missing_credentials', status: 401 },
    });
    const invalid = await call(client, 'api_createPet', { key: 'demo-pro', body: { name: 42 } });
    expect(invalid).toMatchObject({ isError: true, status: 400, body: { code: 'validation_failed', status: 400 } });
    expect((invalid.body as { details: { location: string }[] }).details.map((d) => d.location)).toEqual(['body.categoryId', 'body.name']);
    expect(await call(client, 'issueKey', { body: { plan: 'platinum' } })).toMatchObject({
      isError: true,
      body: { code: 'validation_failed', details: [{ location: 'body.plan' }] },
    });
  });

  it('refuses arguments it cannot place, in the same shape, before any request', async () => {
    const { url } = await served();
    const client = await connect(url);
    const flat = await call(client, 'issueKey', { plan: 'pro' });
    expect(flat).toMatchObject({ isError: true, body: { code: 'validation_failed', details: [{ location: 'plan' }] } });
    expect(await call(client, 'api_getPet', { key: 'demo-pro' })).toMatchObject({
      isError: true,
      body: { code: 'validation_failed', details: [{ location: 'path.petId', message: 'is required' }] },
    });
    expect(await call(client, 'call_api_operation', { operationId: 'nope' })).toMatchObject({
      isError: true,
      body: { code: 'validation_failed', details: [{ location: 'operationId' }] },
    });
  });

  it('forces an answer with prefer, and finds and calls an operation by its id', async () => {
    const { url } = await served();
    const client = await connect(url);
    const forced = await call(client, 'api_getPet', { key: 'demo-pro', path: { petId: 1 }, prefer: 'code=404' });
    expect(forced).toMatchObject({ isError: true, status: 404, headers: { 'preference-applied': 'code=404' } });
    const found = await call(client, 'find_api_operations', { text: 'pets get' });
    const operations = (found.body as { operations: { operationId: string; tool: string; inputSchema: object }[] }).operations;
    expect(operations.map((o) => o.operationId)).toEqual(expect.arrayContaining(['listPets', 'getPet']));
    expect(operations.find((o) => o.operationId === 'getPet')).toMatchObject({ tool: 'api_getPet', inputSchema: { type: 'object' } });
    const listed = await call(client, 'call_api_operation', { operationId: 'listPets', key: 'demo-free', query: { limit: 2 } });
    expect(listed).toMatchObject({ isError: false, status: 200 });
    expect(listed.body).toHaveLength(2);
  });

  it('gives a document of more than 64 operations no tool each: the generic pair finds and calls them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-mcp-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const paths = Object.fromEntries(
      Array.from({ length: OPERATION_TOOLS_MAX + 1 }, (_, i) => [
        `/things${i}/{id}`,
        {
          get: {
            operationId: `getThing${i}`,
            summary: `Read thing ${i}`,
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, example: { n: i } } } } },
          },
        },
      ]),
    );
    const spec = join(dir, 'many.json');
    writeFileSync(spec, JSON.stringify({ openapi: '3.1.0', info: { title: 'Many', version: '1' }, paths }));
    const { url } = await served({ spec, fixtures: null });
    const client = await connect(url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('api_'))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['find_api_operations', 'call_api_operation', 'issueKey']));
    const found = await call(client, 'find_api_operations', { text: 'thing 12' });
    expect(found.body).toMatchObject({ matched: 1, operations: [{ operationId: 'getThing12', method: 'GET', path: '/things12/{id}' }] });
    const called = await call(client, 'call_api_operation', { operationId: 'getThing12', path: { id: 'a' } });
    expect(called).toMatchObject({ isError: false, status: 200, body: { n: 12 } });
  });

  it('serves the document, the state model and the README as resources', async () => {
    const { url, sandbox } = await served();
    const client = await connect(url);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['understudy://document', 'understudy://model', 'understudy://readme']);
    const read = async (uri: string): Promise<string> => ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(JSON.parse(await read('understudy://document'))).toMatchObject({
      info: { title: sandbox.model.title },
      servers: [{ url: '/v1' }],
    });
    expect(JSON.parse(await read('understudy://model'))).toMatchObject({
      collections: expect.arrayContaining([expect.objectContaining({ name: 'pets' })]),
    });
    expect(await read('understudy://readme')).toMatch(/^# Understudy/);
  });
});

describe.each(EDGES)('MCP through the $name', ({ make }) => {
  it('answers a tool call POSTed alone (stateless: no initialize first), as JSON', async () => {
    const app = make(await sandboxForTest());
    const res = await request(app)
      .post('/__sandbox/mcp')
      .set({ authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' })
      .send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'getClock', arguments: {} } }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeDefined();
    const answer = JSON.parse(res.text) as { id: number; result: { content: { text: string }[] } };
    expect(answer.id).toBe(7);
    expect(JSON.parse(answer.result.content[0]?.text ?? '')).toEqual({ now: Date.parse(START) / 1000 });
  });
});
