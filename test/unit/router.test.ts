import { describe, expect, it } from 'vitest';
import { Router, type Routable } from '../../src/routing/router.js';

/** A route as the router sees it: any record with a method and a path template. */
const op = (method: string, pathTemplate: string): Routable & { readonly id: string } => ({
  id: `${method} ${pathTemplate}`,
  method,
  pathTemplate,
});

const router = new Router(
  [op('GET', '/pets'), op('POST', '/pets'), op('GET', '/pets/{petId}'), op('GET', '/pets/mine'), op('GET', '/a/{x}/b/{y}')],
  '/v1',
);

describe('Router', () => {
  it('matches templated paths and decodes their parameters', () => {
    const match = router.match('GET', '/v1/pets/caf%C3%A9');
    expect(match.kind === 'found' && match.pathParams).toEqual({ petId: 'café' });
    const two = router.match('GET', '/v1/a/1/b/2');
    expect(two.kind === 'found' && two.pathParams).toEqual({ x: '1', y: '2' });
  });

  it('prefers a concrete path to a templated one', () => {
    const match = router.match('GET', '/v1/pets/mine');
    expect(match.kind === 'found' && match.operation.pathTemplate).toBe('/pets/mine');
  });

  it('tells a wrong method (with the allowed ones) from an unknown path', () => {
    expect(router.match('DELETE', '/v1/pets')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'POST'] });
    expect(router.match('GET', '/v1/cats')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/pets')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/v1/pets/')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/v1')).toEqual({ kind: 'not-found' });
  });

  it('serves an operation on the root path at the base path, with or without its slash', () => {
    const rooted = new Router([op('GET', '/'), op('GET', '/pets')], '/v1');
    for (const path of ['/v1', '/v1/']) {
      const match = rooted.match('GET', path);
      expect(match.kind === 'found' && match.operation.pathTemplate).toBe('/');
    }
    const bare = new Router([op('GET', '/')], '');
    expect(bare.match('GET', '/').kind).toBe('found');
    expect(bare.match('GET', '/x').kind).toBe('not-found');
  });

  it('reports broken percent-encoding in a parameter', () => {
    expect(router.match('GET', '/v1/pets/%E0%A4%A')).toEqual({ kind: 'bad-encoding' });
  });

  it('lists the methods of a path for preflights', () => {
    expect(router.methodsAt('/v1/pets')).toEqual(['GET', 'HEAD', 'POST']);
    expect(router.methodsAt('/v1/nothing')).toEqual([]);
  });
});
