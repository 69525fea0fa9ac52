import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { directionalView } from '../openapi/directional.js';
import { isObject, valueAt, type JsonObject } from '../openapi/json-pointer.js';
import type { OperationSpec, ParameterSpec } from '../vocabulary/operation.js';
import { SchemaDefs } from './json-schema.js';
import { bodyMedia, GROUPS } from './request.js';
import type { ServedApi } from './target.js';

/** A tool that calls one operation: its MCP description, and what its calls are made from. */
export interface OperationTool {
  readonly name: string;
  /** Its MCP description, made on first use: a large document's tools are reached one by one (catalogue.ts). */
  readonly tool: () => Tool;
  readonly operation: OperationSpec;
  /** The arguments the tool adds beside the operation's own (`key`, `prefer`), by name. */
  readonly own: ReadonlySet<string>;
}

/** Characters of an operation's description a tool's description keeps: a large document's tools stay readable. */
const DESCRIPTION_CHARS = 1200;

/**
 * An answer a tool cannot carry: every success is a stream (Server-Sent Events, OpenAPI 3.2's
 * `itemSchema`), which stays open. Such operations get no tool.
 */
export function streams(operation: OperationSpec): boolean {
  const successes = operation.responses.filter((r) => r.status.startsWith('2'));
  const media = successes.flatMap((r) => r.content);
  return media.length > 0 && media.every((m) => m.mediaType === 'text/event-stream' || m.itemSchemaPointer !== undefined);
}

/** The operation's own words: its summary and description, as the document writes them. */
export function operationWords(document: unknown, operation: OperationSpec): { readonly summary?: string; readonly description?: string } {
  const raw = valueAt(document, operation.pointer);
  const op = isObject(raw) ? raw : {};
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
  const summary = text(op.summary);
  const description = text(op.description);
  return { ...(summary !== undefined && { summary }), ...(description !== undefined && { description }) };
}

/** Where the parameter object is, from its schema's pointer (`…/parameters/0/schema`, `…/content/application~1json/schema`). */
function parameterDescription(document: unknown, parameter: ParameterSpec): string | undefined {
  const at = parameter.schemaPointer?.replace(/(?:\/content\/[^/]+)?\/schema$/, '');
  const raw = at === undefined ? undefined : valueAt(document, at);
  return isObject(raw) && typeof raw.description === 'string' ? raw.description.trim() : undefined;
}

const described = (schema: JsonObject, description: string | undefined): JsonObject =>
  description === undefined || typeof schema.description === 'string' ? schema : { ...schema, description };

/**
 * One JSON Schema object for an operation's arguments, taken from the document: its parameters
 * grouped by where they go (`path`, `query`, `header`, `cookie`: names stay as the document writes
 * them, and a name two locations share stays two arguments), its request body as `body` (in the
 * media type it is sent in), and the tool's own arguments. Schemas are read as a request sees them
 * (a `readOnly` property is not required: src/openapi/directional.ts), their references under `$defs`.
 */
export function inputSchema(api: ServedApi, operation: OperationSpec, own: Readonly<Record<string, JsonObject>>): JsonObject {
  const document = directionalView(api.model.document, 'request');
  const defs = new SchemaDefs(document);
  const properties: Record<string, unknown> = { ...own };
  const required: string[] = [];
  for (const group of GROUPS) {
    const parameters = operation.parameters.filter((p) => (p.in === 'querystring' ? 'query' : p.in) === group);
    if (parameters.length === 0) continue;
    const names = parameters.filter((p) => p.required).map((p) => p.name);
    properties[group] = {
      type: 'object',
      description: `The ${group} parameters, by name.`,
      properties: Object.fromEntries(
        parameters.map((p) => [p.name, described(defs.schema(p.schemaPointer), parameterDescription(document, p))]),
      ),
      ...(names.length > 0 && { required: names }),
      ...(group === 'path' && { additionalProperties: false }),
    };
    if (names.length > 0) required.push(group);
  }
  if (operation.requestBody !== undefined) {
    const media = bodyMedia(operation);
    properties.body = described(defs.schema(media?.schemaPointer), `The request body${media ? `, sent as ${media.mediaType}` : ''}.`);
    if (operation.requestBody.required) required.push('body');
  }
  const all = defs.all();
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
    ...(all !== undefined && { $defs: all }),
  };
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A tool for one operation: its name, its words, its input schema and its hints (MCP 2025-06-18 "Tool annotations"). */
export function operationTool(
  api: ServedApi,
  operation: OperationSpec,
  name: string,
  own: Readonly<Record<string, JsonObject>>,
  lead: string,
): OperationTool {
  let made: Tool | undefined;
  const make = (): Tool => {
    const { summary, description } = operationWords(api.model.document, operation);
    const more =
      description === undefined
        ? ''
        : `\n\n${description.length > DESCRIPTION_CHARS ? `${description.slice(0, DESCRIPTION_CHARS)}…` : description}`;
    const reads = READS.has(operation.method);
    return {
      name,
      ...(summary !== undefined && { title: summary }),
      description: `${lead}${summary === undefined ? '' : `: ${summary}`}${more}`,
      inputSchema: inputSchema(api, operation, own) as Tool['inputSchema'],
      annotations: {
        readOnlyHint: reads,
        ...(!reads && { destructiveHint: operation.method === 'DELETE' }),
        idempotentHint: reads || operation.method === 'PUT' || operation.method === 'DELETE',
      },
    };
  };
  return { name, operation, own: new Set(Object.keys(own)), tool: () => (made ??= make()) };
}
