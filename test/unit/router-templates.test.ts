import { describe, expect, it } from 'vitest';
import { Router, type Routable } from '../../src/routing/router.js';

const op = (method: string, pathTemplate: string): Routable & { readonly id: string } => ({
  id: `${method} ${pathTemplate}`,
  method,
  pathTemplate,
});

const found = (router: Router<Routable & { id: string }>, method: string, path: string, headers?: Record<string, string>) => {
  const match = router.match(method, path, headers);
  return match.kind === 'found' ? { id: match.operation.id, params: match.pathParams } : match.kind;
};

describe('Router: templates within a segment', () => {
  const router = new Router(
    [
      op('GET', '/files/{id}'),
      op('GET', '/files/{name}.{ext}'),
      op('GET', '/files/v{major}.{minor}'),
      op('GET', '/files/readme.txt'),
      op('GET', "/indexes('{name}')/docs"),
    ],
    '',
  );

  // prettier-ignore
  it.each([
    ['/files/readme.txt', 'GET /files/readme.txt', {}],
    ['/files/v1.2', 'GET /files/v{major}.{minor}', { major: '1', minor: '2' }],
    ['/files/a.tar.gz', 'GET /files/{name}.{ext}', { name: 'a.tar', ext: 'gz' }],
    ['/files/caf%C3%A9.txt', 'GET /files/{name}.{ext}', { name: 'café', ext: 'txt' }],
    ['/files/42', 'GET /files/{id}', { id: '42' }],
    ["/indexes('a%2Fb')/docs", "GET /indexes('{name}')/docs", { name: 'a/b' }],
  ])('%s → %s', (path, id, params) => {
    expect(found(router, 'GET', path)).toEqual({ id, params });
  });

  it('needs a non-empty value for every expression', () => {
    expect(found(router, 'GET', '/files/.txt')).toEqual({ id: 'GET /files/{id}', params: { id: '.txt' } });
    expect(found(router, 'GET', "/indexes('')/docs")).toBe('not-found');
  });

  it('reports broken percent-encoding in a templated segment', () => {
    expect(found(router, 'GET', '/files/%E0%A4%A.txt')).toBe('bad-encoding');
  });
});

describe('Router: names bound per template', () => {
  it('gives sibling templates their own names at the same position', () => {
    const router = new Router([op('GET', '/recipe/{id}'), op('GET', '/recipe/{recipeId}/images'), op('DELETE', '/recipe/{key}')], '');
    expect(found(router, 'GET', '/recipe/7')).toEqual({ id: 'GET /recipe/{id}', params: { id: '7' } });
    expect(found(router, 'GET', '/recipe/7/images')).toEqual({ id: 'GET /recipe/{recipeId}/images', params: { recipeId: '7' } });
    expect(found(router, 'DELETE', '/recipe/7')).toEqual({ id: 'DELETE /recipe/{key}', params: { key: '7' } });
  });

  it('keeps the first of two operations with the same method and path shape, and lists the other as unreachable', () => {
    const router = new Router([op('GET', '/a/{x}'), op('GET', '/a/{y}')], '');
    expect(found(router, 'GET', '/a/1')).toEqual({ id: 'GET /a/{x}', params: { x: '1' } });
    expect(router.unreachable.map((u) => [u.operation.id, u.by.id])).toEqual([['GET /a/{y}', 'GET /a/{x}']]);
  });
});

describe('Router: trailing slashes as documented', () => {
  const router = new Router([op('GET', '/pets/'), op('GET', '/owners'), op('GET', '/both'), op('POST', '/both/')], '/v1');
  // prettier-ignore
  it.each([
    ['GET', '/v1/pets/', 'GET /pets/'],
    ['GET', '/v1/pets', 'not-found'],
    ['GET', '/v1/owners', 'GET /owners'],
    ['GET', '/v1/owners/', 'not-found'],
    ['POST', '/v1/both/', 'POST /both/'],
    ['POST', '/v1/both', 'method-not-allowed'],
    ['GET', '/v1//pets/', 'not-found'],
    ['GET', '/v1/pets//', 'not-found'],
    ['GET', '/v1/owners//', 'not-found'],
    ['GET', '/v1//', 'not-found'],
  ])('%s %s → %s', (method, path, expected) => {
    const result = found(router, method, path);
    expect(typeof result === 'string' ? result : result.id).toBe(expected);
  });
});

