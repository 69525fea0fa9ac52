// Layering for src/ (one folder = one layer); an import may point only inward/downward:
//
//   cli ─► http ─► core ─► mcp ─► admin ─► pipeline ─► generation ─► domain folders ─► vocabulary
//
//   vocabulary  the ground floor: error catalogue, request/answer records, operation types
//   domain      openapi clock config auth limits routing validation schemas mock answers resources seeding store dispatch journal faults rules workspaces replicas webhooks transitions report
//               (may import vocabulary and each other; schemas is the document's compiled schemas, shared by
//               generation, answers, mock, dispatch and rules; answers finishes every answer: its plan per operation,
//               the error in the document's shape, the media type, the headers; resources recognises the collections a document
//               describes and their ids (the model builder in openapi asks it); openapi is the document layer and stays below
//               store, seeding, dispatch, mock, limits and auth; store stays below dispatch; faults, the
//               pure latency and fault logic, imports vocabulary only; rules, the admin rules' parsing, matching
//               and store, stands on faults, journal patterns, mock and validation; workspaces ties together what each
//               workspace holds in store, clock, auth, limits, rules and journal; replicas shares that state
//               with the other replicas on one Redis: admin state by pub/sub, the journal as a stream; webhooks,
//               the outbound delivery engine (signing, the outbound allow-list, retries on the sandbox clock),
//               stands on vocabulary and clock only; transitions, records that move through their states on the
//               sandbox clock, stands on vocabulary and store's types; report, the integration report card drawn
//               from journal entries, is pure logic over them and stands on vocabulary and journal only)
//   generation  everything compiled from the document, swapped as one (not in the first layer list: placed
//               here from its imports, which are vocabulary and domain only, and its importers, pipeline,
//               admin and core)
//   pipeline    the request steps; admin the admin API; pages the browser pages (beside admin);
//   mcp         the MCP server for coding agents: tools derived from the admin and API documents, each call a request
//               to a sandbox (in process through `handle`, or over HTTP); core mounts its endpoint, cli runs it on stdio;
//   core        the sandbox; http the Node/Express edge;
//   cli         the command line, the top.
//
// Type-only imports count (tsPreCompilationDeps): a type from a higher layer is still a dependency on it.
// Run: npx depcruise src --config .dependency-cruiser.cjs

const DOMAIN =
  'openapi|clock|config|auth|limits|routing|validation|schemas|mock|answers|resources|seeding|store|dispatch|journal|faults|rules|workspaces|replicas|webhooks|transitions|report';
