// Plans, checkout and customer portal (SPEC), whichever provider is configured.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COOKIE_AUTH, PUBLIC } from '../http/openapi.js';
import { principalOf } from '../http/types.js';
import { authenticatedWrite } from '../http/route-options.js';
import { errorResponses, ref } from '../schemas/common.js';
import { CheckoutRequestSchema, PlansResponseSchema, UrlResponseSchema } from '../schemas/payments.js';
import { StripePaymentProvider } from '../providers/payments/stripe.js';
import { listPlans, openPortal, startCheckout } from '../services/payments.js';
import { localPayPages } from './local-pay-pages.js';
import { stripeWebhookRoute } from './stripe-webhook.js';

export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.get(
    '/api/pay/plans',
    {
      schema: {
        tags: ['payments'],
        operationId: 'getPlans',
        summary: 'Subscription plans and what each adds',
        security: PUBLIC,
        response: { 200: ref(PlansResponseSchema), ...errorResponses(500) },
      },
    },
    async (request) => ({ plans: await listPlans(ctx, request.log) }),
  );

  app.post(
    '/api/pay/checkout',
    {
      config: { ...authenticatedWrite(ctx.config), idempotent: true },
      schema: {
        tags: ['payments'],
        operationId: 'startCheckout',
        summary: 'Start a hosted checkout for a plan (changes nothing until the provider confirms)',
        security: COOKIE_AUTH,
        body: ref(CheckoutRequestSchema),
        response: { 200: ref(UrlResponseSchema), ...errorResponses(400, 401, 403, 409, 429, 500) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { url: await startCheckout(ctx, request.log, principalOf(request).userId, request.body.price_id) };
    },
  );

  app.post(
    '/api/pay/portal',
    {
      config: authenticatedWrite(ctx.config),
      schema: {
        tags: ['payments'],
        operationId: 'openPortal',
        summary: 'Open the customer portal',
        security: COOKIE_AUTH,
        response: { 200: ref(UrlResponseSchema), ...errorResponses(400, 401, 403, 429, 500) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { url: await openPortal(ctx, request.log, principalOf(request).userId) };
    },
  );

  // Provider-specific endpoints, each in its own encapsulated plugin (own body parsers).
  const provider = ctx.payments;
  if (provider instanceof StripePaymentProvider) await app.register(stripeWebhookRoute, { stripe: provider });
  else await app.register(localPayPages);
};
