import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { callbacksOf, deliversCallback, type CallbackSpec } from '../../src/openapi/callbacks.js';
import { valueAt } from '../../src/openapi/json-pointer.js';
import { readDocument } from '../../src/openapi/load-document.js';
import { parseYaml } from '../../src/openapi/parse-yaml.js';
import type { ApiModel } from '../../src/vocabulary/operation.js';

const OAI_EXAMPLE = 'test/unit/oai-callback-example.yaml';

const modelOf = async (path: string): Promise<ApiModel> => {
  const loaded = await readDocument(path);
  return buildApiModel(loaded.document, loaded.locate);
};

/** What a test compares: the spec less its parsed key, which the runtime-expression tests cover. */
const plain = ({ url: _url, ...rest }: CallbackSpec) => rest;

describe('callbacksOf: the OpenAPI Initiative’s callback example', () => {
  const parsed = parseYaml(readFileSync(OAI_EXAMPLE, 'utf8'), null) as Record<string, unknown>;

  it('finds onData under POST /streams, with its 202 and 204 as the answers that deliver it', () => {
    const { byOperation, warnings } = callbacksOf(parsed);
    expect(warnings).toEqual([]);
    expect([...byOperation.keys()]).toEqual(['#/paths/~1streams/post']);
    const pointer = '#/paths/~1streams/post/callbacks/onData/{$request.query.callbackUrl}~1data/post';
    expect(byOperation.get('#/paths/~1streams/post')?.map(plain)).toEqual([
      {
        name: 'onData',
        expression: '{$request.query.callbackUrl}/data',
        method: 'POST',
        pointer,
        requestBody: { mediaType: 'application/json', schemaPointer: `${pointer}/requestBody/content/application~1json/schema` },
        successStatuses: [202, 204],
        anySuccess: false,
      },
    ]);
    expect(valueAt(parsed, pointer)).toHaveProperty('responses');
  });

  it('is refused at load as published, for the schema it names and never defines', async () => {
    await expect(readDocument(OAI_EXAMPLE)).rejects.toThrow(
      '#/paths/~1streams/post/callbacks/onData/{$request.query.callbackUrl}~1data/post/requestBody/content/application~1json/schema/properties/userData: $ref #/components/schemas/UserLogData resolves nowhere',
    );
  });

  it('keys its callbacks by the pointers the model gives the operations, once the schema is defined', () => {
    const components = { schemas: { UserLogData: { type: 'object' } } };
    const model = buildApiModel({ ...parsed, components });
    const { byOperation } = callbacksOf(model.document);
    expect([...byOperation.keys()]).toEqual(model.operations.map((op) => op.pointer));
  });
});

describe('callbacksOf: an OpenAPI 3.1 document with shared callbacks and path items', async () => {
  const model = await modelOf('test/documents/callbacks.yaml');
  const { byOperation, warnings } = callbacksOf(model.document, model.locate);
  const create = byOperation.get('#/paths/~1orders/post') ?? [];

  it('keys them by OperationSpec.pointer, a path item behind a $ref included', () => {
    const declaring = model.operations.filter((op) => byOperation.has(op.pointer)).map((op) => op.id);
    expect(declaring).toEqual(['createOrder', 'cancelOrder']);
    expect([...byOperation.keys()]).toEqual(['#/paths/~1orders/post', '#/components/pathItems/OrderItem/delete']);
  });

  it('follows a callback and its path item into components, and keeps where they live', () => {
    const shared = {
      name: 'orderShipped',
      expression: '{$request.body#/callbackUrl}',
      method: 'POST',
      pointer: '#/components/pathItems/OrderEventDelivery/post',
      operationId: 'orderEventHook',
      requestBody: {
        mediaType: 'application/json',
        schemaPointer: '#/components/requestBodies/OrderEvent/content/application~1json/schema',
      },
      successStatuses: [202, 204],
      anySuccess: false,
    };
    expect(plain(create[0]!)).toEqual(shared);
    expect(byOperation.get('#/components/pathItems/OrderItem/delete')?.map(plain)).toEqual([{ ...shared, name: 'orderCancelled' }]);
  });

  it('reads an inline callback with a fixed URL around its expressions, and `2XX` as any 2xx', () => {
    const paid = create.find((c) => c.name === 'orderPaid');
    expect(paid && plain(paid)).toEqual({
      name: 'orderPaid',
      expression: 'https://hooks.example.test/paid?order={$response.body#/id}&status={$statusCode}',
      method: 'POST',
      pointer:
        '#/paths/~1orders/post/callbacks/orderPaid/https:~1~1hooks.example.test~1paid?order={$response.body#~1id}&status={$statusCode}/post',
      operationId: 'orderPaidHook',
      requestBody: {
        mediaType: 'application/json',
        schemaPointer: '#/components/requestBodies/OrderEvent/content/application~1json/schema',
      },
      successStatuses: [],
      anySuccess: true,
    });
    expect(valueAt(model.document, paid?.pointer ?? '')).toHaveProperty('operationId', 'orderPaidHook');
  });

  it('reads a fixed URL, a body with no schema, the 2xx among other statuses, and skips extensions', () => {
    const audit = create.filter((c) => c.name === 'audit').map(plain);
    expect(audit).toEqual([
      {
        name: 'audit',
        expression: 'https://audit.example.test/orders',
        method: 'PUT',
        pointer: '#/paths/~1orders/post/callbacks/audit/https:~1~1audit.example.test~1orders/put',
        requestBody: { mediaType: 'application/json', schemaPointer: undefined },
        successStatuses: [200, 204],
        anySuccess: false,
      },
    ]);
  });

  it('reads a bare expression as the key, and warns that a body declared as XML is sent as JSON', () => {
    const legacy = create.find((c) => c.name === 'legacy');
    expect(legacy?.expression).toBe('$request.body#/callbackUrl');
    expect(legacy?.requestBody?.mediaType).toBe('application/xml');
    expect(legacy).toMatchObject({ successStatuses: [], anySuccess: true });
    expect(warnings).toContain(
      '#/paths/~1orders/post/callbacks/legacy/$request.body#~1callbackUrl/post: callback legacy declares application/xml; the sandbox sends callbacks as application/json',
    );
  });

  it('leaves out, with a warning each, the keys it can never send to', () => {
    expect(create.map((c) => c.name)).toEqual(['orderShipped', 'orderPaid', 'audit', 'legacy']);
    const at = '#/paths/~1orders/post/callbacks/unusable';
    expect(warnings.filter((w) => w.startsWith(at))).toEqual([
      `${at}/~1relative~1path: callback unusable is never sent: its key /relative/path has no runtime expression and is not an absolute http(s) URL`,
      `${at}/https:~1~1hooks.example.test~1{id}: callback unusable is never sent: {id} in https://hooks.example.test/{id} is not a runtime expression (they start with "$")`,
      `${at}/{$request.body#~1callbackUrl: callback unusable is never sent: the "{" at character 1 of {$request.body#/callbackUrl is never closed`,
      `${at}/{$request.body#~1callbackUrl}~1empty: callback unusable declares no operation for {$request.body#/callbackUrl}/empty, so nothing is sent`,
    ]);
    expect(warnings).toHaveLength(5);
  });
});

