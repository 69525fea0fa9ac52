import { describe, expect, it } from 'vitest';
import {
  evaluateExpression,
  expandTemplate,
  parseExpression,
  parseTemplate,
  type ExpressionContext,
} from '../../src/webhooks/runtime-expression.js';

/**
 * The exchange of OpenAPI 3.1's own examples (§4.8.18.3 and §4.8.20.4): a subscription request
 * with a path parameter `eventType` and a query parameter `queryUrl`, answered 201.
 */
const SUBSCRIBE: ExpressionContext = {
  url: 'http://example.org/subscribe/myevent?queryUrl=http://clientdomain.com/stillrunning',
  method: 'POST',
  statusCode: 201,
  request: {
    headers: { host: 'example.org', 'content-type': 'application/json', 'content-length': '187', accept: 'application/json' },
    query: { queryUrl: 'http://clientdomain.com/stillrunning', repeated: ['first', 'second'] },
    path: { eventType: 'myevent' },
    body: {
      failedUrl: 'http://clientdomain.com/failed',
      successUrls: ['http://clientdomain.com/fast', 'http://clientdomain.com/medium', 'http://clientdomain.com/slow'],
      user: { uuid: '6f1c6f9e-5a4b-4d1e-9a43-2f7c3c9b1a10', email: 'ada@example.com' },
      id: 42,
      'a/b': 'slash',
      'm~n': 'tilde',
      'a b': 'space',
      '100%': 'percent',
      nothing: null,
      flag: true,
    },
  },
  response: {
    headers: { Location: 'http://example.org/subscription/1', server: 'Understudy', 'x-empty': undefined },
    body: { status: 'active', id: 'sub_1', items: [{ id: 'a' }, { id: 'b' }] },
  },
};

describe('runtime expressions: the forms of the specification’s own tables', () => {
  // prettier-ignore
  it.each([
    // §4.8.20.4, "Examples".
    ['$method', 'POST'],
    ['$request.header.accept', 'application/json'],
    ['$request.path.eventType', 'myevent'],
    ['$request.body#/user/uuid', '6f1c6f9e-5a4b-4d1e-9a43-2f7c3c9b1a10'],
    ['$url', 'http://example.org/subscribe/myevent?queryUrl=http://clientdomain.com/stillrunning'],
    ['$response.body#/status', 'active'],
    ['$response.header.Server', 'Understudy'],
    // §4.8.18.3, the callback example's table.
    ['$request.query.queryUrl', 'http://clientdomain.com/stillrunning'],
    ['$request.header.content-Type', 'application/json'],
    ['$request.body#/failedUrl', 'http://clientdomain.com/failed'],
    // The table says `medium` for index 2; RFC 6901 counts from 0, so index 2 is `slow` and 1 `medium`.
    ['$request.body#/successUrls/2', 'http://clientdomain.com/slow'],
    ['$request.body#/successUrls/1', 'http://clientdomain.com/medium'],
    ['$response.header.Location', 'http://example.org/subscription/1'],
    ['$response.header.location', 'http://example.org/subscription/1'],
    ['$statusCode', '201'],
  ])('%s → %s', (expression, value) => {
    expect(evaluateExpression(expression, SUBSCRIBE)).toEqual({ ok: true, value });
  });

  // prettier-ignore
  it.each([
    ['$request.body#/id', '42'],
    ['$request.body#/flag', 'true'],
    ['$request.body#/user', '{"uuid":"6f1c6f9e-5a4b-4d1e-9a43-2f7c3c9b1a10","email":"ada@example.com"}'],
    ['$response.body#/items/0', '{"id":"a"}'],
    ['$response.body#/items/1/id', 'b'],
    ['$response.body', '{"status":"active","id":"sub_1","items":[{"id":"a"},{"id":"b"}]}'],
    ['$response.body#', '{"status":"active","id":"sub_1","items":[{"id":"a"},{"id":"b"}]}'],
    ['$request.query.repeated', 'first'],
  ])('values that are not strings are written as JSON: %s → %s', (expression, value) => {
    expect(evaluateExpression(expression, SUBSCRIBE)).toEqual({ ok: true, value });
  });

  // prettier-ignore
  it.each([
    ['$request.body#/a~1b', 'slash'],
    ['$request.body#/m~0n', 'tilde'],
    ['$request.body#/a%20b', 'space'],
    ['$request.body#/100%', 'percent'],
    ['$request.body#/100%25', 'percent'],
    ['$request.body#/successUrls/%30', 'http://clientdomain.com/fast'],
  ])('pointer escapes (RFC 6901 §4) and percent-encoding (§6): %s → %s', (expression, value) => {
    expect(evaluateExpression(expression, SUBSCRIBE)).toEqual({ ok: true, value });
  });

  it('reads the fixed words case-insensitively (RFC 5234 §2.3), the names after them as written', () => {
    expect(evaluateExpression('$Request.Header.Content-Type', SUBSCRIBE)).toEqual({ ok: true, value: 'application/json' });
    expect(evaluateExpression('$STATUSCODE', SUBSCRIBE)).toEqual({ ok: true, value: '201' });
    expect(evaluateExpression('$request.path.EventType', SUBSCRIBE)).toMatchObject({ ok: false });
    expect(evaluateExpression('$request.query.queryurl', SUBSCRIBE)).toMatchObject({ ok: false });
  });
});

