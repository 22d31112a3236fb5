// The import rules between the folders of src/ and web/, checked by
// `npm run lint` (dependency-cruiser). They are written down here and only
// here, so the layers hold by themselves instead of by review.
//
// The layers, from the inside out:
//
//   src/domain/        Pure rules: no I/O, no database, no HTTP. Imports only
//                      itself (and npm packages such as luxon), plus type-only
//                      imports of the API shapes in src/schemas/. Data files the
//                      rules need are loaded elsewhere and passed in.
//   src/schemas/       The API's TypeBox shapes (requests, answers, OpenAPI).
//   src/db/            The database object, its tables' row types, migrations.
//                      May take domain types; knows nothing of the layers above.
//   src/repositories/  Queries, one module per area, over src/db/.
//   src/providers/     Outside services (prices, payments, chat): neither the
//                      database nor table types; what they must store goes
//                      through an interface a service implements.
//   src/services/      The use cases: transactions, repositories, providers.
//                      Nothing from src/http/ or src/routes/.
//   src/http/          Fastify plumbing shared by the routes.
//   src/routes/        Endpoints: validate, call a service, answer. Never the
//                      database or a repository directly.
//   web/src/           The browser app. From src/ it takes one module only,
//                      src/domain/record-encoding.ts, the verifiable record's
//                      encoding that server and browser must agree on byte for
//                      byte; that module imports nothing, so it bundles as is.
//
// Paths are relative to the repository root (run from there).

/** A folder of src/ as a path pattern. */
const layer = (name) => `^src/${name}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes module load order matter and the layers meaningless: split the shared part out.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'routes-not-to-storage',
      severity: 'error',
      comment: 'Routes validate and answer; the transaction and the queries belong to a service, so every write path has one place that owns it.',
      from: { path: layer('routes') },
      to: { path: [layer('db'), layer('repositories')] },
    },
    {
      name: 'providers-not-to-storage',
      severity: 'error',
      comment:
        'Providers wrap outside services; taking the database or table types would tie them to our schema. What a provider must store goes through an interface a service implements.',
      from: { path: layer('providers') },
      to: { path: [layer('db'), layer('repositories')] },
    },
    {
      name: 'providers-not-up',
      severity: 'error',
      comment: 'Services use providers, not the other way round; providers know nothing of HTTP either.',
      from: { path: layer('providers') },
      to: { path: [layer('services'), layer('routes'), layer('http')] },
    },
    {
      name: 'services-not-to-http',
      severity: 'error',
      comment: 'Services are called by routes, jobs, scripts and tests alike; HTTP details stay in src/http/ and src/routes/.',
      from: { path: layer('services') },
      to: { path: [layer('http'), layer('routes')] },
    },
    {
      name: 'domain-stays-inside',
      severity: 'error',
      comment: 'Domain rules are pure and testable alone: they import only other domain modules (API shapes from src/schemas/ as types aside).',
      from: { path: layer('domain') },
      to: { path: '^(src|web)/', pathNot: [layer('domain'), layer('schemas')] },
    },
    {
      name: 'domain-schemas-type-only',
      severity: 'error',
      comment: 'The domain may name API shapes, never load TypeBox schemas at run time: `import type` only.',
      from: { path: layer('domain') },
      to: { path: layer('schemas'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-no-io',
      severity: 'error',
      comment: 'No I/O in the domain: files, sockets and processes are loaded or opened outside and their results passed in.',
      from: { path: layer('domain') },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|cluster)$',
      },
    },
    {
      name: 'web-only-shared-module',
      severity: 'error',
      comment:
        'The browser bundle takes from src/ only the module written to be shared with it; anything else would drag server code into the bundle.',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/domain/record-encoding\\.ts$' },
    },
    {
      name: 'shared-module-imports-nothing',
      severity: 'error',
      comment: 'The browser bundles src/domain/record-encoding.ts as it is: it must stay free of imports.',
      from: { path: '^src/domain/record-encoding\\.ts$' },
      to: {},
    },
    {
      name: 'repositories-not-up',
      severity: 'error',
      comment: 'Repositories are queries over src/db/; the use cases above them call them, never the reverse.',
      from: { path: layer('repositories') },
      to: { path: [layer('services'), layer('routes'), layer('http')] },
    },
    {
      name: 'db-not-up',
      severity: 'error',
      comment: 'The database layer is the bottom of the storage stack: it may take domain types, nothing that is built on it.',
      from: { path: layer('db') },
      to: { path: [layer('services'), layer('routes'), layer('http'), layer('repositories')] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve would slip past every rule above.',
      from: { path: '^(src|web)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '^dist/', '^web/dist/'] },
    // Type-only imports count: a provider that takes a table type is tied to the schema as much as one that queries it.
    tsPreCompilationDeps: true,
    // Resolves the NodeNext `.js` specifiers of src/ to their .ts files.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
