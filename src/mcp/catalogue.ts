import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../openapi/json-pointer.js';
import { errorBody } from '../vocabulary/errors.js';
import type { ApiModel, OperationSpec } from '../vocabulary/operation.js';
import { keySlots, slotText, slotValue } from './key-placement.js';
import { toolNames } from './names.js';
import { operationTool, operationWords, streams, type OperationTool } from './operation-tools.js';
import { operationRequest, type Extra } from './request.js';
import { answerResult, errorResult, jsonResult } from './result.js';
import type { SandboxTarget, ServedApi } from './target.js';

/** The generic pair, there whatever the document's size: finding an operation, and calling one by its id. */
export const FIND_TOOL = 'find_api_operations';
export const CALL_TOOL = 'call_api_operation';
/**
 * Up to this many operations, each of the API's operations is a tool of its own (`api_<operationId>`);
 * above it, only the generic pair reaches them: hundreds of tools, each with its schemas, would
 * fill a model's context before its first call (decided in docs/mcp.md).
 */
export const OPERATION_TOOLS_MAX = 64;
/** Most operations `find_api_operations` answers at once. */
const FOUND_MAX = 50;

interface Tools {
  readonly list: readonly OperationTool[];
  readonly byName: ReadonlyMap<string, OperationTool>;
}

const made = new WeakMap<ApiModel, Tools>();

/** Tools for a model's operations (those a tool can carry), named once per model. */
function toolsOf(
  api: ServedApi,
  prefix: string,
  taken: ReadonlySet<string>,
  own: (operation: OperationSpec) => Record<string, JsonObject>,
): Tools {
  let tools = made.get(api.model);
  if (tools === undefined) {
    const operations = api.model.operations.filter((op) => !streams(op));
    const names = toolNames(
      operations.map((op) => op.id),
      prefix,
      taken,
    );
    const lead = (op: OperationSpec): string => `${op.method} ${api.basePath}${op.pathTemplate}`;
    const list = operations.map((op) => operationTool(api, op, names.get(op.id) ?? op.id, own(op), lead(op)));
    tools = { list, byName: new Map(list.map((t) => [t.name, t])) };
    made.set(api.model, tools);
  }
  return tools;
}

/** An API operation's own arguments beside its parameters: the key (where its scheme reads it) and `Prefer`. */
function apiArguments(api: ServedApi, operation: OperationSpec): Record<string, JsonObject> {
  const slots = keySlots(operation, api.model.securitySchemes);
  return {
    key: {
      type: 'string',
      description: `The API key to call with (listKeys lists the keys; issueKey makes one), sent in ${slotText(slots)}. Without it the request carries no credentials.`,
    },
    prefer: {
      type: 'string',
      description:
        'Sent as the Prefer header, to force an answer (docs/control-surface.md): code=404, example=<name>, dynamic=true, seed=42, delay=800.',
    },
  };
}

/** What the key and `Prefer` arguments add to a request. */
function apiExtra(api: ServedApi, operation: OperationSpec, args: Readonly<Record<string, unknown>>): Extra {
  const key = typeof args.key === 'string' && args.key !== '' ? args.key : undefined;
  const headers: Record<string, string> = typeof args.prefer === 'string' ? { prefer: args.prefer } : {};
  const query: string[] = [];
  const cookies: string[] = [];
  if (key === undefined) return { headers, query, cookies };
  for (const slot of keySlots(operation, api.model.securitySchemes)) {
    const value = slotValue(slot, key);
    if (slot.in === 'header') headers[slot.name] = value;
    else if (slot.in === 'query') query.push(`${encodeURIComponent(slot.name)}=${encodeURIComponent(value)}`);
    else cookies.push(`${slot.name}=${encodeURIComponent(value)}`);
  }
  return { headers, query, cookies };
}

/** The tools an MCP server lists now, and how each call is made. */
export interface Catalogue {
  readonly tools: readonly Tool[];
  /** The call's result, or undefined for a tool of no such name. */
  call(name: string, args: Readonly<Record<string, unknown>>): Promise<CallToolResult> | undefined;
}

/**
 * The catalogue: a tool per admin operation (named by its operationId: `openapi/admin.yaml` is the
 * one source, so a new admin operation is a new tool), a tool per API operation while the document
 * has at most OPERATION_TOOLS_MAX, and the generic pair. Every call is a request through the
 * sandbox's own handling.
 */