const LAYERS = `vocabulary|${DOMAIN}|generation|pipeline|admin|pages|mcp|core|http|cli`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'vocabulary-is-the-ground-floor',
      comment: 'src/vocabulary/ may import nothing else under src/: every other layer stands on it, so it stands on nothing.',
      severity: 'error',
      from: { path: '^src/vocabulary/' },
      to: { path: '^src/', pathNot: '^src/vocabulary/' },
    },
    {
      name: 'domain-stays-below-the-pipeline',
      comment: `The domain folders (${DOMAIN.split('|').join(', ')}) may import vocabulary and each other, never generation, pipeline, admin, mcp, core, http, cli or src/index.ts.`,
      severity: 'error',
      from: { path: `^src/(${DOMAIN})/` },
      to: { path: '^src/((generation|pipeline|admin|pages|mcp|core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'generation-stays-below-the-pipeline',
      comment: 'src/generation/ may import vocabulary and the domain folders, never pipeline, admin, core, http, cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/generation/' },
      to: { path: '^src/((pipeline|admin|pages|mcp|core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'openapi-is-the-document-layer',
      comment:
        'src/openapi/ (reading and compiling the document) may import vocabulary, clock, config, routing, validation and journal, ' +
        'and the runtime-expression grammar in webhooks (to check callback keys when the document is read), ' +
        'never store, seeding, dispatch, mock, limits or auth: those are built from its operation model, not the other way round.',
      severity: 'error',
      from: { path: '^src/openapi/' },
      to: { path: '^src/(store|seeding|dispatch|mock|limits|auth)/' },
    },
    {
      name: 'faults-stands-on-vocabulary',
      comment: 'src/faults/ (latency models, fault lists, seeded draws, the decision) is pure logic: it may import src/vocabulary/ only.',
      severity: 'error',
      from: { path: '^src/faults/' },
      to: { path: '^src/', pathNot: '^src/(vocabulary|faults)/' },
    },
    {
      name: 'webhooks-stands-on-vocabulary-and-clock',
      comment:
        'src/webhooks/ (the outbound delivery engine) may import src/vocabulary/ and src/clock/ only: what it delivers is handed to it, ' +
        'so the store, dispatch and the journal call it, never the other way round.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/', pathNot: '^src/(vocabulary|clock|webhooks)/' },
    },
    {
      name: 'report-stands-on-journal-and-vocabulary',
      comment:
        'src/report/ (the integration report card) is pure logic over journal entries: it may import src/vocabulary/ and src/journal/ only; ' +
        'what it needs of the document (deprecations) and of the admin API (entry links) is handed to it.',
      severity: 'error',
      from: { path: '^src/report/' },
      to: { path: '^src/', pathNot: '^src/(vocabulary|journal|report)/' },
    },
    {
      name: 'store-stays-below-dispatch',
      comment: 'src/store/ (the repository) may not import src/dispatch/: dispatch calls the store, the store knows nothing of actions.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/dispatch/' },
    },
    {
      name: 'pipeline-stays-below-admin',
      comment: 'src/pipeline/ may import vocabulary, the domain folders and generation, never admin, core, http, cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/((admin|pages|mcp|core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'admin-stays-below-core',
      comment: 'src/admin/ may import vocabulary, the domain folders, generation and pipeline, never mcp, core, http, cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/admin/' },
      to: { path: '^src/((pages|mcp|core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'pages-stays-below-core',
      comment:
        'src/pages/ (the docs page and the console, served to browsers) may import vocabulary, the domain folders, generation and pipeline, never admin, mcp, core, http, cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/pages/' },
      to: { path: '^src/((admin|mcp|core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'mcp-stays-below-core',
      comment:
        'src/mcp/ (the MCP server) may import vocabulary, the domain folders, generation, pipeline, admin and pages, never core, http, cli or src/index.ts: ' +
        'it drives a sandbox through the narrow interfaces it declares (a `handle` and the API served), which core satisfies and mounts.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/((core|http|cli)/|index\\.ts$)' },
    },
    {
      name: 'core-stays-below-http',
      comment:
        'src/core/ may import every layer below it (vocabulary, domain, generation, pipeline, admin, pages, mcp), never http, cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/((http|cli)/|index\\.ts$)' },
    },
    {
      name: 'http-stays-below-cli',
      comment: 'src/http/ (the Express/Node edge) may import everything below it, never cli or src/index.ts.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(cli/|index\\.ts$)' },
    },
    {
      name: 'index-is-the-public-entry',
      comment: 'src/index.ts is the package entry for outside users; nothing inside src/ imports it (cli imports the layers directly).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere in src/ (type-only cycles included: they are a layering knot even if they vanish at run time).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-does-not-import-tests-or-bench',
      comment: 'src/ is shipped; test/ and bench/ are not. src/ may not import from them.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'src-imports-resolve',
      comment: 'Every import in src/ must resolve (a .js specifier to its .ts file); an unresolved one would pass every layer rule unseen.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'folder-has-a-layer',
      comment: `Every folder under src/ belongs to a layer (${LAYERS.split('|').join(', ')}); add a new folder to .dependency-cruiser.cjs.`,
      severity: 'warn',
      from: { path: '^src/[^/]+/', pathNot: `^src/(${LAYERS})/` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage|bench/results)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // Node ESM + TypeScript NodeNext: `./x.js` in source resolves to `./x.ts` (dependency-cruiser does this for TS sources).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
