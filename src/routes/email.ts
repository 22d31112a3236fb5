// Email (DESIGN's paths; docs/email.md): verification, change of address,
// password reset, notice settings, and unsubscribe without a session.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { normalizeEmail } from '../domain/accounts.js';
import { tooManyRequests } from '../errors.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';
import { clientAddressOf } from '../http/client-address.js';
import { principalOf } from '../http/types.js';
import { errorResponses, MessageResponseSchema, ref } from '../schemas/common.js';
import {
  ChangeEmailRequestSchema,
  EmailResultSchema,
  EmailStateSchema,
  EmailTokenQuerySchema,
  ForgotPasswordRequestSchema,
  NoticeSettingsSchema,
  ResetPasswordRequestSchema,
} from '../schemas/email.js';
import {
  confirmEmailChange,
  emailState,
  forgotPassword,
  getNoticeSettings,
  putNoticeSettings,
  requestEmailChange,
  resendVerification,
  resetPassword,
  verifyEmail,
} from '../services/email.js';
import { hashToken } from '../services/mail-tokens.js';
import { unsubscribePages } from './email-unsubscribe.js';

const tags = ['email'];

export const emailRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const limits = ctx.config.rateLimits;
  /**
   * A limit per key per hour, checked in the handler once the key is known
   * (429 with Retry-After beyond it). Counted by @fastify/rate-limit's store:
   * Redis when REDIS_URL is set, so every instance counts together.
   */
  const hourly = (max: number) => {
    if (!limits.enabled) return async (_request: FastifyRequest, _key: string) => undefined;
    const limiter = app.createRateLimit({
      max,
      timeWindow: 3_600_000,
      keyGenerator: (req: FastifyRequest) => (req as FastifyRequest & { mailLimitKey?: string }).mailLimitKey ?? clientAddressOf(req),
    });
    return async (request: FastifyRequest, key: string) => {
      (request as FastifyRequest & { mailLimitKey?: string }).mailLimitKey = key;
      const r = await limiter(request);
      if (!r.isAllowed && r.isExceeded) throw tooManyRequests(r.ttlInSeconds);
    };
  };
  // Per email address (or account, or token): mails and guesses about one address stay few, from however many clients and accounts.
  const perAddress = hourly(ctx.config.mail.perAddressPerHour);
  // Per client address: one client cannot spread mail over many recipients and accounts.
  const perClient = hourly(limits.mailPerClientPerHour);
  const limitPerAddress = (request: FastifyRequest, key: string) => perAddress(request, `mail:${key}`);
  const limitMailFromClient = (request: FastifyRequest) => perClient(request, `mail-client:${clientAddressOf(request)}`);

  app.get(
    '/email/verify',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags,
        operationId: 'verifyEmail',
        summary: "Verify an address with its emailed link's token (single use, 24 hours)",
        description: 'The web page the emailed link opens calls this. 400 for an unknown, used or expired token.',
        querystring: EmailTokenQuerySchema,
        response: { 200: ref(EmailResultSchema), ...errorResponses(400) },
      },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return verifyEmail(ctx, request.query.token);
    },
  );

  app.post(
    '/email/verify/resend',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'resendVerificationEmail',
        summary: 'Send the verification link again (a new link replaces the previous one)',
        response: { 202: ref(MessageResponseSchema), ...errorResponses(403, 404, 409) },
      },
    }),
    async (request, reply) => {
      const { userId } = principalOf(request);
      await limitMailFromClient(request);
      await limitPerAddress(request, `resend:${userId}`);
      await resendVerification(ctx, userId);
      return reply.code(202).send({ message: 'A new verification link is on its way' });
    },
  );

  app.get(
    '/me/email',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags,
        operationId: 'getMyEmail',
        summary: "The caller's address, whether it is verified, and a change waiting for confirmation",
        response: { 200: ref(EmailStateSchema), ...errorResponses(404) },
      },
    }),
    async (request) => emailState(ctx, principalOf(request).userId),
  );

  app.post(
    '/me/email',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'changeMyEmail',
        summary: 'Ask to change the address (needs the password): a link goes to the new address, a notice to the old one',
        description:
          'The change happens when the link sent to the new address is confirmed (GET /email/confirm). 403 for a wrong password ' +
          '(throttled as logins are), 409 for an address another account holds, 400 for a reserved address.',
        body: ref(ChangeEmailRequestSchema),
        response: { 202: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 409, 413, 415, 503) },
      },
    }),
    async (request, reply) => {
      const who = principalOf(request);
      await limitMailFromClient(request);
      await limitPerAddress(request, `change:${who.userId}`);
      // The confirmation goes to an address the caller names: a stranger's, perhaps.
      await limitPerAddress(request, `change-to:${normalizeEmail(request.body.new_email)}`);
      await requestEmailChange(ctx, who, clientAddressOf(request), request.body.new_email, request.body.password);
      return reply.code(202).send({ message: 'Confirm the change with the link sent to the new address' });
    },
  );

  app.get(
    '/email/confirm',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags,
        operationId: 'confirmEmailChange',
        summary: "Confirm a change of address with its emailed link's token (single use, 24 hours)",
        querystring: EmailTokenQuerySchema,
        response: { 200: ref(EmailResultSchema), ...errorResponses(400, 409) },
      },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return confirmEmailChange(ctx, request.query.token);
    },
  );

  const forgotAnswer = { message: 'If an account has this address, a link to reset its password is on its way' };
  app.post(
    '/password/forgot',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags,
        operationId: 'forgotPassword',
        summary: 'Ask for a password reset link (always 202 with the same body)',
        description:
          'Answers alike, and in the same time, whether or not an account has the address: the link (valid 30 minutes, single use) ' +
          'is sent by the outbox only to an address with an account. Rate limited per client address and per email address (429).',
        body: ref(ForgotPasswordRequestSchema),
        response: { 202: ref(MessageResponseSchema), ...errorResponses(400, 403, 413, 415) },
      },
    }),
    async (request, reply) => {
      const email = normalizeEmail(request.body.email);
      await limitMailFromClient(request);
      await limitPerAddress(request, `forgot:${email}`);
      await forgotPassword(ctx, email);
      return reply.code(202).send(forgotAnswer);
    },
  );

  app.post(
    '/password/reset',
    publicRoute(app, {
      limit: 'sign-in',
      schema: {
        tags,
        operationId: 'resetPassword',
        summary: "Set a new password with a reset link's token; signs out every session",
        description:
          '400 for an unknown, used or expired token, or a password SPEC refuses. On success every session of the account ends ' +
          '(on every instance) and a "your password was changed" email goes out. Rate limited per client address and per token (429).',
        body: ref(ResetPasswordRequestSchema),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 413, 415, 503) },
      },
    }),
    async (request) => {
      await limitPerAddress(request, `reset:${hashToken(request.body.token)}`);
      await resetPassword(ctx, clientAddressOf(request), request.body.token, request.body.new_password);
      return { message: 'Your password is changed; log in with the new one' };
    },
  );

  app.get(
    '/me/notice-settings',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags,
        operationId: 'getNoticeSettings',
        summary: 'Which notices go by email: each, a daily digest (hour and time zone), or none',
        response: { 200: ref(NoticeSettingsSchema) },
      },
    }),
    async (request) => getNoticeSettings(ctx, principalOf(request).userId),
  );

  app.put(
    '/me/notice-settings',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'putNoticeSettings',
        summary: 'Choose which notices go by email (each or a daily digest needs a verified address: 409 otherwise)',
        body: ref(NoticeSettingsSchema),
        response: { 200: ref(NoticeSettingsSchema), ...errorResponses(400, 403, 404, 409, 413, 415) },
      },
    }),
    async (request) => putNoticeSettings(ctx, principalOf(request).userId, request.body),
  );

  await app.register(unsubscribePages);
};