describe('runtime expressions that name nothing, or are no expression', () => {
  // prettier-ignore
  it.each([
    ['$request.header.x-missing', '{$request.header.x-missing} names nothing: the request has no x-missing header'],
    ['$response.header.x-empty', '{$response.header.x-empty} names nothing: the response has no x-empty header'],
    ['$request.query.nope', '{$request.query.nope} names nothing: the request has no query parameter nope'],
    ['$request.path.id', '{$request.path.id} names nothing: the request has no path parameter id'],
    ['$request.body#/user/name', '{$request.body#/user/name} names nothing: the request body has nothing at #/user/name'],
    ['$request.body#/successUrls/3', '{$request.body#/successUrls/3} names nothing: the request body has nothing at #/successUrls/3'],
    ['$request.body#/successUrls/01', '{$request.body#/successUrls/01} names nothing: the request body has nothing at #/successUrls/01'],
    ['$request.body#/successUrls/-', '{$request.body#/successUrls/-} names nothing: the request body has nothing at #/successUrls/-'],
    ['$request.body#/failedUrl/x', '{$request.body#/failedUrl/x} names nothing: the request body has nothing at #/failedUrl/x'],
    ['$request.body#/nothing', '{$request.body#/nothing} is null'],
  ])('%s', (expression, reason) => {
    expect(evaluateExpression(expression, SUBSCRIBE)).toEqual({ ok: false, reason });
  });

  it('a request with no body names nothing under $request.body', () => {
    const bodiless = { ...SUBSCRIBE, request: { ...SUBSCRIBE.request, body: undefined } };
    expect(evaluateExpression('$request.body#/id', bodiless)).toEqual({
      ok: false,
      reason: '{$request.body#/id} names nothing: the request has no body',
    });
  });

  // prettier-ignore
  it.each([
    ['$uri', 'it names none of'],
    ['request.body', 'it names none of'],
    ['$request', 'it names none of'],
    ['$request.cookie.session', 'it names none of'],
    ['$request.bodyx', 'it names none of'],
    ['$request.header.', 'no header name follows "header."'],
    ['$request.header.content type', '"content type" is not a header name'],
    ['$request.query.', 'no query name follows "query."'],
    ['$response.query.url', 'an answer has no query parameters'],
    ['$response.path.id', 'an answer has no path parameters'],
    ['$request.body#id', 'the body pointer "#id" does not start with "/"'],
    ['$request.body#/a~2b', '"~" in the body pointer "#/a~2b" is not followed by 0 or 1'],
    ['$request.body#/a~', '"~" in the body pointer "#/a~" is not followed by 0 or 1'],
  ])('malformed: %s', (expression, why) => {
    const result = evaluateExpression(expression, SUBSCRIBE);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(`${expression} is not a runtime expression: ${why}`);
  });

  it('never throws, whatever the values hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const odd = { ...SUBSCRIBE, request: { ...SUBSCRIBE.request, body: { cyclic, big: 10n } } };
    expect(evaluateExpression('$request.body#/cyclic', odd)).toEqual({ ok: false, reason: '{$request.body#/cyclic} is not a JSON value' });
    expect(evaluateExpression('$request.body#/big', odd)).toEqual({ ok: false, reason: '{$request.body#/big} is not a JSON value' });
    expect(parseExpression('$request.body#/%E0%A4%A').ok).toBe(true);
    expect(evaluateExpression('$request.body#/%E0%A4%A', odd)).toMatchObject({ ok: false });
  });
});

