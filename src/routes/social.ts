// Follows, feed, user search and public profiles (issue: social).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { COOKIE_AUTH, PUBLIC } from '../http/openapi.js';
import { principalOf } from '../http/types.js';
import { errorResponses, Id, Limit403, Page, PageQuerySchema, ref, Text } from '../schemas/common.js';
import { FeedItemSchema, FollowRequestSchema, FollowSuccessResponseSchema, PublicProfileResponseSchema } from '../schemas/social.js';
import { PublicUserSchema } from '../schemas/users.js';
import { feed } from '../services/feed.js';
import { changeFollow, followedIds } from '../services/follows.js';
import { publicProfile } from '../services/profiles.js';
import { findUsers } from '../services/user-search.js';
import { SEARCH_MAX_RESULTS } from '../domain/search.js';
import { sendShared } from '../http/cache-control.js';
import { authenticatedWrite, publicRateLimit } from '../http/route-options.js';

export const socialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const auth = { config: { auth: true } };
  // Profiles need no session, so they are limited per client address instead.
  const publicLimit = publicRateLimit(ctx.config);

  app.post(
    '/follow',
    {
      config: { ...authenticatedWrite(ctx.config), idempotent: true },
      schema: {
        tags: ['social'],
        operationId: 'changeFollow',
        summary: 'Follow or unfollow a user',
        security: COOKIE_AUTH,
        body: ref(FollowRequestSchema),
        response: { 200: ref(FollowSuccessResponseSchema), ...errorResponses(400, 401, 404, 413, 415, 429), 403: Limit403 },
      },
    },
    async (request) => {
      await changeFollow(ctx, principalOf(request).userId, request.body.followed_id, request.body.action);
      return { success: true };
    },
  );

  app.get(
    '/following',
    {
      ...auth,
      schema: {
        tags: ['social'],
        operationId: 'getFollowing',
        summary: 'Ids of the users the caller follows',
        security: COOKIE_AUTH,
        response: {
          200: Type.Array(Id(), { description: 'At most the follow_capacity (more only after a downgrade: existing follows stay)' }),
          ...errorResponses(401),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return followedIds(ctx, principalOf(request).userId);
    },
  );

  app.get(
    '/feed',
    {
      ...auth,
      schema: {
        tags: ['social'],
        operationId: 'getFeed',
        summary: 'Activity of followed users, newest first',
        security: COOKIE_AUTH,
        querystring: PageQuerySchema,
        response: { 200: Page(ref(FeedItemSchema)), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return feed(ctx, principalOf(request).userId, request.query);
    },
  );

  app.get(
    '/users/search',
    {
      ...auth,
      schema: {
        tags: ['social'],
        operationId: 'searchUsers',
        summary: 'Find users by username substring',
        security: COOKIE_AUTH,
        querystring: Type.Object({ q: Type.Optional(Text({ maxLength: 100 })) }, { additionalProperties: false }),
        response: { 200: Type.Array(ref(PublicUserSchema), { maxItems: SEARCH_MAX_RESULTS }), ...errorResponses(400, 401) },
      },
    },
    async (request) => findUsers(ctx, request.query.q),
  );

  app.get(
    '/user/:user_id/public',
    {
      config: publicLimit,
      schema: {
        tags: ['social'],
        operationId: 'getPublicProfile',
        summary: "A user's public profile: open bets and paged history",
        security: PUBLIC,
        params: Type.Object({ user_id: Id() }),
        querystring: PageQuerySchema,
        response: { 200: ref(PublicProfileResponseSchema), ...errorResponses(400, 404, 429) },
      },
    },
    async (request, reply) => {
      return sendShared(request, reply, await publicProfile(ctx, request.params.user_id, request.query));
    },
  );
};