describe('callbacksOf: documents with none, or broken ones', () => {
  it('finds none in a converted Swagger 2.0 document (2.0 has no callbacks)', async () => {
    const model = await modelOf('test/documents/swagger2-shop.yaml');
    expect(model.operations.length).toBeGreaterThan(0);
    expect(callbacksOf(model.document, model.locate)).toEqual({ byOperation: new Map(), warnings: [] });
  });

  it('finds none in a document with no paths, or in no document at all', () => {
    expect(callbacksOf({ openapi: '3.1.0', webhooks: {} }).byOperation.size).toBe(0);
    expect(callbacksOf(null).byOperation.size).toBe(0);
  });

  it('warns of a callback whose $ref leads nowhere or round in a circle, and never throws', () => {
    const document = {
      openapi: '3.1.0',
      paths: {
        '/a': {
          post: {
            callbacks: {
              gone: { $ref: '#/components/callbacks/Gone' },
              circle: { $ref: '#/components/callbacks/Circle' },
              odd: 'not a callback',
            },
          },
        },
      },
      components: { callbacks: { Circle: { $ref: '#/components/callbacks/Circle' } } },
    };
    const { byOperation, warnings } = callbacksOf(document);
    expect(byOperation.size).toBe(0);
    expect(warnings).toEqual([
      '#/paths/~1a/post/callbacks/gone: unresolvable reference #/components/callbacks/Gone at #/paths/~1a/post/callbacks/gone',
      '#/paths/~1a/post/callbacks/circle: circular reference #/components/callbacks/Circle at #/components/callbacks/Circle',
      '#/paths/~1a/post/callbacks/odd: callback odd is not a Callback Object and is ignored',
    ]);
  });

  it('reads a 3.2 callback path item’s additionalOperations, and QUERY only from 3.2 on', () => {
    const answered = { responses: { '200': { description: 'ok' } } };
    const document = (openapi: string) => ({
      openapi,
      paths: {
        '/a': { post: { callbacks: { hook: { '{$request.query.to}': { query: answered, additionalOperations: { NOTIFY: answered } } } } } },
      },
    });
    expect(
      callbacksOf(document('3.2.0'))
        .byOperation.get('#/paths/~1a/post')
        ?.map((c) => c.method),
    ).toEqual(['QUERY', 'NOTIFY']);
    expect(callbacksOf(document('3.1.1')).warnings).toEqual([
      '#/paths/~1a/post/callbacks/hook/{$request.query.to}: callback hook declares no operation for {$request.query.to}, so nothing is sent',
    ]);
  });
});

describe('deliversCallback: what the callback’s declared answers make of the receiver’s status', () => {
  // prettier-ignore
  it.each([
    [{ successStatuses: [202, 204], anySuccess: false }, 202, true],
    [{ successStatuses: [202, 204], anySuccess: false }, 204, true],
    [{ successStatuses: [202, 204], anySuccess: false }, 200, false],
    [{ successStatuses: [202, 204], anySuccess: false }, 410, false],
    [{ successStatuses: [], anySuccess: true }, 200, true],
    [{ successStatuses: [], anySuccess: true }, 299, true],
    [{ successStatuses: [], anySuccess: true }, 301, false],
    [{ successStatuses: [], anySuccess: true }, 500, false],
  ])('%j, %i → %s', (callback, status, delivered) => {
    expect(deliversCallback(callback, status)).toBe(delivered);
  });
});
