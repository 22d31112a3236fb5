// Health and the discovery documents: API catalog (RFC 9727), protected
// resource metadata (RFC 9728), the OpenAPI document and /llms.txt.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fixedAnswer, fixedBody } from '../http/fixed-answers.js';
import { publicRoute } from '../http/route-options.js';
import { ref } from '../schemas/common.js';
import type { Static } from '@sinclair/typebox';
import { ApiCatalogSchema, HealthResponseSchema, ProtectedResourceMetadataSchema } from '../schemas/discovery.js';
import { healthMonitor } from '../services/health.js';
import { llmsTxt } from './llms-txt.js';

/** /llms.txt is a short fixed guide (a few KiB with the service's addresses). */
const LLMS_TXT_MAX = 65_536;

export const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.ctx;
  const base = config.publicUrl;
  const catalogLink = `<${base}/.well-known/api-catalog>; rel="api-catalog"`;
  const health = healthMonitor(app.ctx, [app.ctx.providerStatus.prices, app.ctx.providerStatus.chat]);

  app.get(
    '/',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['discovery'],
        operationId: 'getHealth',
        summary: 'Health: status, version, database reachability and failing providers',
        description:
          'Always 200 while the process serves. `degraded` with `reasons` when the database does not answer (checked at most ' +
          'once a second) or a provider (prices, chat) failed on its latest call within the last minute.',
        response: { 200: ref(HealthResponseSchema) },
      },
    }),
    async (_request, reply) => {
      reply.header('link', catalogLink).header('cache-control', 'no-store');
      return health.get();
    },
  );

  const catalog: Static<typeof ApiCatalogSchema> = {
    linkset: [
      {
        anchor: `${base}/`,
        'service-desc': [{ href: `${base}/openapi.json`, type: 'application/openapi+json' }],
        'service-doc': [{ href: `${base}/docs`, type: 'text/html' }],
        'oauth-protected-resource': [{ href: `${base}/.well-known/oauth-protected-resource`, type: 'application/json' }],
        status: [{ href: `${base}/`, type: 'application/json' }],
      },
    ],
  };

  app.route({
    method: ['GET', 'HEAD'],
    url: '/.well-known/api-catalog',
    ...publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['discovery'],
        operationId: 'getApiCatalog',
        summary: 'API catalog (RFC 9727 linkset)',
        response: { 200: { content: { 'application/linkset+json': { schema: ref(ApiCatalogSchema) } } } },
      },
    }),
    handler: async (_request, reply) => {
      reply.header('link', catalogLink).type('application/linkset+json');
      return catalog;
    },
  });

  const metadata = {
    resource: `${base}/`,
    authorization_servers: [],
    scopes_supported: [],
    bearer_methods_supported: [],
    service_documentation: `${base}/docs`,
    resource_documentation: `${base}/llms.txt`,
    resource_name: 'Paper-trading bets API',
    resource_policy_uri: `${base}/llms.txt`,
  };

  app.get(
    '/.well-known/oauth-protected-resource',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['discovery'],
        operationId: 'getProtectedResourceMetadata',
        summary: 'OAuth protected-resource metadata (RFC 9728): no OAuth, cookie sessions only',
        response: { 200: ref(ProtectedResourceMetadataSchema) },
      },
    }),
    async () => metadata,
  );

  const sendDocument = fixedAnswer('application/openapi+json; charset=utf-8', () => app.apiDocument());
  app.get(
    '/openapi.json',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['discovery'],
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        response: { 200: { content: { 'application/openapi+json': { schema: { type: 'object', additionalProperties: true } } } } },
      },
    }),
    async (request, reply) => sendDocument(request, reply),
  );

  const sendLlms = fixedAnswer(
    'text/plain; charset=utf-8',
    fixedBody(() => llmsTxt(config.publicUrl, config.webUrl)),
  );
  app.get(
    '/llms.txt',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['discovery'],
        operationId: 'getLlmsTxt',
        summary: 'A plain-text guide for automated clients',
        response: { 200: { content: { 'text/plain': { schema: { type: 'string', maxLength: LLMS_TXT_MAX } } } } },
      },
    }),
    async (request, reply) => sendLlms(request, reply),
  );
};
