// The caller's notices, whatever transport carried them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COOKIE_AUTH } from '../http/openapi.js';
import { principalOf } from '../http/types.js';
import { NotificationSchema } from '../schemas/chat.js';
import { errorResponses, Page, PageQuerySchema, ref } from '../schemas/common.js';
import { listNotifications } from '../services/notifications.js';

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/notifications',
    {
      config: { auth: true },
      schema: {
        tags: ['chat'],
        operationId: 'getNotifications',
        summary: "The caller's notices (all transports), newest first, paged",
        security: COOKIE_AUTH,
        querystring: PageQuerySchema,
        response: { 200: Page(ref(NotificationSchema)), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { limit, offset } = request.query;
      return listNotifications(ctx.db, principalOf(request).userId, limit, offset);
    },
  );
};
