import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clearSessionCookie, COOKIE, setSessionCookie } from '../http/auth.js';
import { cookieOf } from '../http/cookies.js';
import { COOKIE_AUTH, PUBLIC } from '../http/openapi.js';
import { principalOf } from '../http/types.js';
import { errorResponses, MessageResponseSchema, ref } from '../schemas/common.js';
import { LoginRequestSchema, RegisterRequestSchema, UserSchema } from '../schemas/users.js';
import { currentUser, login, logout, register } from '../services/accounts.js';

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const authLimit: { rateLimit?: { max: number; timeWindow: number } } = ctx.config.rateLimits.enabled
    ? { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: 60_000 } }
    : {};

  app.post(
    '/register',
    {
      config: authLimit,
      schema: {
        tags: ['accounts'],
        operationId: 'register',
        summary: 'Create an account (sets no cookie; log in afterwards)',
        description:
          '409 says which value is taken: `Username already exists` (usernames compare without case) or ' +
          '`Email already registered`. It thereby tells whether an address has an account, so the operation is ' +
          'rate limited per client address (429).',
        security: PUBLIC,
        body: ref(RegisterRequestSchema),
        response: {
          201: ref(MessageResponseSchema),
          ...errorResponses(400, 403, 409, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      await register(ctx, request.ip, request.body);
      return reply.code(201).send({ message: 'Account created; log in to start a session' });
    },
  );

  app.post(
    '/login',
    {
      config: authLimit,
      schema: {
        tags: ['accounts'],
        operationId: 'login',
        summary: 'Log in; sets the auth_token session cookie',
        security: PUBLIC,
        body: ref(LoginRequestSchema),
        response: { 200: ref(UserSchema), ...errorResponses(400, 401, 403, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { user, token } = await login(ctx, request.ip, body.email, body.password);
      setSessionCookie(app, reply, token);
      return user;
    },
  );

  app.post(
    '/logout',
    {
      schema: {
        tags: ['accounts'],
        operationId: 'logout',
        summary: 'End the session and clear the cookie',
        security: PUBLIC,
        response: { 200: ref(MessageResponseSchema), ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      await logout(ctx, cookieOf(request, COOKIE));
      clearSessionCookie(app, reply);
      return { message: 'Logged out' };
    },
  );

  app.get(
    '/me',
    {
      config: { auth: true },
      schema: {
        tags: ['accounts'],
        operationId: 'getMe',
        summary: 'The logged-in user',
        security: COOKIE_AUTH,
        response: { 200: ref(UserSchema), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return currentUser(ctx, principalOf(request).userId);
    },
  );
};
