import { readFile } from 'node:fs/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN_DOCUMENT, ADMIN_PREFIX } from '../admin/admin-surface.js';
import { PACKAGE_ROOT } from '../config/defaults.js';
import { buildApiModel } from '../openapi/build-model.js';
import { loadDocument } from '../openapi/load-document.js';
import { CALL_TOOL, catalogue, FIND_TOOL, OPERATION_TOOLS_MAX } from './catalogue.js';
import type { SandboxTarget, ServedApi } from './target.js';

let adminApi: Promise<ServedApi> | undefined;

/** The admin API as tools see it: compiled from `openapi/admin.yaml` once per process. */
export function adminTools(cacheDir: string | null): Promise<ServedApi> {
  return (adminApi ??= loadDocument(ADMIN_DOCUMENT, cacheDir).then((document) => ({
    model: buildApiModel(document),
    basePath: ADMIN_PREFIX,
  })));
}

/** The package's version, for the server's name (from package.json, beside dist/ and src/ alike). */
let version: string | undefined;
function packageVersion(): Promise<string> {
  if (version !== undefined) return Promise.resolve(version);
  return readFile(`${PACKAGE_ROOT}package.json`, 'utf8').then(
    (text) => (version = String((JSON.parse(text) as { version?: unknown }).version)),
  );
}

/**
 * The MCP server for one sandbox: its tools (catalogue.ts, listed again on each request, so a reload
 * shows) and its resources (the served document, the state model, the README). Tools are answered
 * by the SDK's low-level handlers: their input schemas are JSON Schema taken from the documents, which
 * McpServer's own `registerTool` (Zod schemas) cannot take.
 */
export async function createMcpServer(target: SandboxTarget, admin: ServedApi, { followReloads = false } = {}): Promise<McpServer> {
  const api = await target.api();
  const server = new McpServer(
    { name: 'understudy', title: `Understudy: ${api.model.title} sandbox`, version: await packageVersion() },
    { capabilities: { tools: { listChanged: followReloads }, resources: {} }, instructions: instructions(target, api) },
  );
  /** The API the client last listed tools for: a call after a reload tells it the list changed (with `followReloads`, a session's). */
  let listed = api.model;
  server.server.setRequestHandler(ListToolsRequestSchema, async () => {
    listed = (await target.api()).model;
    return { tools: [...(await catalogue(target, admin)).tools] };
  });
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const result = await (await catalogue(target, admin)).call(name, args);
    if (result === undefined) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    if (followReloads && (await target.api()).model !== listed) {
      listed = (await target.api()).model;
      await server.server.sendToolListChanged();
    }
    return result;
  });
  const adminRead = async (path: string, uri: URL) => {
    const answer = await target.send({
      method: 'GET',
      path: `${ADMIN_PREFIX}${path}`,
      query: '',
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    if (answer.status !== 200 || answer.text === undefined)
      throw new McpError(ErrorCode.InternalError, answer.text ?? answer.fault ?? `status ${answer.status}`);
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: answer.text }] };
  };
  server.registerResource(
    'document',
    'understudy://document',
    {
      title: 'The served OpenAPI document',
      description: 'The document the sandbox serves, as it reads it (bundled into one, its servers the base path it is served under).',
      mimeType: 'application/json',
    },
    (uri) => adminRead('/document', uri),
  );
  server.registerResource(
    'model',
    'understudy://model',
    {
      title: 'What the sandbox keeps',
      description:
        'The state model: each collection, its id property and kind, its views, filters and paging; what is answered from the document.',
      mimeType: 'application/json',
    },
    (uri) => adminRead('/model', uri),
  );
  server.registerResource(
    'readme',
    'understudy://readme',
    { title: 'Understudy README', description: 'What the sandbox is, how to start it, and where the docs are.', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await readFile(`${PACKAGE_ROOT}README.md`, 'utf8') }] }),
  );
  return server;
}

/** What a client's model is told of the server before its first call. */
function instructions(target: SandboxTarget, api: ServedApi): string {
  const served = target.origin === undefined ? 'in this process only (not over HTTP)' : `at ${target.origin}${api.basePath}`;
  return [
    `Understudy serves a sandbox of ${api.model.title} ${api.model.version} ${served}: it validates every request against the OpenAPI document, keeps what is written, enforces each plan's rate limits and runs on a clock you can move.`,
    `Admin tools are named by the admin API's operationIds (issueKey, advanceClock, listRequests, verifyRequests, createRule…). ` +
      `The API's operations are api_<operationId> tools when the document has at most ${OPERATION_TOOLS_MAX}, and always ${FIND_TOOL} and ${CALL_TOOL}; each takes a key (listKeys, issueKey) and sends it where the document's security scheme says.`,
    'Arguments are grouped as the document places them: path, query, header, cookie, body. An answer of 400 or more is a tool error carrying the sandbox error body {code, message, status, details}.',
    'Resources: understudy://document (the served document), understudy://model (what the sandbox keeps), understudy://readme.',
  ].join('\n');
}
