import { describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { keySlots, slotValue } from '../../src/mcp/key-placement.js';
import { SchemaDefs } from '../../src/mcp/json-schema.js';
import { toolNames } from '../../src/mcp/names.js';
import { inputSchema, streams } from '../../src/mcp/operation-tools.js';
import { operationRequest } from '../../src/mcp/request.js';
import type { ServedApi } from '../../src/mcp/target.js';
import type { OperationSpec } from '../../src/vocabulary/operation.js';

const none = { headers: {}, query: [], cookies: [] };

/** A small document with what tools must handle: styles, a recursive schema, schemes, a stream. */
function served(): ServedApi {
  const model = buildApiModel({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    servers: [{ url: 'https://api.example.com/v2' }],
    components: {
      securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' }, basic: { type: 'http', scheme: 'basic' } },
      schemas: {
        Node: {
          type: 'object',
          properties: {
            id: { type: 'integer', readOnly: true },
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
          },
          required: ['id', 'name'],
        },
      },
    },
    security: [{ key: [] }],
    paths: {
      '/nodes/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, description: 'The node.', schema: { type: 'integer' } }],
        put: {
          operationId: 'putNode',
          security: [{ basic: [] }],
          parameters: [
            { name: 'id', in: 'query', schema: { type: 'string' } },
            { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } }, explode: false },
            { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/nodes': {
        get: { operationId: 'listNodes', security: [], responses: { '200': { description: 'ok' } } },
      },
      '/events': {
        get: { responses: { '200': { description: 'events', content: { 'text/event-stream': { schema: { type: 'string' } } } } } },
      },
    },
  });
  return { model, basePath: model.basePath };
}

const op = (api: ServedApi, id: string): OperationSpec => api.model.operations.find((o) => o.id === id) as OperationSpec;

describe('tool names', () => {
  it('keep a valid operationId, clean others, and tell clashes apart by a digest of the id, in any order', () => {
    const ids = ['getPet', 'GET /pets/{petId}', 'a.b', 'a b', 'x'.repeat(80)];
    const names = toolNames(ids, 'api_');
    expect(names.get('getPet')).toBe('api_getPet');
    expect(names.get('GET /pets/{petId}')).toBe('api_GET_pets_petId');
    expect(names.get('a.b')).toMatch(/^api_a_b_[0-9a-f]{8}$/);
    expect(names.get('a b')).toMatch(/^api_a_b_[0-9a-f]{8}$/);
    expect(names.get('a.b')).not.toBe(names.get('a b'));
    expect(names.get('x'.repeat(80))).toHaveLength(64);
    const reversed = toolNames([...ids].reverse(), 'api_');
    for (const id of ids) expect(reversed.get(id)).toBe(names.get(id));
    for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(toolNames(['issueKey'], '', new Set(['issueKey'])).get('issueKey')).toMatch(/^issueKey_[0-9a-f]{8}$/);
  });
});

describe('input schemas', () => {
  it('copy each reference once under $defs, a recursive one included', () => {
    const defs = new SchemaDefs({ components: { schemas: { Node: { properties: { next: { $ref: '#/components/schemas/Node' } } } } } });
    expect(defs.schema('#/components/schemas/Node')).toEqual({ properties: { next: { $ref: '#/$defs/Node' } } });
    expect(defs.all()).toEqual({ Node: { properties: { next: { $ref: '#/$defs/Node' } } } });
  });

  it('group an operation’s parameters by location, its body as a request sees it, beside the tool’s own arguments', () => {
    const api = served();
    const schema = inputSchema(api, op(api, 'putNode'), { key: { type: 'string' } });
    expect(schema).toMatchObject({
      type: 'object',
      required: ['path', 'body'],
      additionalProperties: false,
      properties: {
        key: { type: 'string' },
        path: { properties: { id: { type: 'integer', description: 'The node.' } }, required: ['id'], additionalProperties: false },
        query: { properties: { id: { type: 'string' }, tags: { type: 'array' }, filter: { type: 'object' } } },
        // Header names in lower case, as the model keeps them (a call may write them in any case).
        header: { properties: { 'x-trace': { type: 'string' } } },
        body: { $ref: '#/$defs/Node' },
      },
    });
    // readOnly: not required of a request.
    expect(schema.$defs).toMatchObject({ Node: { required: ['name'] } });
  });

  it('leave out an operation whose every success is a stream', () => {
    const api = served();
    expect(api.model.operations.filter(streams).map((o) => o.id)).toEqual(['GET /events']);
  });
});

describe('a call as a request', () => {
  it('writes each argument in its parameter’s style, under the base path', () => {
    const api = served();
    const built = operationRequest(
      op(api, 'putNode'),
      api.basePath,
      {
        path: { id: 7 },
        query: { id: 'q', tags: ['a', 'b c'], filter: { status: 'on' } },
        header: { 'X-Trace': 't1' },
        body: { name: 'n' },
      },
      new Set(),
      none,
    );
    expect(built).toEqual({
      kind: 'request',
      request: {
        method: 'PUT',
        path: '/v2/nodes/7',
        query: 'id=q&tags=a,b%20c&filter%5Bstatus%5D=on',
        headers: { 'x-trace': 't1', 'content-type': 'application/json' },
        body: '{"name":"n"}',
      },
    });
  });

  it('refuses what it cannot place, every problem at once', () => {
    const api = served();
    const built = operationRequest(op(api, 'listNodes'), api.basePath, { plan: 'pro', path: { id: 1 }, body: {} }, new Set(['key']), none);
    expect(built).toMatchObject({ kind: 'invalid', error: { code: 'validation_failed', status: 400 } });
    const locations = built.kind === 'invalid' ? built.error.details?.map((d) => d.location) : [];
    expect(locations).toEqual(['plan', 'body', 'path.id']);
  });
});

describe('where a key goes', () => {
  it('follows the operation’s scheme, or the document’s first on a public operation', () => {
    const api = served();
    const schemes = api.model.securitySchemes;
    expect(keySlots(op(api, 'putNode'), schemes)).toEqual([{ in: 'header', name: 'authorization', scheme: 'Basic' }]);
    expect(slotValue({ in: 'header', name: 'authorization', scheme: 'Basic' }, 'k1')).toBe(
      `Basic ${Buffer.from('k1:').toString('base64')}`,
    );
    expect(keySlots(op(api, 'listNodes'), schemes)).toEqual([{ in: 'query', name: 'api_key' }]);
    expect(keySlots(op(api, 'GET /events'), schemes)).toEqual([{ in: 'query', name: 'api_key' }]);
  });
});
