import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { loadDocument } from '../../src/openapi/load-document.js';
import { nearest, nearestIndex, nearestOperations, type NearestIndex } from '../../src/routing/nearest.js';
import type { Routable } from '../../src/routing/router.js';

const PETSTORE = fileURLToPath(new URL('../../openapi/petstore.yaml', import.meta.url));

let pets: NearestIndex;
beforeAll(async () => {
  const model = buildApiModel(await loadDocument(PETSTORE));
  pets = nearestIndex(model.operations, model.basePath);
});

const suggested = (index: NearestIndex, method: string, path: string): string[] => nearest(index, method, path).map((d) => d.message);

// prettier-ignore
const PET_MISSES: readonly [string, string, string, readonly string[]][] = [
  ['a singular for a plural',         'GET',    '/v1/pet/1',            ['GET /v1/pets/{petId}']],
  ['the collection, misspelt',        'GET',    '/v1/pet',              ['GET /v1/pets', 'POST /v1/pets']],
  ['the same method first',           'POST',   '/v1/pet',              ['POST /v1/pets', 'GET /v1/pets']],
  ['case alone',                      'GET',    '/v1/Pets/1',           ['GET /v1/pets/{petId}']],
  ['405: the methods the path has',   'DELETE', '/v1/pets',             ['GET /v1/pets', 'POST /v1/pets']],
  ['405 on an item',                  'PUT',    '/v1/pets/7',           ['GET /v1/pets/{petId}']],
  ['one segment too many',            'GET',    '/v1/pets/1/toys',      ['GET /v1/pets/{petId}']],
  ['a trailing slash',                'GET',    '/v1/pets/',            ['GET /v1/pets', 'POST /v1/pets']],
  ['a typo in a nested path',         'GET',    '/v1/store/order',      ['GET /v1/store/orders']],
  ['transposed letters',              'GET',    '/v1/stroe/orders',     ['GET /v1/store/orders']],
  ['the base path left out',          'GET',    '/pets/1',              ['GET /v1/pets/{petId}']],
  ['another version',                 'GET',    '/v2/pets/1',           ['GET /v1/pets/{petId}']],
  ['percent-encoded',                 'GET',    '/v1/p%65ts/1',         ['GET /v1/pets/{petId}']],
  ['broken encoding is compared raw', 'GET',    '/v1/pets%zz',          ['GET /v1/pets', 'POST /v1/pets']],
  ['nothing near',                    'GET',    '/v1/zzzzzz',           []],
  ['nothing near, deeper',            'GET',    '/v1/a/b/c/d/e',        []],
  ['the root',                        'GET',    '/',                    []],
];

describe('nearest documented operations: the Pet Store', () => {
  it.each(PET_MISSES)('%s: %s %s', (_name, method, path, expected) => {
    expect(suggested(pets, method, path)).toEqual(expected);
  });

  it('answers in the Error details shape', () => {
    expect(nearest(pets, 'GET', '/v1/pet/1')).toEqual([{ location: 'path', message: 'GET /v1/pets/{petId}' }]);
  });
});

