// Follows, feed, user search and public profiles (issue: social).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sendJsonText } from '../http/serialization.js';
import { principalOf } from '../http/types.js';
import { errorResponses, Id, Limit403, Page, PageQuerySchema, ref, Text } from '../schemas/common.js';
import { FeedItemSchema, FollowRequestSchema, FollowSuccessResponseSchema, PublicProfileResponseSchema } from '../schemas/social.js';
import { PublicUserSchema } from '../schemas/users.js';
import { feedJson } from '../services/feed.js';
import { changeFollow, followedIds } from '../services/follows.js';
import { publicProfile } from '../services/profiles.js';
import { findUsers } from '../services/user-search.js';
import { SEARCH_MAX_RESULTS } from '../domain/search.js';
import { sharedAnswerSender } from '../http/cache-control.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';

export const socialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const sendShared = sharedAnswerSender();

  app.post(
    '/follow',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['social'],
        operationId: 'changeFollow',
        summary: 'Follow or unfollow a user',
        body: ref(FollowRequestSchema),
        response: { 200: ref(FollowSuccessResponseSchema), ...errorResponses(400, 404, 413, 415), 403: Limit403 },
      },
    }),
    async (request) => {
      await changeFollow(ctx, principalOf(request).userId, request.body.followed_id, request.body.action);
      return { success: true };
    },
  );

  app.get(
    '/following',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['social'],
        operationId: 'getFollowing',
        summary: 'Ids of the users the caller follows',
        response: {
          200: Type.Array(Id(), { description: 'At most the follow_capacity (more only after a downgrade: existing follows stay)' }),
        },
      },
    }),
    async (request) => followedIds(ctx, principalOf(request).userId),
  );

  app.get(
    '/feed',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['social'],
        operationId: 'getFeed',
        summary: 'Activity of followed users, newest first',
        querystring: PageQuerySchema,
        response: { 200: Page(ref(FeedItemSchema)), ...errorResponses(400) },
      },
    }),
    // Already JSON: finished bets' stored views, sent as they are.
    async (request, reply) => sendJsonText(reply, await feedJson(ctx, principalOf(request).userId, request.query)),
  );

  app.get(
    '/users/search',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['social'],
        operationId: 'searchUsers',
        summary: 'Find users by username substring',
        querystring: Type.Object({ q: Type.Optional(Text({ maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: Type.Array(ref(PublicUserSchema), { maxItems: SEARCH_MAX_RESULTS }), ...errorResponses(400) },
      },
    }),
    async (request) => findUsers(ctx, request.query.q),
  );

  app.get(
    '/user/:user_id/public',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['social'],
        operationId: 'getPublicProfile',
        summary: "A user's public profile: open bets and paged history",
        params: Type.Object({ user_id: Id() }),
        querystring: PageQuerySchema,
        response: { 200: ref(PublicProfileResponseSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request, reply) => {
      return sendShared(request, reply, await publicProfile(ctx, request.params.user_id, request.query));
    },
  );
};
