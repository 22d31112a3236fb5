import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clearSessionCookie, COOKIE, setSessionCookie } from '../http/auth.js';
import { cookieOf } from '../http/cookies.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';
import { clientAddressOf } from '../http/client-address.js';
import { principalOf } from '../http/types.js';
import { errorResponses, MessageResponseSchema, ref } from '../schemas/common.js';
import { LoginRequestSchema, RegisterRequestSchema, UserSchema } from '../schemas/users.js';
import { currentUser, login, logout, register } from '../services/accounts.js';

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.post(
    '/register',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags: ['accounts'],
        operationId: 'register',
        summary: 'Create an account (sets no cookie; log in afterwards)',
        description:
          '409 says which value is taken: `Username already exists` (usernames compare without case) or ' +
          '`Email already registered`. It thereby tells whether an address has an account, so the operation is ' +
          'rate limited per client address (429).',
        body: ref(RegisterRequestSchema),
        response: {
          201: ref(MessageResponseSchema),
          ...errorResponses(400, 403, 409, 413, 415, 500, 503),
        },
      },
    }),
    async (request, reply) => {
      await register(ctx, clientAddressOf(request), request.body);
      return reply.code(201).send({ message: 'Account created; log in to start a session' });
    },
  );

  app.post(
    '/login',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags: ['accounts'],
        operationId: 'login',
        summary: 'Log in; sets the auth_token session cookie',
        body: ref(LoginRequestSchema),
        response: { 200: ref(UserSchema), ...errorResponses(400, 401, 403, 413, 415, 503) },
      },
    }),
    async (request, reply) => {
      const body = request.body;
      const { user, token } = await login(ctx, clientAddressOf(request), body.email, body.password);
      setSessionCookie(app, reply, token);
      return user;
    },
  );

  app.post(
    '/logout',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['accounts'],
        operationId: 'logout',
        summary: 'End the session and clear the cookie',
        response: { 200: ref(MessageResponseSchema), ...errorResponses(403) },
      },
    }),
    async (request, reply) => {
      await logout(ctx, cookieOf(request, COOKIE));
      clearSessionCookie(app, reply);
      return { message: 'Logged out' };
    },
  );

  app.get(
    '/me',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['accounts'],
        operationId: 'getMe',
        summary: 'The logged-in user',
        response: { 200: ref(UserSchema), ...errorResponses(404) },
      },
    }),
    async (request) => currentUser(ctx, principalOf(request).userId),
  );
};