// prettier-ignore
const GITHUB: readonly Routable[] = [
  ['GET', '/'], ['GET', '/user'], ['PATCH', '/user'], ['GET', '/user/repos'], ['POST', '/user/repos'],
  ['GET', '/users/{username}'], ['GET', '/users/{username}/repos'], ['GET', '/users/{username}/gists'],
  ['GET', '/orgs/{org}'], ['GET', '/orgs/{org}/repos'], ['POST', '/orgs/{org}/repos'], ['GET', '/orgs/{org}/members'],
  ['GET', '/repos/{owner}/{repo}'], ['PATCH', '/repos/{owner}/{repo}'], ['DELETE', '/repos/{owner}/{repo}'],
  ['GET', '/repos/{owner}/{repo}/issues'], ['POST', '/repos/{owner}/{repo}/issues'],
  ['GET', '/repos/{owner}/{repo}/issues/{issue_number}'], ['PATCH', '/repos/{owner}/{repo}/issues/{issue_number}'],
  ['GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['GET', '/repos/{owner}/{repo}/pulls'], ['GET', '/repos/{owner}/{repo}/pulls/{pull_number}'],
  ['GET', '/repos/{owner}/{repo}/pulls/{pull_number}/files'], ['PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge'],
  ['GET', '/repos/{owner}/{repo}/contents/{path}'], ['GET', '/repos/{owner}/{repo}/releases/latest'],
  ['GET', '/repos/{owner}/{repo}/releases/tags/{tag}'], ['GET', '/repos/{owner}/{repo}/tarball/{ref}'],
  ['GET', '/gists/{gist_id}'], ['GET', '/search/repositories'], ['GET', '/search/issues'], ['GET', '/search/code'],
].map(([method, pathTemplate]) => ({ method: method as string, pathTemplate: pathTemplate as string }));

// prettier-ignore
const GITHUB_MISSES: readonly [string, string, readonly string[]][] = [
  ['GET',   '/repos/octocat/hello/issue/1',       ['GET /repos/{owner}/{repo}/issues/{issue_number}', 'PATCH /repos/{owner}/{repo}/issues/{issue_number}']],
  ['GET',   '/repos/octocat/hello/pull/1',        ['GET /repos/{owner}/{repo}/pulls/{pull_number}']],
  ['GET',   '/repos/octocat/hello/pulls/1/file',  ['GET /repos/{owner}/{repo}/pulls/{pull_number}/files']],
  ['POST',  '/repos/octocat/hello/pulls/1/merge', ['PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge']],
  ['GET',   '/users/octocat/repo',                ['GET /users/{username}/repos']],
  ['GET',   '/user/repo',                         ['GET /user/repos', 'GET /users/{username}', 'POST /user/repos']],
  ['GET',   '/serch/repositories',                ['GET /search/repositories']],
  ['GET',   '/search/repos',                      ['GET /search/repositories', 'GET /user/repos', 'GET /users/{username}']],
  ['GET',   '/repos/octocat/hello/releases/last', ['GET /repos/{owner}/{repo}/releases/latest']],
  ['POST',  '/gists/abc',                         ['GET /gists/{gist_id}']],
];

describe('nearest documented operations: GitHub-like paths', () => {
  const index = nearestIndex(GITHUB, '');
  it.each(GITHUB_MISSES)('%s %s', (method, path, expected) => {
    expect(suggested(index, method, path)).toEqual(expected);
  });

  it('is deterministic', () => {
    const first = suggested(index, 'GET', '/repos/x/y/isues');
    for (let i = 0; i < 5; i++) expect(suggested(index, 'GET', '/repos/x/y/isues')).toEqual(first);
  });
});

describe('nearest: cost on a large document', () => {
  // 1,000 operations shaped like GitHub's: 100 resources, each with 10 nested paths.
  const large: Routable[] = [];
  for (let r = 0; r < 100; r++) {
    for (let s = 0; s < 5; s++) {
      large.push({ method: 'GET', pathTemplate: `/repos/{owner}/{repo}/resource${r}/{id}/sub${s}` });
      large.push({ method: 'POST', pathTemplate: `/orgs/{org}/group${r}/member${s}` });
    }
  }

  it('stays cheap for a storm of misses, hostile ones included', () => {
    const index = nearestIndex(large, '/api');
    const paths = [
      '/api/repos/a/b/resourc42/1/sub3',
      '/api/orgs/acme/group7/membr1',
      `/api/${'x'.repeat(8000)}`,
      `/api${'/abcdefghijklmnopqrstuvwxyz0123456789'.repeat(200)}`,
      '/api/repos/a/b/c/d/e/f/g/h/i/j',
      '/nothing/here',
    ];
    expect(suggested(index, 'GET', paths[0] as string)[0]).toBe('GET /api/repos/{owner}/{repo}/resource42/{id}/sub3');
    const started = performance.now();
    let count = 0;
    for (let i = 0; i < 300; i++) for (const path of paths) count += nearest(index, 'GET', path).length;
    const perMiss = (performance.now() - started) / (300 * paths.length);
    expect(count).toBeGreaterThan(0);
    // Generous for a slow CI machine: measured well under a millisecond per miss.
    expect(perMiss).toBeLessThan(5);
  });

  it('keeps one index per operations list and base path', () => {
    const first = nearestOperations(large, '/api', 'GET', '/api/orgs/acme/group7/membr1');
    expect(nearestOperations(large, '/api', 'GET', '/api/orgs/acme/group7/membr1')).toEqual(first);
    expect(nearestOperations(large, '', 'POST', '/orgs/acme/group7/membr1')[0]?.message).toBe('POST /orgs/{org}/group7/member1');
  });
});

describe('nearest: keys told apart by a query value (`/#Action=…`)', () => {
  const declared = (key: string): Routable & { parameters: { name: string; in: string }[] } => ({
    method: 'GET',
    pathTemplate: key,
    parameters: [{ name: 'Action', in: 'query' }],
  });
  const index = nearestIndex(
    ['/#Action=DescribeInstances', '/#Action=RunInstances', '/#Action=TerminateInstances', '/#Action=DescribeVolumes'].map(declared),
    '',
  );
  const near = (query: string): string[] => nearest(index, 'GET', '/', query).map((d) => d.message);

  it('suggests the key whose value is nearest the one sent first', () => {
    expect(near('Action=describeinstances')[0]).toBe('GET /#Action=DescribeInstances');
    expect(near('Version=1&Action=TerminateInstance')[0]).toBe('GET /#Action=TerminateInstances');
    expect(near('Action=DescribeVolume')[0]).toBe('GET /#Action=DescribeVolumes');
  });

  it('without the value, suggests the first keys at the path', () => {
    expect(near('Version=1')).toEqual(['GET /#Action=DescribeInstances', 'GET /#Action=RunInstances', 'GET /#Action=TerminateInstances']);
  });
});
