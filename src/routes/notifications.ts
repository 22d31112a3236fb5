// The caller's notices (one model for every user, whatever channels are
// linked), their unread count and the read marker.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sessionRoute } from '../http/route-options.js';
import { principalOf } from '../http/types.js';
import { MarkNoticesReadRequestSchema, NoticeReadStateSchema, NotificationSchema } from '../schemas/chat.js';
import { errorResponses, Page, PageQuerySchema, ref } from '../schemas/common.js';
import { listNotifications, markNoticesRead, noticeReadState } from '../services/notifications.js';

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/notifications',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['chat'],
        operationId: 'getNotifications',
        summary: "The caller's notices, newest first, paged",
        description:
          "Bets opened and cancelled by the traders the caller follows now, from the moment each follow began (derived when read: an unfollow takes them out), and the caller's stored notices (account, settlement, leagues), whatever channels are linked. Each says whether it is read.",
        querystring: PageQuerySchema,
        response: { 200: Page(ref(NotificationSchema)), ...errorResponses(400) },
      },
    }),
    async (request) => {
      const { limit, offset } = request.query;
      return listNotifications(ctx.db, principalOf(request).userId, limit, offset);
    },
  );

  app.get(
    '/notifications/unread',
    // A count over the caller's followed traders' bets and stored notices: limited as the other costly reads.
    sessionRoute(app, {
      limit: 'costly reads',
      schema: {
        tags: ['chat'],
        operationId: 'getNotificationsUnread',
        summary: 'How many notices are unread, and the read marker',
        response: { 200: ref(NoticeReadStateSchema) },
      },
    }),
    async (request) => noticeReadState(ctx.db, principalOf(request).userId),
  );

  app.post(
    '/notifications/read',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['chat'],
        operationId: 'markNotificationsRead',
        summary: 'Moves the read marker forward',
        description: 'Every notice at or before `until` (now when absent) counts as read. The marker never moves back, so a repeat changes nothing.',
        body: ref(MarkNoticesReadRequestSchema),
        response: { 200: ref(NoticeReadStateSchema), ...errorResponses(400, 403, 413, 415) },
      },
    }),
    async (request) => {
      const until = request.body?.until === undefined ? undefined : Date.parse(request.body.until);
      return markNoticesRead(ctx.db, principalOf(request).userId, until, ctx.clock.now());
    },
  );
};