describe('Router: path keys with a fragment (AWS `/#X-Amz-Target=…`)', () => {
  const router = new Router(
    [
      op('POST', '/#X-Amz-Target=DynamoDB_20120810.PutItem'),
      op('POST', '/#X-Amz-Target=DynamoDB_20120810.GetItem'),
      op('GET', '/tables#listing'),
      op('GET', '/tables#other'),
    ],
    '',
  );

  it('routes by the header the fragment names, as real clients send it', () => {
    expect(found(router, 'POST', '/', { 'x-amz-target': 'DynamoDB_20120810.GetItem' })).toMatchObject({
      id: 'POST /#X-Amz-Target=DynamoDB_20120810.GetItem',
    });
    expect(found(router, 'POST', '/', { 'x-amz-target': 'DynamoDB_20120810.PutItem' })).toMatchObject({
      id: 'POST /#X-Amz-Target=DynamoDB_20120810.PutItem',
    });
  });

  it('finds nothing without the header or with an unknown target', () => {
    expect(found(router, 'POST', '/')).toBe('not-found');
    expect(found(router, 'POST', '/', { 'x-amz-target': 'DynamoDB_20120810.Scan' })).toBe('not-found');
    expect(router.match('GET', '/')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });

  it('serves a fragment that names no header at the path before it; a second one is unreachable', () => {
    expect(found(router, 'GET', '/tables')).toMatchObject({ id: 'GET /tables#listing' });
    expect(router.unreachable.map((u) => u.operation.id)).toEqual(['GET /tables#other']);
  });
});

describe('Router: path keys with a query (`/users/{id}/expire?temp=true`)', () => {
  const router = new Router(
    [
      op('POST', '/users/{userId}/lifecycle/expire_password?tempPassword=false'),
      op('POST', '/users/{userId}/lifecycle/expire_password?tempPassword=true'),
      op('GET', '/users/{userId}'),
      op('GET', '/users/{userId}?expand=groups'),
    ],
    '/api',
  );

  it('routes by the query value the key names, as clients send it', () => {
    expect(router.match('POST', '/api/users/7/lifecycle/expire_password', {}, 'tempPassword=true')).toMatchObject({
      kind: 'found',
      operation: { id: 'POST /users/{userId}/lifecycle/expire_password?tempPassword=true' },
      pathParams: { userId: '7' },
    });
    expect(router.match('POST', '/api/users/7/lifecycle/expire_password', {}, 'a=1&tempPassword=false')).toMatchObject({
      operation: { id: 'POST /users/{userId}/lifecycle/expire_password?tempPassword=false' },
    });
  });

  it('finds nothing without the query value, and falls back to the key without a query when there is one', () => {
    expect(router.match('POST', '/api/users/7/lifecycle/expire_password')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/api/users/7', {}, 'expand=groups')).toMatchObject({
      operation: { id: 'GET /users/{userId}?expand=groups' },
    });
    expect(router.match('GET', '/api/users/7', {}, 'expand=roles')).toMatchObject({ operation: { id: 'GET /users/{userId}' } });
  });
});

describe('Router: path keys whose suffix names a declared query parameter (`/#Action=DescribeInstances`)', () => {
  const action = (method: string, key: string, ...query: string[]) => ({
    ...op(method, key),
    parameters: query.map((name) => ({ name, in: 'query' })),
  });
  type Op = ReturnType<typeof action>;
  const router = new Router<Op>(
    [
      action('GET', '/#Action=DescribeInstances', 'Action', 'Version'),
      action('GET', '/#Action=RunInstances', 'Action'),
      action('GET', '/#Action=RunInstances&Version=2016-11-15', 'Action', 'Version'),
      action('POST', '/#Action=DescribeInstances', 'Action'),
      action('GET', '/#Action=DescribeInstances', 'Action'),
      action('GET', '/tagged#X-Amz-Target=Tag'),
      action('GET', '/mixed?Action=List#X-Amz-Target=List'),
    ],
    '',
    (o) => o.parameters,
  );
  const at = (method: string, path: string, query: string, headers: Record<string, string> = {}) => {
    const match = router.match(method, path, headers, query);
    return match.kind === 'found' ? match.operation.id : match.kind;
  };

  // prettier-ignore
  it.each([
    ['GET', '/', 'Action=DescribeInstances&Version=2016-11-15', 'GET /#Action=DescribeInstances'],
    ['GET', '/', 'Version=2016-11-15&Action=RunInstances', 'GET /#Action=RunInstances&Version=2016-11-15'],
    ['GET', '/', 'Action=RunInstances&Version=2014-01-01', 'GET /#Action=RunInstances'],
    ['POST', '/', 'Action=DescribeInstances', 'POST /#Action=DescribeInstances'],
    ['GET', '/', 'Action=describeinstances', 'not-found'],
    ['GET', '/', 'Version=2016-11-15', 'not-found'],
    ['GET', '/', '', 'not-found'],
    ['GET', '/', 'Action=Describe%49nstances', 'GET /#Action=DescribeInstances'],
    ['GET', '/mixed', 'Action=List', 'not-found'],
    ['DELETE', '/', 'Action=DescribeInstances', 'method-not-allowed'],
  ])('%s %s?%s → %s', (method, path, query, expected) => {
    expect(at(method, path, query)).toBe(expected);
  });

  it('answers 405 when only another method has the key the request names', () => {
    expect(router.match('POST', '/', {}, 'Action=RunInstances')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD'] });
  });

  it('reads an undeclared name after `#` as a header, and both kinds of pair together', () => {
    expect(at('GET', '/tagged', 'X-Amz-Target=Tag')).toBe('not-found');
    expect(at('GET', '/tagged', '', { 'x-amz-target': 'Tag' })).toBe('GET /tagged#X-Amz-Target=Tag');
    expect(at('GET', '/mixed', 'Action=List', { 'x-amz-target': 'List' })).toBe('GET /mixed?Action=List#X-Amz-Target=List');
  });

  it('reports a second key asking the same as unreachable', () => {
    expect(router.unreachable.map((u) => [u.operation.id, u.by.id])).toEqual([
      ['GET /#Action=DescribeInstances', 'GET /#Action=DescribeInstances'],
    ]);
  });
});