describe('callback keys: expressions embedded in a URL', () => {
  // prettier-ignore
  it.each([
    // The examples of §4.8.18.3 and the OpenAPI Initiative's callback-example.yaml.
    ['{$request.query.queryUrl}', 'http://clientdomain.com/stillrunning'],
    ['{$request.query.queryUrl}/data', 'http://clientdomain.com/stillrunning/data'],
    [
      'http://notificationServer.com?transactionId={$request.body#/id}&email={$request.body#/user/email}',
      'http://notificationServer.com?transactionId=42&email=ada@example.com',
    ],
    ['{$request.body#/failedUrl}?status={$statusCode}&sub={$response.body#/id}', 'http://clientdomain.com/failed?status=201&sub=sub_1'],
    // OpenAPI 3.1 §4.8.18.1 writes its simplest key as a bare expression.
    ['$request.body#/failedUrl', 'http://clientdomain.com/failed'],
    ['http://hooks.example.test/fixed', 'http://hooks.example.test/fixed'],
    ['http://x.test/{$method}/}', 'http://x.test/POST/}'],
  ])('%s → %s', (template, value) => {
    expect(expandTemplate(template, SUBSCRIBE)).toEqual({ ok: true, value });
  });

  it('fails whole when one expression names nothing: no half-built URL', () => {
    expect(expandTemplate('http://x.test/?a={$request.body#/id}&b={$request.body#/missing}', SUBSCRIBE)).toEqual({
      ok: false,
      reason: '{$request.body#/missing} names nothing: the request body has nothing at #/missing',
    });
    expect(expandTemplate('{$request.body#/nothing}/data', SUBSCRIBE)).toEqual({ ok: false, reason: '{$request.body#/nothing} is null' });
  });

  // prettier-ignore
  it.each([
    ['{$request.query.queryUrl', 'the "{" at character 1 of {$request.query.queryUrl is never closed'],
    ['http://x.test/{id}', '{id} in http://x.test/{id} is not a runtime expression (they start with "$")'],
    ['http://x.test/{{$method}}', 'the "{" at character 15 of http://x.test/{{$method}} is closed only after another "{"'],
    ['{$request.nowhere}', '$request.nowhere is not a runtime expression'],
    ['$request.nowhere', '$request.nowhere is not a runtime expression'],
  ])('malformed key: %s', (template, reason) => {
    const parsed = parseTemplate(template);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain(reason);
    expect(expandTemplate(template, SUBSCRIBE)).toEqual(parsed);
  });

  it('parses a key into its text and expressions, once for every request', () => {
    expect(parseTemplate('{$request.query.queryUrl}/data')).toEqual({
      ok: true,
      parts: [{ source: '$request.query.queryUrl', expression: { kind: 'query', of: 'request', name: 'queryUrl' } }, { text: '/data' }],
    });
    expect(parseExpression('$response.body#/a~1b/0')).toEqual({
      ok: true,
      expression: { kind: 'body', of: 'response', pointer: ['a~1b', '0'] },
    });
  });
});
