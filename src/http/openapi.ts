// The OpenAPI 3.1 document, generated from the route schemas. Shared schemas
// keep their $id (SPEC's names) as component names.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../version.js';

export const COOKIE_AUTH = [{ cookieAuth: [] as string[] }];

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  const { publicUrl } = app.ctx.config;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paper-trading bets API',
        version: API_VERSION,
        description:
          'Social paper trading: open LONG or SHORT bets on tickers at server-set prices, close or cancel them, ' +
          'climb the leaderboard, follow traders. No real money moves. Automated clients: read /llms.txt first.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'auth_token', description: 'Session cookie set by POST /login' },
        },
      },
    },
    // A parameter with a default is optional by definition (TypeBox lists it as required).
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Record<string, unknown> }).openapiObject as {
        paths?: Record<string, Record<string, { parameters?: Array<{ required?: boolean; schema?: { default?: unknown } }> }>>;
      };
      for (const item of Object.values(doc.paths ?? {}))
        for (const op of Object.values(item)) for (const p of op.parameters ?? []) if (p.schema && 'default' in p.schema) p.required = false;
      return doc as never;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String((json as { $id?: string }).$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { withCredentials: true },
    staticCSP: false,
  });
}