export async function catalogue(target: SandboxTarget, admin: ServedApi): Promise<Catalogue> {
  const api = await target.api();
  const adminTools = toolsOf(admin, '', new Set([FIND_TOOL, CALL_TOOL]), () => ({}));
  const own = (operation: OperationSpec): Record<string, JsonObject> => apiArguments(api, operation);
  const apiTools = toolsOf(api, 'api_', new Set([FIND_TOOL, CALL_TOOL, ...adminTools.byName.keys()]), own);
  const perOperation = apiTools.list.length <= OPERATION_TOOLS_MAX;
  const adminExtra: Extra = { headers: { authorization: `Bearer ${target.adminToken}` }, query: [], cookies: [] };

  const send = async (
    tool: OperationTool,
    served: ServedApi,
    args: Readonly<Record<string, unknown>>,
    extra: Extra,
  ): Promise<CallToolResult> => {
    const built = operationRequest(tool.operation, served.basePath, args, tool.own, extra);
    return built.kind === 'invalid' ? errorResult(built.error) : answerResult(await target.send(built.request));
  };
  const byId = new Map(apiTools.list.map((t) => [t.operation.id, t]));

  return {
    tools: [...adminTools.list.map((t) => t.tool()), ...(perOperation ? apiTools.list.map((t) => t.tool()) : []), ...genericTools()],
    call(name, args) {
      const adminTool = adminTools.byName.get(name);
      if (adminTool !== undefined) return send(adminTool, admin, args, adminExtra);
      const apiTool = perOperation ? apiTools.byName.get(name) : undefined;
      if (apiTool !== undefined) return send(apiTool, api, args, apiExtra(api, apiTool.operation, args));
      if (name === FIND_TOOL) return Promise.resolve(jsonResult(found(api, apiTools.list, args, perOperation)));
      if (name !== CALL_TOOL) return undefined;
      const id = args.operationId;
      const tool = typeof id === 'string' ? byId.get(id) : undefined;
      if (tool === undefined) {
        const error = errorBody('validation_failed', 'Invalid tool arguments: operationId', [
          { location: 'operationId', message: `no operation has this operationId (${FIND_TOOL} lists them)` },
        ]);
        return Promise.resolve(errorResult(error));
      }
      const { operationId: _id, ...rest } = args;
      return send(tool, api, rest, apiExtra(api, tool.operation, rest));
    },
  };
}

/** `find_api_operations`: the operations whose id, method, path or summary hold every word of `text`, with their input schemas. */
function found(api: ServedApi, tools: readonly OperationTool[], args: Readonly<Record<string, unknown>>, perOperation: boolean): object {
  const words = (typeof args.text === 'string' ? args.text : '').toLowerCase().split(/\s+/).filter(Boolean);
  const limit = typeof args.limit === 'number' && args.limit >= 1 ? Math.min(Math.floor(args.limit), FOUND_MAX) : 20;
  const matching = tools.filter(({ operation }) => {
    const seen =
      `${operation.id} ${operation.method} ${api.basePath}${operation.pathTemplate} ${operationWords(api.model.document, operation).summary ?? ''}`.toLowerCase();
    return words.every((word) => seen.includes(word));
  });
  return {
    matched: matching.length,
    operations: matching.slice(0, limit).map(({ operation, name, tool }) => {
      const { title, inputSchema } = tool();
      return {
        operationId: operation.id,
        ...(perOperation && { tool: name }),
        method: operation.method,
        path: `${api.basePath}${operation.pathTemplate}`,
        ...(title !== undefined && { summary: title }),
        inputSchema,
      };
    }),
  };
}

/** The generic pair's descriptions and schemas. */
function genericTools(): Tool[] {
  const group = (where: string): JsonObject => ({
    type: 'object',
    description: `The ${where} parameters, by name.`,
    additionalProperties: true,
  });
  return [
    {
      name: FIND_TOOL,
      title: 'Find API operations',
      description:
        "Finds the served API's operations whose operationId, method, path or summary contain every word of `text` " +
        `(all of them without it), up to \`limit\` (at most ${FOUND_MAX}), each with the input schema ${CALL_TOOL} takes for it.`,
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'Words to look for, any case (`pets create`).' },
          limit: { type: 'integer', minimum: 1, maximum: FOUND_MAX, default: 20 },
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: CALL_TOOL,
      title: 'Call an API operation',
      description:
        "Calls one of the served API's operations by its operationId, through the sandbox's own handling (validation, " +
        `rate limits, the journal). Its arguments are those ${FIND_TOOL} shows for the operation; errors come back as the sandbox's error body.`,
      inputSchema: {
        type: 'object',
        properties: {
          operationId: { type: 'string', description: `The operation to call (${FIND_TOOL} lists them).` },
          key: { type: 'string', description: 'The API key to call with, sent where the operation’s security scheme reads it.' },
          prefer: { type: 'string', description: 'Sent as the Prefer header, to force an answer: code=404, example=<name>, dynamic=true.' },
          path: group('path'),
          query: group('query'),
          header: group('header'),
          cookie: group('cookie'),
          body: { description: 'The request body.' },
        },
        required: ['operationId'],
        additionalProperties: false,
      },
    },
  ];
}
