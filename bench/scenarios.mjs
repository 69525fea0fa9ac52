// The load: each scenario is a list of requests autocannon cycles through, each with the status a
// correct Pet Store server answers. Paths are relative to a target's basePath.
import http from 'node:http';
import { BENCH_KEY } from './targets.mjs';

/**
 * @typedef {object} BenchRequest
 * @property {'GET' | 'POST'} method
 * @property {string} path
 * @property {string} [body]
 * @property {boolean} [anonymous]  sent without Authorization
 * @property {number} expect        the status a correct answer has
 */

/**
 * @typedef {object} Scenario
 * @property {string} id
 * @property {string} label
 * @property {BenchRequest[]} requests
 * @property {boolean} [writes]  adds records: the store grows while it runs (and stays grown)
 */

const LIST = /** @type {BenchRequest} */ ({ method: 'GET', path: '/pets?status=available&limit=20', expect: 200 });
const GET = /** @type {BenchRequest} */ ({ method: 'GET', path: '/pets/1', expect: 200 });
const CREATE = /** @type {BenchRequest} */ ({
  method: 'POST',
  path: '/pets',
  body: JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' }),
  expect: 201,
});
const INVALID = /** @type {BenchRequest} */ ({
  method: 'POST',
  path: '/pets',
  body: JSON.stringify({ name: 5, status: 'lost' }),
  expect: 400,
});
const UNAUTHENTICATED = /** @type {BenchRequest} */ ({
  method: 'GET',
  path: '/pets?status=available&limit=20',
  anonymous: true,
  expect: 401,
});

/** @type {Scenario[]} The comparison scenarios, in table order. */
export const SCENARIOS = [
  { id: 'list', label: 'list ?status', requests: [LIST] },
  { id: 'get', label: 'get by id', requests: [GET] },
  { id: 'create', label: 'create', requests: [CREATE], writes: true },
  { id: 'invalid', label: 'invalid create', requests: [INVALID] },
  { id: 'unauthenticated', label: 'no key (401)', requests: [UNAUTHENTICATED] },
  { id: 'mixed', label: 'mixed', requests: [LIST, GET, CREATE, INVALID, UNAUTHENTICATED], writes: true },
];

/**
 * The store-size scenarios for a store of `count` pets: the first page, and a page from a cursor
 * near the end of the ids (50 from the end). Both compare against the baselines' `list`.
 * @param {number} count @returns {(Scenario & { baseline: string })[]}
 */
export function storeSizeScenarios(count) {
  const after = Math.max(0, count - 50);
  return [
    { id: 'list', label: 'list ?status', baseline: 'list', requests: [LIST] },
    {
      id: 'deep-page',
      label: `list &after=${after}`,
      baseline: 'list',
      requests: [{ ...LIST, path: `/pets?status=available&limit=20&after=${after}` }],
    },
  ];
}

/** The headers of one request. @param {BenchRequest} request @returns {Record<string, string>} */
export function headersOf(request) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (!request.anonymous) headers.authorization = `Bearer ${BENCH_KEY}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

/**
 * Sends one request outside the load (a probe, the create that makes a collection adopted) and
 * answers its status and body. @param {string} origin @param {string} path @param {BenchRequest} request
 * @returns {Promise<{ status: number, body: string }>}
 */
export function send(origin, path, request) {
  return new Promise((resolve, reject) => {
    const req = http.request(origin + path, { method: request.method, headers: headersOf(request), agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(request.body);
  });
}
